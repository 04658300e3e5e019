package shariah

import "testing"

func TestVerdictSentence(t *testing.T) {
	t.Parallel()
	r := Result{Symbol: "MSFT", Name: "Microsoft Corp", ComplianceStatus: "COMPLIANT", ComplianceExplanation: "Compliant under AAOIFI."}
	r.Ruleset.Name = "spec"
	if got, want := VerdictSentence(r), "MSFT (Microsoft Corp): COMPLIANT under spec. Compliant under AAOIFI."; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	r.ComplianceExplanation, r.DataQuality.Illustrative = "", true
	if got, want := VerdictSentence(r), "MSFT (Microsoft Corp): COMPLIANT under spec. [illustrative data]"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
