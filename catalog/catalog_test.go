package catalog

import (
	"testing"

	"github.com/shariah-screen/shariah"
)

func testCatalog() *Catalog {
	return New([]shariah.Asset{
		{Symbol: "AAPL", Name: "Apple Inc.", Type: shariah.Equity, Sector: "Information Technology", Country: "United States", ISIN: "US0378331005"},
		{Symbol: "AAP", Name: "Advance Auto Parts", Type: shariah.Equity, Sector: "Consumer Discretionary", Country: "United States"},
		{Symbol: "APLE", Name: "Apple Hospitality REIT", Type: shariah.Equity, Sector: "Real Estate", Country: "United States"},
		{Symbol: "BRK-B", Name: "Berkshire Hathaway Inc. Class B", Type: shariah.Equity, Sector: "Financials", Country: "United States"},
		{Symbol: "0700.HK", Name: "Tencent Holdings", Type: shariah.Equity, Sector: "Communication Services", Country: "Hong Kong"},
		{Symbol: "SPUS", Name: "SP Funds S&P 500 Sharia ETF", Type: shariah.ETF},
		{Symbol: "^GSPC", Name: "S&P 500", Type: shariah.Index},
		{Symbol: "AAPL", Name: "duplicate ignored", Type: shariah.Equity},
	})
}

func TestCatalogSearchRanking(t *testing.T) {
	t.Parallel()
	c := testCatalog()
	hits, total := c.Search(SearchQuery{Q: "aap"})
	got := ""
	for _, h := range hits {
		got += h.Symbol + ":" + h.MatchedBy + " "
	}
	// exact symbol, then symbol prefixes (shorter first)
	if total != 2 || got != "AAP:symbol AAPL:symbol_prefix " {
		t.Fatalf("aap: %s (%d)", got, total)
	}
	hits, total = c.Search(SearchQuery{Q: "apple", Type: shariah.Equity})
	if total != 2 || hits[0].Symbol != "AAPL" || hits[1].Symbol != "APLE" || hits[0].MatchedBy != "name" {
		t.Fatalf("apple: %+v", hits)
	}
	hits, total = c.Search(SearchQuery{Country: "united STATES", Limit: 2, Offset: 1})
	if total != 4 || len(hits) != 2 {
		t.Fatalf("filter page: %d %d", total, len(hits))
	}
	if _, total := c.Search(SearchQuery{Q: "hathaway class"}); total != 1 {
		t.Fatalf("two name words: %d", total)
	}
	if hits, total := c.Search(SearchQuery{Offset: 100}); total != 7 || len(hits) != 0 {
		t.Fatalf("offset past the end: %d %d", total, len(hits))
	}
	st := c.Stats()
	if st.Equities != 5 || st.ETFs != 1 || st.Indices != 1 || st.Total != 7 || st.EquitySectors != 5 || st.EquityCountries != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCatalogSuggest(t *testing.T) {
	t.Parallel()
	c := testCatalog()
	s := c.Suggest("aa", 10)
	if len(s) != 2 || s[0].Symbol != "AAP" || s[1].Symbol != "AAPL" {
		t.Fatalf("aa: %+v", s)
	}
	s = c.Suggest("app", 10)
	if len(s) != 2 || s[0].Symbol != "AAPL" || s[0].MatchedBy != "name_prefix" {
		t.Fatalf("app: %+v", s)
	}
	if s := c.Suggest("a", 1); len(s) != 1 {
		t.Fatalf("limit: %+v", s)
	}
	if s := c.Suggest("  ", 5); len(s) != 0 {
		t.Fatal("blank prefix suggested something")
	}
}

func TestCatalogCanonical(t *testing.T) {
	t.Parallel()
	c := testCatalog()
	cases := map[string]string{"aapl": "AAPL", " AAPL.US ": "AAPL", "NASDAQ:AAPL": "AAPL", "BRK.B": "BRK-B", "brk/b": "BRK-B",
		"700.HK": "0700.HK", "0700.hk": "0700.HK", "US0378331005": "AAPL", "US0378331006": "", "XYZ": "", "": ""}
	for in, want := range cases {
		if got := c.Canonical(in).Symbol; got != want {
			t.Errorf("%q -> %q, want %q", in, got, want)
		}
	}
}
