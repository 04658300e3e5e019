package market

import (
	"testing"
	"time"
)

func TestPricesStatus(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for day, want := range map[string]string{"2026-11-20": "ok", "2026-11-10": "stale", "not a date": "ok"} {
		if got := PricesStatus(day, now); got != want {
			t.Errorf("%s: %s, want %s", day, got, want)
		}
	}
}
