package screening_test

import (
	"testing"

	"github.com/shariah-screen/shariah/screening"
)

func TestRulesetDisplayName(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"spec": "5 methodologies", "aaoifi-ss21": "AAOIFI 2017", "djim-2026": "DJIM 2026", "ftse-2024": "FTSE 2024",
		"msci-2025": "MSCI 2025", "msci-mseries": "MSCI M-Series", "sc-malaysia": "SC Malaysia 2013",
		"sp-2014": "S&P 2014", "sp-2023": "S&P 2023",
	}
	rs := allRulesets(t)
	seen := map[string]string{}
	for name, r := range rs {
		got := r.DisplayName()
		if w, ok := want[name]; ok && got != w {
			t.Errorf("%s: %q, want %q", name, got, w)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%s and %s both read %q", name, other, got)
		}
		seen[got] = name
		res := shariahScreenBase(r)
		if res.RulesetDisplayName() != got {
			t.Errorf("%s: the result's name %q, the ruleset's %q", name, res.RulesetDisplayName(), got)
		}
	}
}

func shariahScreenBase(rs *screening.Ruleset) screening.Result {
	return screening.Screen(base(), rs, "")
}
