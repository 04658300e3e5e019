package screening

import (
	"fmt"
	"sort"
	"strings"
)

// ReportSection is a titled paragraph of a screening report.
type ReportSection struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// MethodologyNames lists a result's methodologies in a stable order.
func MethodologyNames(r Result) []string {
	out := make([]string, 0, len(r.ByMethodology))
	for name := range r.ByMethodology {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// ReportSections renders a result as titled paragraphs (REST reports and the MCP report tool).
func ReportSections(r Result) []ReportSection {
	var biz []string
	for _, a := range r.BusinessActivities {
		kind := "doubtful"
		if a.Primary {
			kind = "prohibited"
		}
		from := a.Reason
		if a.Source != "" {
			from += ", " + a.Source
		}
		biz = append(biz, fmt.Sprintf("%s (%s, from %s)", activityName(a), kind, from))
	}
	bizText := "Nothing prohibited or doubtful was found in the company's classification."
	if c := r.BusinessClassification; c.Basis == BasisNone {
		bizText = "Business classification unknown: no SIC code, industry or sector on file, so the business screen could not pass."
	} else if c.Text != "" {
		bizText = "Nothing prohibited or doubtful was found in the company's classification: " + c.Text + "."
	}
	if len(biz) > 0 {
		bizText = "Activities found: " + strings.Join(biz, "; ") + "."
	}
	var ratios []string
	for _, m := range MethodologyNames(r) {
		mr := r.ByMethodology[m]
		for _, rr := range mr.Ratios {
			val := "unknown (missing " + strings.Join(rr.Missing, ", ") + ")"
			if rr.ValuePct != nil {
				val = *rr.ValuePct + "%"
			} else if rr.Bound != nil {
				val = "between " + rr.Bound.ValueLowerPct + "% and " + rr.Bound.ValueUpperPct + "% (on a bound: " + strings.ReplaceAll(rr.Bound.Field, "_", " ") + " not filed)"
			}
			verdict := "unknown"
			if rr.Pass != nil {
				verdict = map[bool]string{true: "passes", false: "fails"}[*rr.Pass]
			}
			for _, k := range rr.Marks {
				verdict += "; " + MarkLabel(k)
			}
			name := mr.Methodology // the display name (S&P), not the by_methodology key (SP)
			if name == "" {
				name = m
			}
			ratios = append(ratios, fmt.Sprintf("%s %s: %s against %s%% (%s)", name, rr.Label, val, rr.ThresholdPct, verdict))
		}
	}
	pur := "Unknown: the impure-revenue ratio could not be computed."
	if r.PurificationRatePct != nil {
		pur = fmt.Sprintf("Purify %s%% of dividends (%s).", r.PurificationRatePct.String(), r.PurificationMethod)
	}
	dq := fmt.Sprintf("Fundamentals as of %s (%s) from %s.", r.DataQuality.AsOf, r.DataQuality.Period, strings.Join(r.DataQuality.Sources, ", "))
	if len(r.DataQuality.MissingFields) > 0 {
		dq += " Missing: " + strings.Join(r.DataQuality.MissingFields, ", ") + "."
	}
	marks := MarksOf(r)
	if r.DataQuality.Illustrative {
		dq += " Illustrative figures are not from filings."
	}
	verdict := r.ComplianceExplanation
	if marks.Any() {
		dq += " " + marks.Sentence()
		verdict = "Marked " + marks.Label() + ": " + verdict
	}
	return []ReportSection{
		{"Verdict", verdict},
		{"Business activity", bizText},
		{"Financial ratios", strings.Join(ratios, "; ") + "."},
		{"Purification", pur},
		{"Data quality", dq},
	}
}
