package sec

import (
	"sort"
	"testing"
)

// company_tickers.json: the fixture and the real file (shared data folder).

func TestFixtureCompanyTickers(t *testing.T) {
	t.Parallel()
	ts, err := ParseCompanyTickers(fixture(t, "exa_tickers.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Ticker{
		{"BRK-B", "0001067983", "BERKSHIRE HATHAWAY INC", 0},
		{"DUP", "0000000111", "First Dup Inc", 0}, // key "2" precedes key "10"
		{"EXA", "0001234567", "Example Corp", 0},
		{"GOOG", "0001652044", "Alphabet Inc.", 0},
		{"GOOGL", "0001652044", "Alphabet Inc.", 0},
	}
	if len(ts) != len(want) {
		t.Fatalf("tickers %+v", ts)
	}
	for i := range want {
		got := ts[i]
		got.Row = 0 // the file order is checked through TickerMap's primary symbols
		if got != want[i] {
			t.Errorf("ticker %d = %+v, want %+v", i, ts[i], want[i])
		}
	}
	if _, err := ParseCompanyTickers([]byte(`{"0":{"cik_str":"x1","ticker":"A","title":"A"}}`)); err == nil {
		t.Error("bad cik accepted")
	}
	if _, err := ParseCompanyTickers([]byte(`[]`)); err == nil {
		t.Error("array accepted")
	}
}

func TestRealCompanyTickers(t *testing.T) {
	t.Parallel()
	ts, err := ParseCompanyTickers(dataFile(t, "edgartools/company_tickers.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) < 9500 {
		t.Errorf("%d tickers", len(ts))
	}
	if !sort.SliceIsSorted(ts, func(i, j int) bool { return ts[i].Symbol < ts[j].Symbol }) {
		t.Error("not sorted by symbol")
	}
	by := map[string]Ticker{}
	for _, tk := range ts {
		if len(tk.CIK) != 10 || tk.Name == "" {
			t.Errorf("row %+v", tk)
		}
		if _, dup := by[tk.Symbol]; dup {
			t.Errorf("duplicate %s", tk.Symbol)
		}
		by[tk.Symbol] = tk
	}
	// "1": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."}; BRK-B is cik_str 1067983.
	for sym, want := range map[string]Ticker{
		"AAPL":  {"AAPL", "0000320193", "Apple Inc.", 0},
		"BRK-B": {"BRK-B", "0001067983", "BERKSHIRE HATHAWAY INC", 0},
		"NVDA":  {"NVDA", "0001045810", "NVIDIA CORP", 0},
		"GOOG":  {"GOOG", "0001652044", "Alphabet Inc.", 0},
	} {
		got := by[sym]
		got.Row = 0
		if got != want {
			t.Errorf("%s = %+v, want %+v", sym, by[sym], want)
		}
	}
	if by["AAPL"].Row != 1 {
		t.Errorf("AAPL's row %d, want 1 (the file's key \"1\")", by["AAPL"].Row)
	}
}

// TestDebtBeyondTheTagTable: the debt patterns of the real inline-XBRL filings that the tag table's rows
// alone would understate (down to a zero commercial paper standing for all debt).
