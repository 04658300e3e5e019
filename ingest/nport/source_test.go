package nport_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/ingest/nport"
	"github.com/shariah-screen/shariah/internal/redistest"
	sredis "github.com/shariah-screen/shariah/redis"
)

// TestSourceJoinsFilingsWithCuratedProgrammes runs the ingester over the small N-PORT fixture and a
// curated file naming its first debt holding: only that holding is stored, with the filing's facts and
// the programme's structure; a broken filing fails the run without touching the store.
func TestSourceJoinsFilingsWithCuratedProgrammes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, rc := redistest.Start(t)
	curated := filepath.Join(dir, "programmes.csv")
	os.WriteFile(curated, []byte(strings.Join(nport.CuratedHeader, ",")+"\nXS1234567896,,ijarah,AAOIFI,legal,market,false,1,,offering circular (test),true\n"), 0o644)
	filing, _ := filepath.Abs("testdata/nport_small.xml")
	broken := filepath.Join(dir, "broken.xml")
	b, _ := os.ReadFile(filing)
	os.WriteFile(broken, b[:len(b)/2], 0o644)

	store := sredis.NewSukukStore(rc)
	src := &nport.Source{HTTP: &httpx.Client{UserAgent: "test"}, Filings: []string{"file://" + filing}, Curated: "file://" + curated, Store: store}
	n, err := src.Run(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("run: %d %v", n, err)
	}
	s, ok, _ := store.Sukuk(context.Background(), "XS1234567896")
	if !ok || s.Structure != "ijarah" || s.PurchaseUndertaking != "market" || s.MaturityDate != "2030-03-15" || s.Currency != "USD" ||
		s.CouponRate == nil || s.CouponRate.String() != "4.5" || s.ReturnType != "fixed" || s.Source == "" {
		t.Fatalf("stored: %+v", s)
	}
	all, _ := store.AllSukuk(context.Background())
	if len(all) != 1 {
		t.Fatalf("only curated programmes are stored: %d", len(all))
	}
	src.Filings = []string{"file://" + broken}
	if _, err := src.Run(context.Background()); err == nil {
		t.Fatal("a truncated filing ran without error")
	}
	if again, _ := store.AllSukuk(context.Background()); len(again) != 1 {
		t.Fatalf("a broken filing changed the store: %d", len(again))
	}
}
