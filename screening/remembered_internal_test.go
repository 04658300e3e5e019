package screening

import (
	"testing"
	"time"
)

// rememberedAfter answers from the newest result remembered when it can, and from the memory when a
// result read is older than that: the same answers either way, for every symbol, ruleset and time.
func TestRememberedAfterWithAndWithoutTheNewestShortcut(t *testing.T) {
	s := &Screener{}
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	if s.rememberedAfter("MSFT", "default", t0) {
		t.Fatal("an empty memory remembers a result")
	}
	s.remember(Result{Symbol: "MSFT", Ruleset: RulesetRef{Name: "default"}, ScreenedAt: t0.Add(time.Minute)}, 1)
	s.remember(Result{Symbol: "AAPL", Ruleset: RulesetRef{Name: "default"}, ScreenedAt: t0.Add(2 * time.Minute)}, 1)
	for _, c := range []struct {
		sym, rs string
		at      time.Time
		want    bool
	}{
		{"MSFT", "default", t0, true},                        // older than MSFT's, older than the newest
		{"MSFT", "default", t0.Add(time.Minute), false},      // MSFT's own time (older than the newest)
		{"MSFT", "default", t0.Add(90 * time.Second), false}, // newer than MSFT's, older than the newest
		{"MSFT", "other", t0, false},                         // another ruleset
		{"TSLA", "default", t0, false},                       // never remembered
		{"AAPL", "default", t0.Add(time.Minute), true},       // older than AAPL's (the newest)
		{"AAPL", "default", t0.Add(2 * time.Minute), false},  // the newest itself: the shortcut
		{"AAPL", "default", t0.Add(time.Hour), false},        // newer than everything: the shortcut
	} {
		if got := s.rememberedAfter(c.sym, c.rs, c.at); got != c.want {
			t.Errorf("rememberedAfter(%s, %s, %s) = %v, want %v", c.sym, c.rs, c.at.Format(time.TimeOnly), got, c.want)
		}
	}
}
