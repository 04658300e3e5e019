package screening

import (
	"fmt"
	"strings"
)

var ratioWords = map[string]string{"debt": "debt", "cash": "cash and interest-bearing securities", "receivables": "receivables",
	"impure_revenue": "impure revenue", "receivables_and_cash": "receivables and cash"}

func ratioNames(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		if w, ok := ratioWords[id]; ok {
			out[i] = w
		} else {
			out[i] = strings.ReplaceAll(id, "_", " ")
		}
	}
	return out
}

// activityReasons names each activity and the classification it rests on, with its source:
// "conventional insurance (GICS sub-industry Managed Health Care, from S&P 500 constituents)".
func activityReasons(as []Activity) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = activityName(a) + " (" + a.Reason
		if a.Source != "" {
			names[i] += ", from " + a.Source
		}
		names[i] += ")"
	}
	return joinWords(names)
}

// activityName is the activity in words (a result stored before activities were named has only
// its category).
func activityName(a Activity) string {
	if a.Activity != "" {
		return a.Activity
	}
	return strings.ReplaceAll(a.Category, "_", " ")
}

func missingOf(rs []RatioResult) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		for _, m := range r.Missing {
			w := strings.ReplaceAll(m, "_", " ")
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// joinWords writes "a", "a and b", "a, b and c".
func joinWords(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// explain builds compliance_explanation: one sentence naming which methodologies pass, which fail and
// the ratio (or activity) that failed each, which are questionable and which lack data.
func explain(rs *Ruleset, r Result, methodology string) string {
	var pass, questionable []string
	failBy := map[string][]string{}
	var failOrder []string
	missBy := map[string][]string{}
	var missOrder []string
	for _, m := range rs.Methodologies {
		mr := r.ByMethodology[MethodologyKey(m.Name)]
		switch mr.Verdict {
		case Compliant:
			pass = append(pass, m.Name)
		case Questionable:
			questionable = append(questionable, m.Name+" ("+mr.Reason+")")
		case NonCompliant:
			if _, ok := failBy[mr.Reason]; !ok {
				failOrder = append(failOrder, mr.Reason)
			}
			failBy[mr.Reason] = append(failBy[mr.Reason], m.Name)
		case InsufficientData:
			if _, ok := missBy[mr.Reason]; !ok {
				missOrder = append(missOrder, mr.Reason)
			}
			missBy[mr.Reason] = append(missBy[mr.Reason], m.Name)
		}
	}
	var parts []string
	if len(pass) > 0 {
		parts = append(parts, "compliant under "+joinWords(pass))
	}
	for _, reason := range failOrder {
		on := " on " + reason
		if strings.HasPrefix(reason, "business activity") || strings.HasPrefix(reason, "missing data") {
			on = " (" + reason + ")"
		}
		parts = append(parts, "fails "+joinWords(failBy[reason])+on)
	}
	if len(questionable) > 0 {
		parts = append(parts, "questionable under "+joinWords(questionable))
	}
	for _, reason := range missOrder {
		parts = append(parts, "no verdict under "+joinWords(missBy[reason])+" ("+reason+")")
	}
	s := strings.Join(parts, "; ")
	if s == "" {
		s = "no methodology could be evaluated"
	}
	lead := ""
	if methodology != "" {
		lead = "Overall " + strings.ToLower(strings.ReplaceAll(r.ComplianceStatus, "_", " ")) + " under " + r.Methodology + ": "
	}
	if r.DataQuality.Illustrative {
		lead += "based on illustrative data (not from filings), "
	}
	return capitalize(lead+s) + "." + yesNoSentence(rs, r, methodology) + boundSentence(rs, r)
}

// yesNoSentence names the methodology the yes/no (is_compliant) follows when the overall verdict of
// several methodologies says something else: " The yes/no verdict follows AAOIFI, the ruleset's
// primary methodology: compliant." "" otherwise.
func yesNoSentence(rs *Ruleset, r Result, methodology string) string {
	if methodology != "" || len(rs.Methodologies) < 2 {
		return ""
	}
	p := rs.PrimaryMethodology()
	v := r.ByMethodology[MethodologyKey(p.Name)].Verdict
	if v == strings.ToLower(r.ComplianceStatus) {
		return ""
	}
	words := map[string]string{Compliant: "compliant", NonCompliant: "non-compliant", Questionable: "questionable",
		InsufficientData: "no verdict (insufficient data)"}[v]
	return " The yes/no verdict follows " + p.Name + ", the ruleset's primary methodology: " + words + "."
}

// boundSentence says, for each input decided on a bound (data_quality.bounded), the bound's figures
// and what it decided under each methodology: " Interest income is not filed for ...". "" when none.
func boundSentence(rs *Ruleset, r Result) string {
	var out string
	for _, b := range r.DataQuality.Bounded {
		by := map[string][]string{}
		for _, m := range rs.Methodologies {
			for _, rr := range r.ByMethodology[MethodologyKey(m.Name)].Ratios {
				if rr.Bound != nil && rr.Bound.Field == b.Field {
					by[rr.Bound.Decided] = append(by[rr.Bound.Decided], m.Name+" "+ratioNames([]string{rr.ID})[0]+" "+rr.Bound.ValueLowerPct+"%-"+rr.Bound.ValueUpperPct+"% against "+rr.ThresholdPct+"%")
				}
			}
		}
		var parts []string
		for _, d := range []struct{ key, words string }{{"pass", "passes on the bound: "}, {"fail", "fails on its lower bound: "},
			{"straddles", "has no verdict, the bound straddling the threshold: "}} {
			if len(by[d.key]) > 0 {
				parts = append(parts, d.words+joinWords(by[d.key]))
			}
		}
		if len(parts) == 0 {
			continue
		}
		out += fmt.Sprintf(" %s is not filed for %s %s and bounded instead (kind %q): %s. The ratio %s.",
			capitalize(strings.ReplaceAll(b.Field, "_", " ")), b.PeriodEnd, b.Period, BoundKind, b.Method, strings.Join(parts, "; "))
	}
	return out
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
