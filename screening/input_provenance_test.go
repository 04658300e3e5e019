package screening

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shariah-screen/shariah"
)

func TestInputProvenances(t *testing.T) {
	t.Parallel()
	p := shariah.Fundamentals{Facts: map[shariah.Field]shariah.Fact{
		shariah.TotalAssets: {Value: numOf("100"), Source: shariah.SourceFiling, Ref: "0000320193-25-000079", CIK: "0000320193", Document: "a.htm", Form: "10-K"},
		shariah.TotalDebt:   {Value: numOf("5"), Source: shariah.SourceFiling, Ref: "a-10-q.html"}, // no accession: no address
	}, Missing: map[shariah.Field]string{shariah.Receivables: "not reported"}}
	got := InputProvenances(p, "")
	ta, td, rc := got[shariah.TotalAssets], got[shariah.TotalDebt], got[shariah.Receivables]
	if ta.URL != "https://www.sec.gov/Archives/edgar/data/320193/000032019325000079/a.htm" || ta.Accession != "0000320193-25-000079" {
		t.Fatalf("total assets: %+v", ta)
	}
	if td.URL != "" || td.Accession != "" || !td.Available || rc.Available || rc.Reason != "not reported" {
		t.Fatalf("total debt %+v, receivables %+v", td, rc)
	}
	b, _ := json.Marshal(got)
	s := string(b)
	for _, want := range []string{`"receivables":{"available":false,"reason":"not reported"}`,
		`"total_debt":{"accession":null,"available":true,`, `"url":"https://www.sec.gov/Archives/edgar/data/320193/000032019325000079/a.htm","value":100}`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s:\n%s", want, s)
		}
	}
}
