package webhooks

import (
	"testing"

	"github.com/shariah-screen/shariah/screening"
)

// TestMatching: kinds first (none: all), then symbols through any of the filters' sets; no filter is
// every symbol.
func TestMatching(t *testing.T) {
	t.Parallel()
	sp := setOf([]string{"AAPL", "MSFT"})
	cases := []struct {
		m    matcher
		ev   Event
		want bool
	}{
		{matcher{all: true}, Event{Symbol: "KO", Kinds: []string{screening.ChangeDataSource}}, true},
		{matcher{e: Endpoint{Kinds: []string{screening.ChangeOverall}}, all: true}, Event{Symbol: "KO", Kinds: []string{screening.ChangeDataSource}}, false},
		{matcher{e: Endpoint{Kinds: []string{screening.ChangeOverall}}, all: true}, Event{Symbol: "KO", Kinds: []string{screening.ChangeDataSource, screening.ChangeOverall}}, true},
		{matcher{sets: []map[string]bool{setOf([]string{"KO"}), sp}}, Event{Symbol: "MSFT", Kinds: []string{screening.ChangeOverall}}, true},
		{matcher{sets: []map[string]bool{setOf([]string{"KO"}), sp}}, Event{Symbol: "JNJ", Kinds: []string{screening.ChangeOverall}}, false},
		{matcher{}, Event{Symbol: "JNJ", Kinds: []string{screening.ChangeOverall}}, false}, // a filter whose watchlist is gone
	}
	for i, c := range cases {
		if got := c.m.matches(c.ev); got != c.want {
			t.Errorf("case %d: %v, want %v", i, got, c.want)
		}
	}
	if !(Filter{}).Empty() || (Filter{Index: "SP500"}).Empty() {
		t.Error("Filter.Empty")
	}
}
