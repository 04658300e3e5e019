package shariah

import (
	"testing"
)

func testCatalog() *Catalog {
	return NewCatalog([]Asset{
		{Symbol: "AAPL", Name: "Apple Inc.", Type: Equity, Sector: "Information Technology", Country: "United States", ISIN: "US0378331005"},
		{Symbol: "AAP", Name: "Advance Auto Parts", Type: Equity, Sector: "Consumer Discretionary", Country: "United States"},
		{Symbol: "APLE", Name: "Apple Hospitality REIT", Type: Equity, Sector: "Real Estate", Country: "United States"},
		{Symbol: "BRK-B", Name: "Berkshire Hathaway Inc. Class B", Type: Equity, Sector: "Financials", Country: "United States"},
		{Symbol: "0700.HK", Name: "Tencent Holdings", Type: Equity, Sector: "Communication Services", Country: "Hong Kong"},
		{Symbol: "SPUS", Name: "SP Funds S&P 500 Sharia ETF", Type: ETF},
		{Symbol: "^GSPC", Name: "S&P 500", Type: Index},
		{Symbol: "AAPL", Name: "duplicate ignored", Type: Equity},
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
	hits, total = c.Search(SearchQuery{Q: "apple", Type: Equity})
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

func TestNormalizeSymbolAndISIN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{" aapl ": "AAPL", "brk-b": "BRK-B", "^gspc": "^GSPC", "0700.HK": "0700.HK", "EURUSD=X": "EURUSD=X"} {
		if got, ok := NormalizeSymbol(in); !ok || got != want {
			t.Errorf("%q -> %q %v", in, got, ok)
		}
	}
	for _, bad := range []string{"", " ", "A A", "AAPL;DROP", "<script>", "a/b", "$AAPL", "ABCDEFGHIJKLMNOPQRSTUV", "^^X"} {
		if _, ok := NormalizeSymbol(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, good := range []string{"US0378331005", "GB0002374006", "KYG875721634", "SA14TG012N13", "MYL1155OO000"} {
		if !ValidISIN(good) {
			t.Errorf("%s rejected", good)
		}
	}
	for _, bad := range []string{"US0378331006", "us0378331005", "US037833100", "0S0378331005", "US03783310O5"} {
		if ValidISIN(bad) {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestPriceParseAndFormat(t *testing.T) {
	t.Parallel()
	cases := map[string]string{"207.4": "207.40", "1892.7554931640625": "1892.755493", "0.0000005": "0.000001", "12": "12.00",
		"-1.5": "-1.50", "1e3": "1000.00", "0.1234565": "0.123457"}
	for in, want := range cases {
		p, err := ParsePrice(in)
		if err != nil || p.String() != want {
			t.Errorf("%s -> %s %v, want %s", in, p, err, want)
		}
	}
	for _, bad := range []string{"", "abc", "1.2.3", "--1", "99999999999999999"} {
		if _, err := ParsePrice(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
