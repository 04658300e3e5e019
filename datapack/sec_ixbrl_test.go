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
