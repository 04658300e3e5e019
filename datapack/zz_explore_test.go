package datapack

import (
	"os"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
)

func TestZZExplore(t *testing.T) {
	dir := os.Getenv("SHARIAH_DATA_DIR")
	p, _, err := ReadAllShared(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Fundamentals {
		switch f.Symbol {
		case "NFLX", "NOW", "PANW", "ANET", "MSFT", "KLAC", "AMZN", "WMT":
			sh, ok := f.Facts[shariah.SharesOutstanding]
			t.Logf("%s %s %s ok=%v %s %s as_of=%s filed=%s form=%s | missing=%s", f.Symbol, f.PeriodEnd, f.Period, ok, sh.Value.Decimal, sh.Note, sh.AsOf, sh.Filed, sh.Form, f.Missing[shariah.SharesOutstanding])
		}
	}
	for _, s := range p.Splits {
		t.Logf("split %s %s %s %s", s.Symbol, s.Name(), s.When(), s.Source)
	}
	for _, pr := range p.Problems {
		if pr.File == "shares_outstanding" || strings.Contains(pr.File, "companyfacts-derived") {
			t.Logf("problem %s", pr)
		}
	}
	for _, n := range p.Notes {
		if strings.Contains(n, "companyfacts-derived") || strings.Contains(n, "split") {
			t.Logf("note %s", n)
		}
	}
}
