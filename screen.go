package shariah

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Per-methodology verdicts (decisions.md section 1).
const (
	Compliant        = "compliant"
	NonCompliant     = "non_compliant"
	Questionable     = "questionable"
	InsufficientData = "insufficient_data"
)

// ScreenInputs is everything one screening looks at. The engine does no I/O: the caller reads these.
type ScreenInputs struct {
	Asset        Asset
	Fundamentals []Fundamentals // every period on file, oldest first
	Monthly      []Bar          // month-end closes, oldest first
	PriceSource  string         // provenance of the closes (history, live, illustrative)
	Now          time.Time      // screened_at
}

// RatioResult is one ratio of one methodology.
type RatioResult struct {
	ID            string   `json:"id"`
	Label         string   `json:"label"`
	Numerator     *Number  `json:"numerator"`   // null when an input is missing
	Denominator   *Number  `json:"denominator"` // null when an input is missing
	DenominatorOf string   `json:"denominator_basis"`
	Value         *Number  `json:"value"`     // fraction, 8 decimals; null when unknown
	ValuePct      *string  `json:"value_pct"` // percent, 4 decimals
	ThresholdBP   Number   `json:"threshold_bp"`
	ThresholdPct  string   `json:"threshold_pct"`
	Comparator    string   `json:"comparator"` // lt (strict) or le
	Pass          *bool    `json:"pass"`       // null when unknown
	MarginPct     *string  `json:"margin_pct"` // threshold minus value, percentage points (negative: failing)
	Missing       []string `json:"missing,omitempty"`
	Note          string   `json:"note,omitempty"`
}

// BusinessScreen is a methodology's business-activity screen.
type BusinessScreen struct {
	Pass       *bool      `json:"pass"` // null when the company has no classification to screen
	Prohibited []Activity `json:"prohibited"`
	Doubtful   []Activity `json:"doubtful"`
}

// MethodologyResult is one entry of by_methodology.
type MethodologyResult struct {
	Methodology string         `json:"methodology"` // display name: AAOIFI, DJIM, FTSE, MSCI, S&P
	ID          string         `json:"id"`
	Verdict     string         `json:"verdict"`
	Verified    bool           `json:"verified"` // always true (spec rule 3): the verdict was computed here
	Ruleset     string         `json:"ruleset"`
	Edition     string         `json:"edition"`
	Business    BusinessScreen `json:"business_screen"`
	Ratios      []RatioResult  `json:"ratios"`
	Buffer      *BufferState   `json:"buffer,omitempty"`
	Reason      string         `json:"reason"` // what decided the verdict
	AsOf        string         `json:"as_of"`
	Source      []string       `json:"sources"`
}

// BufferState reports DJIM's buffer evaluation over the periods on file.
type BufferState struct {
	Ratio            string `json:"ratio"`
	UpperPct         string `json:"upper_pct"`
	PeriodsEvaluated int    `json:"periods_evaluated"`
	BreachesInBand   int    `json:"consecutive_breaches_in_band"`
	PassingPeriods   int    `json:"consecutive_passing_periods"`
	Held             bool   `json:"status_held_by_buffer"` // the raw ratio fails but the buffer keeps the status
}

// RevenueBreakdown splits the period's revenue.
type RevenueBreakdown struct {
	TotalRevenue       *Number `json:"total_revenue"`
	InterestIncome     *Number `json:"interest_income"`
	ImpureRevenue      *Number `json:"impure_revenue"` // from prohibited activities, interest excluded
	PermissibleRevenue *Number `json:"permissible_revenue"`
	ImpureRatio        *Number `json:"impure_ratio"` // (interest + impure) / total, fraction
	Period             string  `json:"period"`
	Currency           string  `json:"currency"`
}

// DataQuality says where the inputs came from and what is missing.
type DataQuality struct {
	Sources       []string `json:"sources"` // filing, live, illustrative (fundamentals and prices)
	MissingFields []string `json:"missing_fields"`
	AsOf          string   `json:"as_of"` // period end of the fundamentals used
	Period        string   `json:"period"`
	PricesAsOf    string   `json:"prices_as_of,omitempty"`
	SourceRefs    []string `json:"source_refs"` // e.g. the accession numbers of the filings used
	Illustrative  bool     `json:"illustrative"`
	Assumptions   []string `json:"assumptions"`
	Notes         []string `json:"notes"`
}

// RulesetRef names the ruleset a result used.
type RulesetRef struct {
	Name         string `json:"name"`
	Title        string `json:"title"`
	Edition      string `json:"edition"`
	ReviewStatus string `json:"review_status"`
	Source       string `json:"source"`
}

// Result is a screening result (interface-spec.md, Screening result; decisions.md section 1).
type Result struct {
	Symbol                string                       `json:"symbol"`
	Name                  string                       `json:"name"`
	IsCompliant           *bool                        `json:"is_compliant"`
	ComplianceStatus      string                       `json:"compliance_status"`
	OverallStatus         string                       `json:"overall_status"`
	Methodology           string                       `json:"methodology,omitempty"` // when the overall verdict is one methodology's
	Methodologies         map[string]string            `json:"methodologies"`
	ByMethodology         map[string]MethodologyResult `json:"by_methodology"`
	AAOIFICompliant       *bool                        `json:"aaoifi_compliant"`
	DJIMCompliant         *bool                        `json:"djim_compliant"`
	FTSECompliant         *bool                        `json:"ftse_compliant"`
	MSCICompliant         *bool                        `json:"msci_compliant"`
	SPCompliant           *bool                        `json:"sp_compliant"`
	BusinessActivities    []Activity                   `json:"business_activities"`
	RevenueBreakdown      RevenueBreakdown             `json:"revenue_breakdown"`
	FinancialRatios       map[string]*Number           `json:"financial_ratios"`
	PurificationRate      *Number                      `json:"purification_rate"`     // fraction in [0, 1]
	PurificationRatePct   *Number                      `json:"purification_rate_pct"` // the same in percent
	PurificationMethod    string                       `json:"purification_method"`
	ComplianceExplanation string                       `json:"compliance_explanation"`
	Disclaimers           []Disclaimer                 `json:"disclaimers"`
	ScreenedAt            time.Time                    `json:"screened_at"`
	Ruleset               RulesetRef                   `json:"ruleset"`
	DataQuality           DataQuality                  `json:"data_quality"`
	RunID                 string                       `json:"run_id,omitempty"` // the bulk run that wrote it
}

var (
	d10000 = decimal.NewFromInt(10000)
	d100   = decimal.NewFromInt(100)
)

func num(d decimal.Decimal) *Number { n := NewNumber(d); return &n }
func strp(s string) *string         { return &s }
func boolp(b bool) *bool            { return &b }

// Screen screens one company under every methodology of a ruleset. It is deterministic: the same inputs
// give the same result (ScreenedAt is inputs.Now). methodology, when set, makes the overall verdict
// that methodology's.
func Screen(in ScreenInputs, rs *Ruleset, methodology string) Result {
	r := Result{Symbol: in.Asset.Symbol, Name: in.Asset.Name, ScreenedAt: in.Now.UTC(),
		Methodologies: map[string]string{}, ByMethodology: map[string]MethodologyResult{},
		FinancialRatios: map[string]*Number{}, Disclaimers: []Disclaimer{},
		PurificationMethod: "dividend x impure-income ratio",
		Ruleset:            RulesetRef{Name: rs.Name, Title: rs.Title, Edition: rs.EditionDate, ReviewStatus: rs.ReviewStatus, Source: rs.Source},
		DataQuality:        DataQuality{Sources: []string{}, MissingFields: []string{}, SourceRefs: []string{}, Assumptions: []string{}, Notes: []string{}}}
	ctx := newScreenContext(in)
	r.DataQuality = ctx.dq
	acts, known := ClassifyActivities(in.Asset)
	if acts == nil {
		acts = []Activity{}
	}
	ctx.clean = known && len(acts) == 0
	r.BusinessActivities = acts
	for _, m := range rs.Methodologies {
		mr := ctx.screenMethodology(rs, m, acts, known)
		r.ByMethodology[m.Name] = mr
		r.Methodologies[m.Name] = mr.Verdict
		var b *bool
		switch mr.Verdict {
		case Compliant:
			b = boolp(true)
		case NonCompliant, Questionable:
			b = boolp(false)
		}
		switch m.ID {
		case "aaoifi":
			r.AAOIFICompliant = b
		case "djim":
			r.DJIMCompliant = b
		case "ftse":
			r.FTSECompliant = b
		case "msci":
			r.MSCICompliant = b
		case "sp":
			r.SPCompliant = b
		}
		for _, rr := range mr.Ratios {
			if rr.Value != nil {
				r.FinancialRatios[ratioKey(rr)] = rr.Value
			}
		}
	}
	ctx.finishDQ()
	r.DataQuality = ctx.dq // collected while screening
	r.RevenueBreakdown, r.PurificationRate = ctx.revenue()
	if r.PurificationRate != nil {
		r.PurificationRatePct = num(r.PurificationRate.Decimal.Mul(d100).Round(4))
	}
	r.ComplianceStatus = overall(rs, r.ByMethodology, methodology)
	r.OverallStatus = r.ComplianceStatus
	if methodology != "" {
		if m, ok := rs.Methodology(methodology); ok {
			r.Methodology = m.Name
		}
	}
	switch r.ComplianceStatus {
	case "COMPLIANT":
		r.IsCompliant = boolp(true)
	case "NON_COMPLIANT", "QUESTIONABLE":
		r.IsCompliant = boolp(false)
	}
	r.ComplianceExplanation = explain(rs, r, methodology)
	return r
}

// ratioKey names a ratio in financial_ratios: debt_to_total_assets, impure_revenue_to_total_revenue.
func ratioKey(rr RatioResult) string { return rr.ID + "_to_" + rr.DenominatorOf }

// screenContext holds what every methodology of one screening shares.
type screenContext struct {
	in      ScreenInputs
	clean   bool          // the classification shows nothing prohibited or doubtful
	period  *Fundamentals // the period screened
	shares  *Fact
	dq      DataQuality
	missing map[string]bool
	refs    map[string]bool
	sources map[string]bool
}

func newScreenContext(in ScreenInputs) *screenContext {
	c := &screenContext{in: in, missing: map[string]bool{}, refs: map[string]bool{}, sources: map[string]bool{},
		dq: DataQuality{Sources: []string{}, MissingFields: []string{}, SourceRefs: []string{}, Assumptions: []string{}, Notes: []string{}}}
	if p := latestPeriod(in.Fundamentals); p != nil {
		c.period = p
		c.dq.AsOf, c.dq.Period = p.PeriodEnd, p.Period
	} else {
		c.dq.Notes = append(c.dq.Notes, "no fundamentals on file")
	}
	// Shares outstanding: the screened period's, else the most recent period that reports them.
	for i := len(in.Fundamentals) - 1; i >= 0; i-- {
		if f, ok := in.Fundamentals[i].Facts[SharesOutstanding]; ok {
			f := f
			c.shares = &f
			break
		}
	}
	if n := len(in.Monthly); n > 0 {
		c.dq.PricesAsOf = in.Monthly[n-1].Date.Format("2006-01-02")
	}
	return c
}

// latestPeriod is the period with the latest end; at the same end the fiscal year wins (a year's
// revenue describes the business better than one quarter's).
func latestPeriod(fs []Fundamentals) *Fundamentals {
	var best *Fundamentals
	for i := range fs {
		f := &fs[i]
		if best == nil || f.PeriodEnd > best.PeriodEnd || (f.PeriodEnd == best.PeriodEnd && f.Period == "FY") {
			best = f
		}
	}
	return best
}

func (c *screenContext) use(f Fact) {
	c.sources[f.Source] = true
	if f.Ref != "" {
		c.refs[f.Ref] = true
	}
}

func (c *screenContext) miss(what string) { c.missing[what] = true }

func (c *screenContext) assume(s string) {
	for _, a := range c.dq.Assumptions {
		if a == s {
			return
		}
	}
	c.dq.Assumptions = append(c.dq.Assumptions, s)
}

func (c *screenContext) note(s string) {
	for _, a := range c.dq.Notes {
		if a == s {
			return
		}
	}
	c.dq.Notes = append(c.dq.Notes, s)
}

func (c *screenContext) finishDQ() {
	c.dq.Sources = sortedSet(c.sources)
	c.dq.MissingFields = sortedSet(c.missing)
	c.dq.SourceRefs = sortedSet(c.refs)
	c.dq.Illustrative = c.sources[SourceIllustrative]
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fact returns a field of the screened period.
func (c *screenContext) fact(f Field) (Fact, bool) {
	if c.period == nil {
		return Fact{}, false
	}
	v, ok := c.period.Facts[f]
	return v, ok
}

// mcap returns the market-cap denominator: the average of the last n month-end closes (up to end)
// times shares outstanding, or (n = 1) the latest month-end market cap.
func (c *screenContext) mcap(n int, end time.Time, shares *Fact) (decimal.Decimal, string, bool) {
	if shares == nil {
		return decimal.Zero, "shares_outstanding", false
	}
	var closes []Bar
	for _, b := range c.in.Monthly {
		if !b.Date.After(end) {
			closes = append(closes, b)
		}
	}
	if len(closes) < n {
		return decimal.Zero, fmt.Sprintf("monthly_closes (%d of %d months)", len(closes), n), false
	}
	closes = closes[len(closes)-n:]
	var sum int64
	for _, b := range closes {
		sum += int64(b.Close)
	}
	avg := decimal.New(sum, -6).Div(decimal.NewFromInt(int64(n)))
	return avg.Mul(shares.Value.Decimal), "", true
}

// denominator returns a ratio's denominator for the screened period.
func (c *screenContext) denominator(basis string) (decimal.Decimal, []string, bool) {
	switch basis {
	case DenTotalAssets, DenTotalRevenue:
		f, ok := c.fact(Field(basis))
		if !ok {
			return decimal.Zero, []string{basis}, false
		}
		c.use(f)
		return f.Value.Decimal, nil, true
	}
	n := map[string]int{DenMcapAvg24: 24, DenMcapAvg36: 36, DenMcapLatest: 1}[basis]
	if cur := c.currencyMismatch(); cur != "" {
		c.note(cur)
		return decimal.Zero, []string{"market_cap (" + cur + ")"}, false
	}
	v, missing, ok := c.mcap(n, c.in.Now, c.shares)
	if !ok {
		return decimal.Zero, []string{missing}, false
	}
	c.use(*c.shares)
	c.sources[c.in.PriceSource] = true
	return v, nil, true
}

// currencyMismatch describes a reporting currency that differs from the trading currency (market-cap
// ratios would mix currencies), or "".
func (c *screenContext) currencyMismatch() string {
	if c.period == nil || c.period.Currency == "" || c.in.Asset.Currency == "" || strings.EqualFold(c.period.Currency, c.in.Asset.Currency) {
		return ""
	}
	return fmt.Sprintf("reported in %s but traded in %s", c.period.Currency, c.in.Asset.Currency)
}

// numerator sums a ratio's numerator fields. screened says the methodology found nothing prohibited in
// the company's classification; doubtful, that it found a doubtful activity.
func (c *screenContext) numerator(fields []Field, screened, doubtful bool) (decimal.Decimal, []string, bool) {
	sum := decimal.Zero
	var missing []string
	for _, f := range fields {
		v, ok := c.fact(f)
		if !ok {
			if f == ImpureRevenue && screened {
				// Filings do not split revenue by activity. With nothing prohibited in the classification,
				// revenue from prohibited activities is taken as zero; where an activity is doubtful the
				// ratio stands on interest income alone and the verdict is at best questionable.
				if doubtful {
					c.assume("impure_revenue unknown for a doubtful activity: the impure-revenue ratio counts interest income only, and the verdict is at best questionable")
				} else {
					c.assume("impure_revenue taken as 0: nothing prohibited or doubtful in the company's classification, and the source does not break revenue down by activity")
				}
				continue
			}
			missing = append(missing, string(f))
			continue
		}
		c.use(v)
		sum = sum.Add(v.Value.Decimal)
	}
	return sum, missing, len(missing) == 0
}

func labelOf(r RatioRule) string {
	if r.Label != "" {
		return r.Label
	}
	parts := make([]string, len(r.Numerator))
	for i, f := range r.Numerator {
		parts[i] = strings.ReplaceAll(string(f), "_", " ")
	}
	return strings.Join(parts, " + ") + " / " + strings.ReplaceAll(r.Denominator, "_", " ")
}

// evalRatio computes one ratio and compares it with its threshold in basis points, in exact decimal
// arithmetic: num x 10000 < threshold_bp x den (strict), or <= for "does not exceed".
func evalRatio(rule RatioRule, cmp string, n, d decimal.Decimal) RatioResult {
	rr := RatioResult{ID: rule.ID, Label: labelOf(rule), DenominatorOf: rule.Denominator, ThresholdBP: NewNumber(rule.ThresholdBP),
		ThresholdPct: rule.ThresholdBP.Div(d100).StringFixed(2), Comparator: cmp, Numerator: num(n), Denominator: num(d)}
	if rule.ThresholdBP.Mod(decimal.NewFromInt(1)).IsPositive() {
		rr.ThresholdPct = rule.ThresholdBP.Div(d100).StringFixed(3)
	}
	if !d.IsPositive() {
		rr.Note = "denominator is zero or negative"
		return rr
	}
	lhs, rhs := n.Mul(d10000), rule.ThresholdBP.Mul(d)
	pass := lhs.LessThan(rhs)
	if cmp == CmpLE {
		pass = lhs.LessThanOrEqual(rhs)
	}
	rr.Pass = boolp(pass)
	rr.Value = num(n.DivRound(d, 8))
	pct := n.Mul(d100).DivRound(d, 4)
	rr.ValuePct = strp(pct.StringFixed(4))
	rr.MarginPct = strp(rule.ThresholdBP.Div(d100).Sub(pct).StringFixed(4))
	return rr
}

func (c *screenContext) screenMethodology(rs *Ruleset, m MethodologyRule, acts []Activity, known bool) MethodologyResult {
	mr := MethodologyResult{Methodology: m.Name, ID: m.ID, Verified: true, Ruleset: rs.Name, Edition: rs.EditionDate,
		Business: BusinessScreen{Prohibited: []Activity{}, Doubtful: []Activity{}}, Ratios: []RatioResult{}, AsOf: c.dq.AsOf}
	listed := map[string]bool{}
	for _, cat := range m.Business {
		listed[cat] = true
	}
	for _, a := range acts {
		if !listed[a.Category] {
			continue
		}
		if a.Primary {
			mr.Business.Prohibited = append(mr.Business.Prohibited, a)
		} else {
			mr.Business.Doubtful = append(mr.Business.Doubtful, a)
		}
	}
	if known {
		mr.Business.Pass = boolp(len(mr.Business.Prohibited) == 0)
	}
	var failed, unknown []string
	for _, rule := range m.Ratios {
		cmp := rs.Comparator
		if rule.Comparator != "" {
			cmp = rule.Comparator
		}
		n, nMiss, nOK := c.numerator(rule.Numerator, known && len(mr.Business.Prohibited) == 0, len(mr.Business.Doubtful) > 0)
		d, dMiss, dOK := c.denominator(rule.Denominator)
		var rr RatioResult
		if nOK && dOK {
			rr = evalRatio(rule, cmp, n, d)
		} else {
			rr = RatioResult{ID: rule.ID, Label: labelOf(rule), DenominatorOf: rule.Denominator, ThresholdBP: NewNumber(rule.ThresholdBP),
				ThresholdPct: rule.ThresholdBP.Div(d100).StringFixed(2), Comparator: cmp, Missing: append(nMiss, dMiss...)}
			if nOK {
				rr.Numerator = num(n)
			}
			if dOK {
				rr.Denominator = num(d)
			}
			for _, f := range rr.Missing {
				c.miss(f)
			}
		}
		if m.Buffer != nil && m.Buffer.Ratio == rule.ID && rr.Pass != nil {
			mr.Buffer = c.applyBuffer(m, rule, cmp, &rr)
		}
		switch {
		case rr.Pass == nil:
			unknown = append(unknown, rule.ID)
		case !*rr.Pass:
			failed = append(failed, rule.ID)
		}
		mr.Ratios = append(mr.Ratios, rr)
	}
	mr.Source = sortedSet(c.sources)
	switch {
	case len(mr.Business.Prohibited) > 0:
		mr.Verdict = NonCompliant
		mr.Reason = "business activity: " + activityNames(mr.Business.Prohibited)
	case len(failed) > 0:
		mr.Verdict = NonCompliant
		mr.Reason = joinWords(ratioNames(failed))
	case !known:
		mr.Verdict = InsufficientData
		mr.Reason = "no business classification (sector, industry or SIC) to screen"
		c.miss("industry")
	case len(unknown) > 0:
		mr.Verdict = InsufficientData
		mr.Reason = "missing " + joinWords(missingOf(mr.Ratios))
		if rs.MissingIsNonCompliant {
			mr.Verdict = NonCompliant
			mr.Reason = "missing data counts as failing under this ruleset: " + joinWords(missingOf(mr.Ratios))
		}
	case len(mr.Business.Doubtful) > 0:
		mr.Verdict = Questionable
		mr.Reason = "doubtful business activity: " + activityNames(mr.Business.Doubtful)
	default:
		mr.Verdict = Compliant
		mr.Reason = "business activity and every ratio pass"
	}
	return mr
}

// applyBuffer evaluates the buffered ratio over every period on file (oldest first), each against the
// market cap as of its period end, and replaces the current pass/fail with the buffered status.
func (c *screenContext) applyBuffer(m MethodologyRule, rule RatioRule, cmp string, cur *RatioResult) *BufferState {
	b := m.Buffer
	st := &BufferState{Ratio: rule.ID, UpperPct: b.UpperBP.Div(d100).StringFixed(2)}
	type point struct{ pass, inBand bool }
	var pts []point
	seen := map[string]bool{}
	for i := range c.in.Fundamentals {
		f := &c.in.Fundamentals[i]
		if seen[f.PeriodEnd] {
			continue
		}
		end, err := time.Parse("2006-01-02", f.PeriodEnd)
		if err != nil {
			continue
		}
		var sum decimal.Decimal
		ok := true
		for _, fld := range rule.Numerator {
			v, has := f.Facts[fld]
			if !has {
				ok = false
				break
			}
			sum = sum.Add(v.Value.Decimal)
		}
		shares := c.shares
		if s, has := f.Facts[SharesOutstanding]; has {
			shares = &s
		}
		n := map[string]int{DenMcapAvg24: 24, DenMcapAvg36: 36, DenMcapLatest: 1}[rule.Denominator]
		var den decimal.Decimal
		if n > 0 {
			den, _, ok = func() (decimal.Decimal, string, bool) {
				if !ok {
					return decimal.Zero, "", false
				}
				return c.mcap(n, end, shares)
			}()
		} else if v, has := f.Facts[Field(rule.Denominator)]; has && ok {
			den = v.Value.Decimal
		} else {
			ok = false
		}
		if !ok || !den.IsPositive() {
			continue
		}
		seen[f.PeriodEnd] = true
		r := evalRatio(rule, cmp, sum, den)
		inBand := !*r.Pass && sum.Mul(d10000).LessThan(b.UpperBP.Mul(den))
		pts = append(pts, point{pass: *r.Pass, inBand: inBand})
	}
	// The current evaluation is the last point (the latest period with the current prices).
	rawPass := *cur.Pass
	inBand := !rawPass && cur.Value != nil && cur.Numerator.Decimal.Mul(d10000).LessThan(b.UpperBP.Mul(cur.Denominator.Decimal))
	if len(pts) > 0 {
		pts = pts[:len(pts)-1]
	}
	pts = append(pts, point{pass: rawPass, inBand: inBand})
	compliant := pts[0].pass
	breaches, passes := 0, 0
	for _, p := range pts[1:] {
		if compliant {
			switch {
			case p.pass:
				breaches = 0
			case p.inBand:
				breaches++
				if breaches >= b.Periods {
					compliant, breaches = false, 0
				}
			default:
				compliant, breaches = false, 0
			}
		} else {
			if p.pass {
				passes++
				if passes >= b.Periods {
					compliant, passes = true, 0
				}
			} else {
				passes = 0
			}
		}
	}
	st.PeriodsEvaluated, st.BreachesInBand, st.PassingPeriods = len(pts), breaches, passes
	st.Held = compliant != rawPass
	if st.Held {
		cur.Pass = boolp(compliant)
		if compliant {
			cur.Note = fmt.Sprintf("above the threshold but within the %s%% buffer for %d of %d periods: status kept", st.UpperPct, breaches, b.Periods)
		} else {
			cur.Note = fmt.Sprintf("below the threshold for %d of the %d periods re-entry needs: status kept", passes, b.Periods)
		}
	}
	return st
}

// revenue builds the revenue breakdown and the purification rate of the screened period.
func (c *screenContext) revenue() (RevenueBreakdown, *Number) {
	rb := RevenueBreakdown{}
	if c.period == nil {
		return rb, nil
	}
	rb.Period, rb.Currency = c.period.PeriodEnd+" "+c.period.Period, c.period.Currency
	get := func(f Field) *Number {
		if v, ok := c.period.Facts[f]; ok {
			return num(v.Value.Decimal)
		}
		return nil
	}
	rb.TotalRevenue, rb.InterestIncome, rb.ImpureRevenue = get(TotalRevenue), get(InterestIncome), get(ImpureRevenue)
	impure := rb.ImpureRevenue
	if impure == nil && c.clean {
		impure = num(decimal.Zero) // the same assumption as the impure-revenue ratio (see numerator)
	}
	if rb.TotalRevenue == nil || rb.InterestIncome == nil || impure == nil || !rb.TotalRevenue.IsPositive() {
		return rb, nil
	}
	bad := rb.InterestIncome.Decimal.Add(impure.Decimal)
	rb.PermissibleRevenue = num(rb.TotalRevenue.Decimal.Sub(bad))
	rate := bad.DivRound(rb.TotalRevenue.Decimal, 8)
	if rate.GreaterThan(decimal.NewFromInt(1)) {
		rate = decimal.NewFromInt(1)
	}
	rb.ImpureRatio = num(rate)
	return rb, num(rate.Round(6))
}

// overall applies decisions.md's overall rule: COMPLIANT when every methodology with data passes (and
// at least three, or all of a smaller ruleset, have data); NON_COMPLIANT when every one with data fails;
// QUESTIONABLE when they disagree; INSUFFICIENT_DATA otherwise. A chosen methodology decides alone.
func overall(rs *Ruleset, by map[string]MethodologyResult, methodology string) string {
	if methodology != "" {
		if m, ok := rs.Methodology(methodology); ok {
			return strings.ToUpper(by[m.Name].Verdict)
		}
	}
	var withData, pass, fail int
	for _, mr := range by {
		switch mr.Verdict {
		case Compliant:
			withData++
			pass++
		case NonCompliant:
			withData++
			fail++
		case Questionable:
			withData++
		}
	}
	need := min(3, len(rs.Methodologies))
	switch {
	case withData < need:
		return "INSUFFICIENT_DATA"
	case pass == withData:
		return "COMPLIANT"
	case fail == withData:
		return "NON_COMPLIANT"
	default:
		return "QUESTIONABLE"
	}
}

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

func activityNames(as []Activity) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = strings.ReplaceAll(a.Category, "_", " ")
	}
	return joinWords(names)
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
		mr := r.ByMethodology[m.Name]
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
	return capitalize(lead+s) + "."
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
