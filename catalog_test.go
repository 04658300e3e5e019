package shariah

import (
	"fmt"
	"testing"
	"time"
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
	if RatioPercent(-154, 26354) != "-0.58" || RatioPercent(1, 3) != "33.33" || RatioPercent(2, 3) != "66.67" || RatioPercent(0, 5) != "0.00" {
		t.Fatal("RatioPercent")
	}
}

func TestQuoteAndAggregates(t *testing.T) {
	t.Parallel()
	var bars []Bar
	d := time.Date(2025, 1, 27, 0, 0, 0, 0, time.UTC)
	for i := range 10 { // 2025-01-27 .. 2025-02-05 incl. weekends: fine for the arithmetic
		p := Price((100 + i) * PriceScale)
		bars = append(bars, Bar{Date: d.AddDate(0, 0, i), Open: p, High: p + PriceScale, Low: p - PriceScale, Close: p, Volume: int64(1000 * (i + 1))})
	}
	q, ok := QuoteFromBars("X", bars, SourceHistory)
	if !ok || q.Price.String() != "109.00" || q.Change.String() != "1.00" || q.ChangePercent.StringFixed(2) != "0.93" || q.AvgVolume == nil || *q.AvgVolume != 5000 || q.Range52WBasis != "high_low" ||
		q.High52W.String() != "110.00" || q.Low52W.String() != "99.00" || q.AsOf != "2025-02-05" {
		t.Fatalf("quote %+v", q)
	}
	m := MonthlyFromDaily(bars)
	if len(m) != 2 || m[0].Close.String() != "104.00" || m[0].Open.String() != "100.00" || m[0].High.String() != "105.00" || m[0].Volume != 15000 {
		t.Fatalf("monthly %s", fmt.Sprint(m))
	}
	w := WeeklyFromDaily(bars)
	if len(w) != 2 || w[0].Close != bars[6].Close || w[1].Close != bars[9].Close { // Mon 27 Jan..Sun 2 Feb, then 3..5 Feb
		t.Fatalf("weekly %d", len(w))
	}
}
