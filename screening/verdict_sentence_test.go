package screening

import (
	"strings"
	"testing"
)

func TestVerdictSentence(t *testing.T) {
	t.Parallel()
	r := Result{Symbol: "MSFT", Name: "Microsoft Corp", ComplianceStatus: "COMPLIANT", ComplianceExplanation: "Compliant under AAOIFI.",
		ByMethodology: map[string]MethodologyResult{"AAOIFI": {Methodology: "AAOIFI"}}}
	r.Ruleset.Name, r.Ruleset.Edition = "aaoifi-ss21", "2017-01-01"
	if got, want := VerdictSentence(r), "MSFT (Microsoft Corp): COMPLIANT under AAOIFI 2017 (ruleset aaoifi-ss21). Compliant under AAOIFI."; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	r.ComplianceExplanation, r.DataQuality.Illustrative = "", true
	got := VerdictSentence(r)
	if want := "MSFT (Microsoft Corp): COMPLIANT (illustrative) under AAOIFI 2017 (ruleset aaoifi-ss21). Illustrative inputs: "; !strings.HasPrefix(got, want) {
		t.Errorf("%q, want it to start %q", got, want)
	}
	r.DataQuality.Illustrative, r.DataQuality.CarriedForward = false, []CarriedInput{{Field: "interest_income"}}
	if got := VerdictSentence(r); !strings.Contains(got, "COMPLIANT (carried forward) under") || !strings.Contains(got, "earlier fiscal year") {
		t.Errorf("carried forward: %q", got)
	}
}
