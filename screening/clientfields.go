package screening

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// The fields of a screening result that the existing client ecosystem (SDKs, bots, agents) reads
// beside the ones the interface spec names: lower-case verdicts, the business and financial screens
// as booleans, flat informational ratios, by_methodology keys without punctuation, and the
// purification rate in percent.

// MethodologyKey is a methodology's key in by_methodology: its display name with everything but
// letters and digits removed, in upper case (AAOIFI, DJIM, FTSE, MSCI, S&P -> SP, SC Malaysia ->
// SCMALAYSIA). The methodologies map keeps the display names.
func MethodologyKey(name string) string {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

// verdictBool is a verdict as is_compliant: questionable (a doubtful activity not cleared) counts as not
// compliant, no verdict as null.
func verdictBool(verdict string) *bool {
	switch verdict {
	case Compliant:
		return boolp(true)
	case NonCompliant, Questionable:
		return boolp(false)
	}
	return nil
}

// setPurificationFraction sets the purification fields from the rate as a fraction: purification_rate
// and purification_rate_pct in percent (4 decimals), purification_rate_fraction as given.
func (r *Result) setPurificationFraction(f *shariah.Number) {
	r.PurificationFraction, r.PurificationRate, r.PurificationRatePct = f, nil, nil
	if f != nil {
		r.PurificationRate = PercentOf(f)
		r.PurificationRatePct = PercentOf(f)
	}
}

// PercentOf is a fraction in percent, 4 decimals (nil stays nil).
func PercentOf(f *shariah.Number) *shariah.Number {
	if f == nil {
		return nil
	}
	return num(f.Decimal.Mul(d100).Round(4))
}

// insufficientOf lists the keys of the methodologies without a verdict, sorted.
func insufficientOf(by map[string]MethodologyResult) []string {
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

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// marketFigures sets sector, industry, the latest market cap (month-end close x shares outstanding,
// the market_cap_latest denominator) and the flat informational ratios. It runs after the screening
// and records nothing in data_quality.
func (c *screenContext) marketFigures(r *Result) {
	a := c.in.Asset
	r.Sector, r.Industry, r.MarketCapCurrency = strOrNil(a.Sector), strOrNil(a.Industry), strOrNil(a.Currency)
	ratio := func(n, d decimal.Decimal) *shariah.Number {
		if !d.IsPositive() {
			return nil
		}
		return num(n.DivRound(d, 8))
	}
	fact := func(f shariah.Field) (decimal.Decimal, bool) {
		if c.period == nil {
			return decimal.Zero, false
		}
		v, ok := c.period.Facts[f]
		return v.Value.Decimal, ok
	}
	if mcap, _, ok := c.mcap(1, c.in.Now, c.shares); ok && mcap.IsPositive() && c.capSuspect == "" {
		r.MarketCap = num(mcap.Round(2))
		if c.currencyMismatch() == "" { // a ratio of two currencies would mean nothing
			debt, hasDebt := fact(shariah.TotalDebt)
			cash, hasCash := fact(shariah.CashAndSecurities)
			recv, hasRecv := fact(shariah.Receivables)
			if hasDebt {
				r.DebtToMarketCap = ratio(debt, mcap)
			}
			if hasCash {
				r.CashToMarketCap = ratio(cash, mcap)
			}
			if hasCash && hasRecv {
				r.LiquidityToMarketCap = ratio(cash.Add(recv), mcap)
			}
		}
	}
	if recv, ok := fact(shariah.Receivables); ok {
		if assets, ok := fact(shariah.TotalAssets); ok {
			r.ReceivablesToAssets = ratio(recv, assets)
		}
	}
	// The revenue breakdown is of the fiscal year interest income was carried from, when it was.
	if rb := r.RevenueBreakdown; rb.InterestIncome != nil && rb.TotalRevenue != nil {
		r.InterestToRevenue = ratio(rb.InterestIncome.Decimal, rb.TotalRevenue.Decimal)
	}
}

// setYesNo makes the named methodology (display name) the one the yes/no follows: is_compliant is its
// verdict as a yes/no (verdictBool), null when the result has no such entry. The one rule behind
// is_compliant wherever a result is served (REST, bulk rows and exports, portfolio, MCP).
func (r *Result) setYesNo(methodology string) {
	r.VerdictMethodology, r.IsCompliant = methodology, nil
	if mr, ok := r.ByMethodology[MethodologyKey(methodology)]; ok {
		r.IsCompliant = verdictBool(mr.Verdict)
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

// legacyPrimary is the primary methodology id of every ruleset with several methodologies when
// verdict_methodology was introduced (spec's AAOIFI): what a result stored before it is read with.
const legacyPrimary = "aaoifi"

// legacyVerdictMethodology is the methodology a result stored before verdict_methodology existed
// follows: the one it is seen through, its only one, or its ruleset's primary then (legacyPrimary).
func (r *Result) legacyVerdictMethodology() string {
	if r.Methodology != "" {
		return r.Methodology
	}
	for _, mr := range r.ByMethodology {
		if len(r.ByMethodology) == 1 || mr.ID == legacyPrimary {
			return mr.Methodology
		}
	}
	return ""
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

// deriveOverall sets the fields that follow from the overall verdict and the methodologies behind
// it: shariah_compliance_status and abstain_reason from compliance_status; business_screen_pass and
// _reason, and financial_screen_pass, from the methodology the yes/no follows (yesNoBasis), so that a
// yes/no client's reason is that methodology's. Screen and View call it; it never changes by_methodology.
func (r *Result) deriveOverall() {
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
		r.setYesNo(methodology)
	}
	r.deriveOverall()
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

// Normalize brings a result stored before the client-ecosystem fields existed up to date: by_methodology
// re-keyed by MethodologyKey with each entry's is_compliant, status and disposition, the purification
// rate from a fraction to percent, data_quality.methodologies_insufficient and the fields derived
// from the overall verdict. Sector, industry, market cap and the flat ratios need the inputs: they
// stay null until the result is screened again. A current result is left as it is.
func (r *Result) Normalize() {
	if r.ByMethodology != nil {
		by := make(map[string]MethodologyResult, len(r.ByMethodology))
		for k, mr := range r.ByMethodology {
			if mr.Methodology != "" {
				k = MethodologyKey(mr.Methodology)
			}
			if mr.Status == "" {
				mr.IsCompliant, mr.Status, mr.Disposition = verdictBool(mr.Verdict), mr.Verdict, mr.Verdict
			}
			by[k] = mr
		}
		r.ByMethodology = by
	}
	if r.PurificationFraction == nil && r.PurificationRate != nil {
		// Stored as a fraction (purification_rate_fraction did not exist yet).
		r.setPurificationFraction(r.PurificationRate)
	}
	if r.DataQuality.MethodologiesInsufficient == nil {
		r.DataQuality.MethodologiesInsufficient = insufficientOf(r.ByMethodology)
	}
	if r.DataQuality.Bounded == nil {
		r.DataQuality.Bounded = []BoundedInput{} // stored before bounds existed: none
	}
	if r.VerdictMethodology == "" {
		// Stored when is_compliant was true only for COMPLIANT: it follows one methodology now.
		if m := r.legacyVerdictMethodology(); m != "" {
			r.setYesNo(m)
			r.deriveOverall()
		}
	}
	if r.ShariahStatus == "" {
		r.deriveOverall()
	}
}
