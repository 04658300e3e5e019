package datapack

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	shariah "github.com/shariah-screen/shariah"
)

// TestReadSECInlineXBRLDocuments reads a folder of inline-XBRL documents laid out as the shared data
// set's sec/ixbrl/: a good hand-written 10-K becomes fundamentals with the document as provenance; a
// truncated copy, a plain HTML page and a document with a value that does not parse are problems
// naming the file (and the fact), and do not stop the good one.
func TestReadSECInlineXBRLDocuments(t *testing.T) {
	t.Parallel()
	good, err := os.ReadFile("../ingest/sec/testdata/ixbrl/exa-10-k-2025-02-20.html")
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(good), ">1,100<", ">1,1x0<", 1)
	if bad == string(good) {
		t.Fatal("the fixture has no 1,100 value to break")
	}
	fsys := fstest.MapFS{
		"sec/ixbrl/exa/10k/exa-10-k-2025-02-20.html":   {Data: good},
		"sec/ixbrl/trnc/10k/trnc-10-k-2025-02-20.html": {Data: good[:len(good)/2]},
		"sec/ixbrl/html/10k/html-10-k-2025-02-20.html": {Data: []byte("<html><body><p>Annual report</p></body></html>")},
		"sec/ixbrl/bad/10k/bad-10-k-2025-02-20.html":   {Data: []byte(bad)},
	}
	p := ReadSEC(fsys)
	probs := map[string]string{}
	for _, pr := range p.Problems {
		probs[pr.File] = pr.Msg
	}
	for file, want := range map[string]string{
		"sec/ixbrl/trnc/10k/trnc-10-k-2025-02-20.html": "truncated",
		"sec/ixbrl/html/10k/html-10-k-2025-02-20.html": "not an inline XBRL document",
		"sec/ixbrl/bad/10k/bad-10-k-2025-02-20.html":   "f-assets23",
	} {
		if msg, ok := probs[file]; !ok || !strings.Contains(msg, want) {
			t.Errorf("%s: problem %q, want it to say %q", file, msg, want)
		}
	}
	if len(p.Problems) != 3 {
		t.Errorf("problems %v", p.Problems)
	}
	var fy *shariah.Fundamentals
	for i := range p.Fundamentals {
		if p.Fundamentals[i].Period == "FY" {
			fy = &p.Fundamentals[i]
		}
	}
	if fy == nil {
		t.Fatalf("no fiscal year from the good document: %+v", p.Notes)
	}
	a, ok := fy.Facts[shariah.TotalAssets]
	if !ok || a.Ref != "exa-10-k-2025-02-20.html" || a.Document != "exa-10-k-2025-02-20.html" || a.Filed != "2025-02-20" || a.Source != shariah.SourceFiling {
		t.Fatalf("provenance %+v", a)
	}
}

// TestReadSECContradictedInput: a filing whose long-term debt is filed negative keeps its other inputs,
// leaves debt unmeasured with the reason, and the load reports it as a problem naming the file, the
// symbol, the period and the input (never a silent zero, never a failed load).
func TestReadSECContradictedInput(t *testing.T) {
	t.Parallel()
	good, err := os.ReadFile("../ingest/sec/testdata/ixbrl/exa-10-k-2025-02-20.html")
	if err != nil {
		t.Fatal(err)
	}
	neg := strings.Replace(string(good), `id="f-ltd">`, `id="f-ltd" sign="-">`, 1)
	if neg == string(good) {
		t.Fatal("the fixture has no f-ltd fact to make negative")
	}
	const file = "sec/ixbrl/exa/10k/exa-10-k-2025-02-20.html"
	p := ReadSEC(fstest.MapFS{file: {Data: []byte(neg)}})
	// The 10-K's balance sheet stands for its fiscal year and its fourth quarter: one problem each.
	if len(p.Problems) != 2 {
		t.Fatalf("problems %+v", p.Problems)
	}
	for i, period := range []string{"Q4", "FY"} {
		if pr := p.Problems[i]; pr.File != file ||
			!strings.Contains(pr.Msg, "EXA 2024-12-31 "+period+" total_debt: contradicted by the filing: LongTermDebtNoncurrent at 2024-12-31 is negative (-300000000)") {
			t.Errorf("problem %+v", pr)
		}
	}
	var fy *shariah.Fundamentals
	for i := range p.Fundamentals {
		if p.Fundamentals[i].Period == "FY" {
			fy = &p.Fundamentals[i]
		}
	}
	if fy == nil {
		t.Fatal("no fiscal year: the contradiction dropped the filing")
	}
	if _, ok := fy.Facts[shariah.TotalDebt]; ok {
		t.Errorf("total_debt measured: %+v", fy.Facts[shariah.TotalDebt])
	}
	if !strings.HasPrefix(fy.Missing[shariah.TotalDebt], "contradicted by the filing: ") {
		t.Errorf("total_debt reason %q", fy.Missing[shariah.TotalDebt])
	}
	for _, f := range []shariah.Field{shariah.TotalAssets, shariah.TotalRevenue, shariah.Receivables, shariah.InterestIncome} {
		if _, ok := fy.Facts[f]; !ok {
			t.Errorf("%s dropped with the contradicted debt (%s)", f, fy.Missing[f])
		}
	}
}
