package screening

import "fmt"

// VerdictSentence is a screening's verdict in one sentence, as the MCP tools and the terminal agent
// write it: "MSFT (Microsoft Corp): COMPLIANT (illustrative) under 5 methodologies (ruleset spec)."
// followed by the compliance explanation and, when marks apply (MarksOf), their sentences: the verdict
// is never read without them.
func VerdictSentence(r Result) string {
	m := MarksOf(r)
	s := fmt.Sprintf("%s (%s): %s%s under %s (ruleset %s).", r.Symbol, r.Name, r.ComplianceStatus, m.Suffix(), r.RulesetDisplayName(), r.Ruleset.Name)
	if r.ComplianceExplanation != "" {
		s += " " + r.ComplianceExplanation
	}
	if m.Any() {
		s += " " + m.Sentence()
	}
	return s
}
