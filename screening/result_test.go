package screening_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/shariah-screen/shariah/screening"
)

// TestMethodologyKeys: by_methodology keys are the display names without punctuation, upper-cased:
// exactly AAOIFI, DJIM, FTSE, MSCI and SP for the default ruleset's five, and distinct within every ruleset.
func TestMethodologyKeys(t *testing.T) {
	t.Parallel()
	for name, rs := range allRulesets(t) {
		seen := map[string]bool{}
		for _, m := range rs.Methodologies {
			k := screening.MethodologyKey(m.Name)
			if k == "" || seen[k] || strings.ToUpper(k) != k {
				t.Errorf("%s: %s -> %q", name, m.Name, k)
			}
			seen[k] = true
		}
	}
	res := screening.Screen(base(), allRulesets(t)["spec"], "")
	var keys []string
	for k := range res.ByMethodology {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "AAOIFI,DJIM,FTSE,MSCI,SP" || res.Methodologies["S&P"] == "" || res.ByMethodology["SP"].Methodology != "S&P" {
		t.Fatalf("keys %v, methodologies %v", keys, res.Methodologies)
	}
	if k := screening.MethodologyKey("SC Malaysia"); k != "SCMALAYSIA" {
		t.Fatalf("SC Malaysia -> %s", k)
	}
}
