package shariah

import "fmt"

// VerdictSentence is a screening's verdict in one sentence, as the MCP tools and the terminal agent
// write it: "MSFT (Microsoft Corp): COMPLIANT under spec." followed by the compliance explanation and,
// when the fundamentals are illustrative, "[illustrative data]".
func VerdictSentence(r Result) string {
	s := fmt.Sprintf("%s (%s): %s under %s.", r.Symbol, r.Name, r.ComplianceStatus, r.Ruleset.Name)
	if r.ComplianceExplanation != "" {
		s += " " + r.ComplianceExplanation
	}
	if r.DataQuality.Illustrative {
		s += " [illustrative data]"
	}
	return s
}
