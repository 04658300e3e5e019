package edge

import (
	"testing"
	"time"
)

// parseDay answers as time.Parse("2006-01-02") does, on dates and on what is not one.
func TestParseDayIsTimeParse(t *testing.T) {
	for _, s := range []string{"2026-11-27", "2025-12-30", "2024-02-29", "2023-02-29", "2026-13-01", "2026-00-10",
		"2026-04-31", "2026-04-00", "0000-01-01", "9999-12-31", "2026-1-27", "2026/11/27", "2026-11-2x", "", "2026-11-27T00:00:00Z",
		"+026-11-27", "2026-11-270"} {
		want, err := time.Parse("2006-01-02", s)
		got, ok := parseDay(s)
		if ok != (err == nil) || ok && !got.Equal(want) {
			t.Errorf("parseDay(%q) = %v %v; time.Parse: %v %v", s, got, ok, want, err)
		}
	}
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for asOf, want := range map[string]time.Duration{"2026-11-27": time.Minute, "2026-11-26": time.Minute,
		"2026-11-25": time.Hour, "2025-12-30": time.Hour, "not a date": time.Minute} {
		if got := ageMaxAge(asOf, now); got != want {
			t.Errorf("ageMaxAge(%s) = %v, want %v", asOf, got, want)
		}
	}
}
