package redis_test

import (
	"context"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/internal/redistest"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
)

// BenchmarkPutResult writes a real screening result (MSFT of the default pack, about 12 KB served) again
// and again: unchanged (a nightly rescreen of a symbol whose verdicts stand) and changed (the overall
// verdict flipping on every write, so every write records a change).
func BenchmarkPutResult(b *testing.B) {
	_, rc := redistest.StartWithDefaultPack(b)
	ctx := context.Background()
	rs, err := rules.Rulesets()
	if err != nil {
		b.Fatal(err)
	}
	store := sredis.NewResultStore(rc)
	sc := &screening.Screener{Ref: sredis.NewRefStore(rc), Results: store, Rulesets: rs}
	r, _, err := sc.Screen(ctx, "MSFT", screening.ScreenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		flip bool
	}{{"unchanged", false}, {"changed", true}} {
		b.Run(bc.name, func(b *testing.B) {
			statuses := []string{r.ComplianceStatus, "NON_COMPLIANT"}
			i := 0
			for b.Loop() {
				i++
				r.ScreenedAt = r.ScreenedAt.Add(time.Millisecond)
				if bc.flip {
					r.ComplianceStatus = statuses[i%2]
				}
				if err := store.PutResult(ctx, r, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
