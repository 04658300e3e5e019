package screening

import (
	"fmt"
	"sort"
	"strings"
)

// The verdict fields of a result derived from its methodologies' verdicts: each entry's is_compliant,
// the methodology the yes/no follows, the overall verdict's lower-case status, the business and
// financial screens as booleans, abstain_reason and data_quality.methodologies_insufficient. The
// engine (Screen), a methodology's view (View), a bulk row's view and the result store's read path
// (results stored before a field existed) derive them here.

// VerdictBool is a verdict as is_compliant: questionable (a doubtful activity not cleared) counts as not
// compliant, no verdict as null.
func VerdictBool(verdict string) *bool {
	switch verdict {
	case Compliant:
		return boolp(true)
	case NonCompliant, Questionable:
		return boolp(false)
	}
	return nil
}

// InsufficientOf lists the keys of the methodologies without a verdict, sorted.
func InsufficientOf(by map[string]MethodologyResult) []string {
	out := []string{}
	for _, k := range sortedKeys(by) {
		if by[k].Verdict == InsufficientData {
			out = append(out, k)
		}
	}
	return out
}

func sortedKeys(by map[string]MethodologyResult) []string {
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// SetYesNo makes the named methodology (display name) the one the yes/no follows: is_compliant is its
// verdict as a yes/no (VerdictBool), null when the result has no such entry. The one rule behind
// is_compliant wherever a result is served (REST, bulk rows and exports, portfolio, MCP).
func (r *Result) SetYesNo(methodology string) {
	r.VerdictMethodology, r.IsCompliant = methodology, nil
	if mr, ok := r.ByMethodology[MethodologyKey(methodology)]; ok {
		r.IsCompliant = VerdictBool(mr.Verdict)
	}
}

// yesNoBasis is the by_methodology entry the yes/no follows (verdict_methodology), alone; every entry
// (considered) for a result without one.
func (r *Result) yesNoBasis() []MethodologyResult {
	if mr, ok := r.ByMethodology[MethodologyKey(r.VerdictMethodology)]; ok && r.VerdictMethodology != "" {
		return []MethodologyResult{mr}
	}
	return r.considered()
}

// considered are the by_methodology entries behind the overall verdict: the chosen methodology's
// when the result is seen through one, else every one, in key order.
func (r *Result) considered() []MethodologyResult {
	if r.Methodology != "" {
		if mr, ok := r.ByMethodology[MethodologyKey(r.Methodology)]; ok {
			return []MethodologyResult{mr}
		}
	}
	out := make([]MethodologyResult, 0, len(r.ByMethodology))
	for _, k := range sortedKeys(r.ByMethodology) {
		out = append(out, r.ByMethodology[k])
	}
	return out
}

// DeriveOverall sets the fields that follow from the overall verdict and the methodologies behind
// it: shariah_compliance_status and abstain_reason from compliance_status; business_screen_pass and
// _reason, and financial_screen_pass, from the methodology the yes/no follows (yesNoBasis), so that a
// yes/no client's reason is that methodology's. Screen, SetOverall and the result store's read path
// call it; it never changes by_methodology.
func (r *Result) DeriveOverall() {
	r.ShariahStatus = strings.ToLower(r.ComplianceStatus)
	ms := r.yesNoBasis()
	// Business screen: false when a methodology finds a prohibited activity, null when none could
	// screen (no classification); the reason names each activity found and what it rests on, or, when
	// the screen passed with nothing found, the classification read (BusinessPassedReason).
	r.BusinessScreenPass, r.BusinessScreenReason = nil, nil
	prohibited, doubtful := map[string]bool{}, map[string]bool{}
	for _, mr := range ms {
		if mr.Business.Pass != nil {
			r.BusinessScreenPass = boolp(*mr.Business.Pass && (r.BusinessScreenPass == nil || *r.BusinessScreenPass))
		}
		for _, a := range mr.Business.Prohibited {
			prohibited[a.Category] = true
		}
		for _, a := range mr.Business.Doubtful {
			doubtful[a.Category] = true
		}
	}
	var reasons []string
	for _, a := range r.BusinessActivities {
		what := activityName(a) + " (" + a.Reason + ")"
		switch {
		case prohibited[a.Category]:
			reasons = append(reasons, what)
		case doubtful[a.Category]:
			reasons = append(reasons, "doubtful: "+what)
		}
	}
	if len(reasons) > 0 {
		r.BusinessScreenReason = strp(strings.Join(reasons, "; "))
	} else if r.BusinessClassification.Basis == BasisNone {
		r.BusinessScreenReason = strp(UnknownClassificationNote)
	} else if r.BusinessScreenPass != nil && *r.BusinessScreenPass {
		r.BusinessScreenReason = strp(BusinessPassedReason(r.BusinessClassification))
	}
	// Financial screen: every ratio with data of every methodology considered passes.
	r.FinancialScreenPass = nil
	for _, mr := range ms {
		for _, rr := range mr.Ratios {
			if rr.Pass != nil {
				r.FinancialScreenPass = boolp(*rr.Pass && (r.FinancialScreenPass == nil || *r.FinancialScreenPass))
			}
		}
	}
	r.AbstainReason = ""
	if r.ComplianceStatus == "INSUFFICIENT_DATA" {
		r.AbstainReason = r.abstainReason(r.considered())
	}
}

// SetOverall makes status (upper case) the overall verdict, the verdict of the methodology named when
// one is (its display name), and derives the fields that follow from it.
func (r *Result) SetOverall(status, methodology string) {
	r.Methodology = methodology
	r.ComplianceStatus, r.OverallStatus = status, status
	if methodology != "" {
		r.SetYesNo(methodology)
	}
	r.DeriveOverall()
}

// abstainReason says why there is no overall verdict: how many methodologies reached one against the
// number needed, each methodology without one and why, and the inputs missing.
func (r *Result) abstainReason(ms []MethodologyResult) string {
	byReason := map[string][]string{}
	var order []string
	withData := 0
	for _, mr := range ms {
		if mr.Verdict != InsufficientData {
			withData++
			continue
		}
		if _, ok := byReason[mr.Reason]; !ok {
			order = append(order, mr.Reason)
		}
		byReason[mr.Reason] = append(byReason[mr.Reason], mr.Methodology)
	}
	var groups []string
	for _, reason := range order {
		groups = append(groups, joinWords(byReason[reason])+" ("+reason+")")
	}
	var s string
	if len(ms) == 1 {
		s = fmt.Sprintf("No verdict under %s", strings.Join(groups, "; "))
	} else {
		need := min(3, len(ms))
		s = fmt.Sprintf("%d of %d methodologies reached a verdict and %d are needed; no verdict under %s", withData, len(ms), need, strings.Join(groups, "; "))
	}
	if len(groups) == 0 {
		s = "No methodology could be evaluated"
	}
	if len(r.DataQuality.MissingFields) > 0 {
		s += ". Missing inputs: " + strings.Join(r.DataQuality.MissingFields, ", ")
	}
	return s + "."
}
