package screening_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
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

// TestNormalizeEarlierFormat: a result stored before the client-ecosystem fields (by_methodology keyed
// S&P, purification_rate a fraction) reads back as the current format; a current one is unchanged.
func TestNormalizeEarlierFormat(t *testing.T) {
	t.Parallel()
	in := base()
	in.Asset.Industry, in.Asset.SIC, in.Asset.Sector = "Diversified Banks", "6021", "Financials"
	in.Fundamentals[0].Facts[shariah.InterestIncome] = fact(600_000)
	cur := screening.Screen(in, allRulesets(t)["spec"], "")
	b, _ := json.Marshal(cur)
	var old map[string]any
	json.Unmarshal(b, &old)
	by := old["by_methodology"].(map[string]any)
	by["S&P"] = by["SP"]
	delete(by, "SP")
	for _, e := range by {
		for _, f := range []string{"is_compliant", "status", "disposition"} {
			delete(e.(map[string]any), f)
		}
	}
	old["purification_rate"] = old["purification_rate_fraction"]
	for _, f := range []string{"purification_rate_fraction", "shariah_compliance_status", "business_screen_pass", "business_screen_reason", "financial_screen_pass"} {
		delete(old, f)
	}
	delete(old["data_quality"].(map[string]any), "methodologies_insufficient")
	b, _ = json.Marshal(old)
	var r screening.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r.Normalize()
	got, _ := json.Marshal(r)
	want, _ := json.Marshal(cur)
	if string(got) != string(want) {
		t.Fatalf("normalized:\n%s\nwant:\n%s", got, want)
	}
	r.Normalize() // idempotent
	if again, _ := json.Marshal(r); string(again) != string(want) {
		t.Fatal("a second Normalize changed the result")
	}
	if *r.BusinessScreenReason != "conventional finance (SIC 6021)" || r.PurificationRate.String() != "60" || r.PurificationFraction.String() != "0.6" {
		t.Fatalf("reason %v, rate %s / %s", *r.BusinessScreenReason, r.PurificationRate, r.PurificationFraction)
	}
}
