package datapack

import (
	"strings"
	"testing"

	"github.com/shariah-screen/shariah/datapack/defaultpack"
)

func TestDefaultSukukFile(t *testing.T) {
	t.Parallel()
	f, err := defaultpack.FS.Open("sukuk.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	list, problems, err := ReadSukuk(f)
	if err != nil || len(problems) > 0 || len(list) < 10 {
		t.Fatalf("%d records, problems %v, %v", len(list), problems, err)
	}
	structures := map[string]bool{}
	for _, s := range list {
		if !s.Illustrative || s.Source == "" {
			t.Fatalf("%s is not labelled illustrative with a source", s.ISIN)
		}
		structures[s.Structure] = true
	}
	for _, want := range []string{"ijarah", "murabaha", "wakala", "mudarabah", "musharakah", "asset-backed", "hybrid"} {
		if !structures[want] {
			t.Errorf("no %s instrument in the default universe", want)
		}
	}
}

func TestReadSukukReportsBadRows(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		strings.Join(SukukHeader, ","),
		"XS0000000017,Good,Issuer,,AE,ijarah,AAOIFI,USD,2024-01-01,2030-01-01,4.5,fixed,legal,par,false,1,100,LSE,test,false",
		"XS0000000018,Bad check digit,Issuer,,AE,ijarah,AAOIFI,USD,2024-01-01,2030-01-01,4.5,fixed,legal,par,false,1,100,LSE,test,false",
		"XS0000000025,Bad structure,Issuer,,AE,bond,AAOIFI,USD,2024-01-01,2030-01-01,4.5,fixed,legal,par,false,1,100,LSE,test,false",
		"XS0000000033,Bad ratio,Issuer,,AE,wakala,AAOIFI,USD,2024-01-01,2030-01-01,x,fixed,legal,par,maybe,1.5,100,LSE,test,false",
	}, "\n")
	list, problems, err := ReadSukuk(strings.NewReader(in))
	if err != nil || len(list) != 1 || len(problems) != 3 || problems[2].Line != 5 {
		t.Fatalf("%d records, problems %q, %v", len(list), problems, err)
	}
	if !strings.Contains(problems[2].Msg, "coupon_rate") || !strings.Contains(problems[2].Msg, "guarantee") {
		t.Fatalf("line 5 names every problem: %s", problems[2])
	}
}
