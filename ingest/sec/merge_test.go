package sec

import (
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
)

// TestMergeFactsNewFilingNextToHistory: a 10-Q read from its document (not yet in companyfacts)
// merged with the companyfacts history gives the new quarter, keeps the history, and a fact both
// readings report appears once.
func TestMergeFactsNewFilingNextToHistory(t *testing.T) {
	t.Parallel()
	k := filingMeta{"0000000042-25-000001", 2024, "FY", "10-K", "2025-02-20"}
	q1 := filingMeta{"0000000042-25-000009", 2025, "Q1", "10-Q", "2025-05-01"}
	history := companyFacts(map[string][]Fact{
		"Assets":   {k.at("2024-12-31", "40")},
		"Revenues": {k.over("2024-01-01", "2024-12-31", "1000")},
	}, k.at("2025-02-01", "7"))
	doc := companyFacts(map[string][]Fact{
		"Assets":   {q1.at("2025-03-31", "45"), q1.at("2024-12-31", "40")},
		"Revenues": {q1.over("2025-01-01", "2025-03-31", "260"), k.over("2024-01-01", "2024-12-31", "1000")},
	}, q1.at("2025-04-20", "8"))
	m, err := MergeFacts(history, doc)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(m.Facts["us-gaap"]["Revenues"].Units["USD"]); n != 2 {
		t.Fatalf("revenue facts %d, want 2 (the shared FY fact once)", n)
	}
	fs, err := Fundamentals(m, "TST")
	if err != nil {
		t.Fatal(err)
	}
	idx := index(t, fs)
	want(t, idx["2024-12-31 FY"], shariah.TotalRevenue, "1000", k.accn, "Revenues")
	want(t, idx["2025-03-31 Q1"], shariah.TotalRevenue, "260", q1.accn, "Revenues")
	want(t, idx["2025-03-31 Q1"], shariah.SharesOutstanding, "8", q1.accn, SharesTag)

	other := history
	other.CIK = "0000000043"
	if _, err := MergeFacts(history, other); err == nil || !strings.Contains(err.Error(), "different companies") {
		t.Fatalf("two CIKs merged: %v", err)
	}
}
