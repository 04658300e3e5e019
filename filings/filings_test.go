package filings_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/market"
)

// TestFilterFilings: reports by default (insider forms left out, amendments and transition reports
// in), one form with its amendments, everything with "all", and total over every page.
func TestFilterFilings(t *testing.T) {
	t.Parallel()
	var all []filings.Filing
	for i, form := range []string{"4", "144", "10-Q", "4", "8-K", "3", "10-K/A", "5", "20-F", "6-K", "4", "10-K", "40-F", "DEF 14A", "10-KT", "8-K/A"} {
		all = append(all, filings.Filing{Accession: fmt.Sprintf("a-%02d", i), Form: form})
	}
	forms := func(fs []filings.Filing) string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Form)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		form          string
		limit, offset int
		want          string
		total         int
	}{
		{"", 20, 0, "10-Q,8-K,10-K/A,20-F,6-K,10-K,40-F,10-KT,8-K/A", 9},
		{"", 2, 1, "8-K,10-K/A", 9},
		{"", 5, 8, "8-K/A", 9},
		{"", 5, 9, "", 9},
		{"10-K", 20, 0, "10-K/A,10-K", 2},
		{"8-K", 1, 0, "8-K", 2},
		{filings.TypeAll, 3, 0, "4,144,10-Q", 16},
	} {
		got, total := filings.FilterFilings(all, c.form, c.limit, c.offset)
		if forms(got) != c.want || total != c.total {
			t.Errorf("FilterFilings(%q, %d, %d) = %s (%d), want %s (%d)", c.form, c.limit, c.offset, forms(got), total, c.want, c.total)
		}
	}
}

func TestSignedPercent(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"1.234": "+1.23%", "-0.5": "-0.50%", "0": "0.00%", "0.001": "0.00%", "12": "+12.00%"} {
		if got := market.SignedPercent(decimal.RequireFromString(in)); got != want {
			t.Errorf("SignedPercent(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestQuoteStoredInTheEarlierShape: a quote stored with change_percent as a string reads and writes
// back in the current shape, with changePercent and marketCap.
func TestQuoteStoredInTheEarlierShape(t *testing.T) {
	t.Parallel()
	var q market.Quote
	if err := json.Unmarshal([]byte(`{"symbol":"X","price":10,"change_percent":"-0.58","market_cap":1000,"as_of":"2025-12-30"}`), &q); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if m["change_percent"] != -0.58 || m["changePercent"] != -0.58 || m["marketCap"] != 1000.0 || m["market_cap"] != 1000.0 {
		t.Fatalf("re-encoded %s", b)
	}
}
