// Package screening holds the Shariah screening of a company: rulesets (ruleset.go), the engine
// (screen.go, business.go, interest_bound.go, screening_periods.go), explanations and marks (explain.go,
// marks.go, verdict_sentence.go), the result, its derived verdict fields and its stored-body encoding
// (result.go, verdict.go), the screener with its result store contract (screener.go), the portfolio
// and stock comparison (portfolio.go, stock_compare.go, stock_record.go, report.go), staleness against
// later filings (staleness.go) and the statuses of a watchlist's symbols (watchlist_status.go). It
// imports the kernel, filings, the catalog and the market.
package screening

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
)

// Per-methodology verdicts.
const (
	Compliant        = "compliant"
	NonCompliant     = "non_compliant"
	Questionable     = "questionable"
	InsufficientData = "insufficient_data"
)

// ScreenInputs is everything one screening looks at. The engine does no I/O: the caller reads these.
type ScreenInputs struct {
	Asset        shariah.Asset
	Fundamentals []shariah.Fundamentals // every period on file, oldest first
	Monthly      []shariah.Bar          // month-end closes, oldest first
	PriceSource  string                 // provenance of the closes (history, live, illustrative)
	Now          time.Time              // screened_at
}

var (
	d10000 = decimal.NewFromInt(10000)
	d100   = decimal.NewFromInt(100)
)

func num(d decimal.Decimal) *shariah.Number { n := shariah.NewNumber(d); return &n }
func strp(s string) *string                 { return &s }
func boolp(b bool) *bool                    { return &b }

// Screen screens one company under every methodology of a ruleset. It is deterministic: the same inputs
// give the same result (ScreenedAt is inputs.Now). methodology, when set, makes the overall verdict
// that methodology's.
func Screen(in ScreenInputs, rs *Ruleset, methodology string) Result {
	r := Result{Symbol: in.Asset.Symbol, Name: in.Asset.Name, ScreenedAt: in.Now.UTC(),
		Methodologies: map[string]string{}, ByMethodology: map[string]MethodologyResult{},
		FinancialRatios: map[string]*shariah.Number{}, Disclaimers: []shariah.Disclaimer{},
		PurificationMethod: "dividend x impure-income ratio",
		Ruleset:            RulesetRef{Name: rs.Name, Title: rs.Title, Edition: rs.EditionDate, ReviewStatus: rs.ReviewStatus, Source: rs.Source},
		DataQuality:        DataQuality{Sources: []string{}, MissingFields: []string{}, SourceRefs: []string{}, Assumptions: []string{}, Notes: []string{}, CarriedForward: []CarriedInput{}, Bounded: []BoundedInput{}}}
	ctx := newScreenContext(in, rs)
	ctx.planInterestCarry(rs)
	r.DataQuality = ctx.dq
	cls := ClassificationOf(in.Asset)
	acts, known := cls.Activities(in.Asset.Name), cls.Known()
	if acts == nil {
		acts = []Activity{}
	}
	if !known {
		ctx.note(UnknownClassificationNote)
	}
	ctx.clean = known && len(acts) == 0
	r.BusinessActivities, r.BusinessClassification = acts, cls
	ctx.planInterestBound(rs, acts) // when nothing could be carried forward
	ctx.planReceivablesBound(rs)
	for _, m := range rs.Methodologies {
		mr := ctx.screenMethodology(rs, m, acts, cls)
		b := VerdictBool(mr.Verdict)
		mr.IsCompliant, mr.Status, mr.Disposition = b, mr.Verdict, mr.Verdict
		r.ByMethodology[MethodologyKey(m.Name)] = mr
		r.Methodologies[m.Name] = mr.Verdict
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
	r.RevenueBreakdown, r.PurificationFraction = ctx.revenue()
	r.SetPurificationFraction(r.PurificationFraction)
	ctx.marketFigures(&r)
	r.DataQuality.MethodologiesInsufficient = InsufficientOf(r.ByMethodology)
	r.DataQuality.Marks = []Mark{} // not null: the ratios carry their marks (MarksOf reads them per methodology)
	marks := MarksOf(r)
	r.DataQuality.Marks = marks.List
	for key, mr := range r.ByMethodology {
		mr.Marks = marks.For(key).Kinds()
		if len(mr.Marks) == 0 {
			mr.Marks = nil
		}
		r.ByMethodology[key] = mr
	}
	r.ComplianceStatus = overall(rs, r.ByMethodology, methodology)
	r.OverallStatus = r.ComplianceStatus
	yesNo := rs.PrimaryMethodology().Name
	if methodology != "" {
		if m, ok := rs.Methodology(methodology); ok {
			r.Methodology, yesNo = m.Name, m.Name
		}
	}
	r.SetYesNo(yesNo)
	r.ComplianceExplanation = explain(rs, r, methodology)
	r.DeriveOverall()
	return r
}

// ratioKey names a ratio in financial_ratios: debt_to_total_assets, impure_revenue_to_total_revenue.
func ratioKey(rr RatioResult) string { return rr.ID + "_to_" + rr.DenominatorOf }

// missingCapHeldBack is how a ratio names a market cap held back as suspect among its missing inputs.
const missingCapHeldBack = "market_cap (held back as suspect)"

// screenContext holds what every methodology of one screening shares.
type screenContext struct {
	in           ScreenInputs
	clean        bool                            // the classification shows nothing prohibited or doubtful
	periods      ScreeningPeriods                // which period each input comes from (PeriodsFor)
	period       *shariah.Fundamentals           // the period screened
	carry        *shariah.Fundamentals           // the fiscal year interest income is carried from, when the period has none
	bounded      map[shariah.Field]*BoundedInput // bounds of inputs the period does not report (interest_bound.go)
	shares       *shariah.Fact
	dq           DataQuality
	missing      map[string]bool
	refs         map[string]bool
	sources      map[string]bool
	ratioSources map[string]bool // the sources of the ratio being computed (its marks)

	// capSuspect says why the market cap is held back (SuspectMarketCap), "" when it is not; capNote
	// how the shares behind it were put on the closes' basis (a split), "" when they needed nothing.
	capSuspect, capNote string
}

func newScreenContext(in ScreenInputs, rs *Ruleset) *screenContext {
	c := &screenContext{in: in, missing: map[string]bool{}, refs: map[string]bool{}, sources: map[string]bool{}, ratioSources: map[string]bool{}, bounded: map[shariah.Field]*BoundedInput{},
		dq: DataQuality{Sources: []string{}, MissingFields: []string{}, SourceRefs: []string{}, Assumptions: []string{}, Notes: []string{}, CarriedForward: []CarriedInput{}, Bounded: []BoundedInput{}}}
	c.periods = PeriodsFor(in.Fundamentals, rs)
	if p := c.periods.Screened; p != nil {
		c.period = p
		c.dq.AsOf, c.dq.Period, c.dq.PeriodLabel = p.PeriodEnd, p.Period, PeriodLabel(*p)
		c.dq.InputPeriods = c.periods.InputPeriods()
	} else {
		c.dq.Notes = append(c.dq.Notes, "no fundamentals on file")
	}
	// Shares outstanding: the screened period's, else the most recent period that reports them.
	if p := c.periods.Shares; p != nil {
		f := p.Facts[shariah.SharesOutstanding]
		c.shares = &f
	}
	if n := len(in.Monthly); n > 0 {
		c.dq.PricesAsOf = in.Monthly[n-1].Date.Format("2006-01-02")
	}
	c.capSuspect = market.SuspectMarketCap(in.Fundamentals, in.Monthly)
	if c.shares != nil && strings.Contains(c.shares.Note, "split") {
		c.capNote = "market cap: shares_outstanding " + c.shares.Note
	}
	return c
}

// planInterestCarry decides, once per screening, where interest income comes from when the screened
// period does not report it: an earlier fiscal year (recorded in data_quality.carried_forward), or
// nowhere, in which case a note names the input and why (the ratios then stay unknown).
func (c *screenContext) planInterestCarry(rs *Ruleset) {
	if c.period == nil || !c.periods.NeedsInterest {
		return
	}
	why := c.periods.carryWhy()
	if !rs.CarriesInterestForward() {
		c.note("interest_income missing (" + why + "); this ruleset does not carry interest income forward from an earlier fiscal year")
		return
	}
	f := c.periods.Carry
	if f == nil {
		c.note("interest_income missing (" + why + "); no fiscal year within the last two reported it")
		return
	}
	c.carry = f
	ii := f.Facts[shariah.InterestIncome]
	c.dq.CarriedForward = append(c.dq.CarriedForward, CarriedInput{Field: string(shariah.InterestIncome), Period: f.Period,
		PeriodEnd: f.PeriodEnd, FiscalYear: f.FiscalYear, SourceRef: ii.Ref, Form: ii.Form, Filed: ii.Filed, Tag: ii.Tag,
		Against: fmt.Sprintf("total_revenue of the same fiscal year (%s)", f.PeriodEnd), Reason: why})
	c.note(fmt.Sprintf("interest_income carried forward from fiscal year %d (period ending %s, %s %s): the screened period %s %s reports none; the ratios using it are computed on that year's revenue",
		f.FiscalYear, f.PeriodEnd, ii.Form, ii.Ref, c.period.PeriodEnd, c.period.Period))
}

func (c *screenContext) use(f shariah.Fact) {
	c.sources[f.Source] = true
	c.ratioSources[f.Source] = true
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
	c.dq.Illustrative = c.sources[shariah.SourceIllustrative]
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
func (c *screenContext) fact(f shariah.Field) (shariah.Fact, bool) {
	if c.period == nil {
		return shariah.Fact{}, false
	}
	v, ok := c.period.Facts[f]
	return v, ok
}

// mcap returns the market-cap denominator: the average of the last n month-end closes (up to end)
// times shares outstanding, or (n = 1) the latest month-end market cap.
func (c *screenContext) mcap(n int, end time.Time, shares *shariah.Fact) (decimal.Decimal, string, bool) {
	if shares == nil {
		return decimal.Zero, "shares_outstanding", false
	}
	var closes []shariah.Bar
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
		f, ok := c.fact(shariah.Field(basis))
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
	if c.capSuspect != "" {
		c.note(c.capSuspect)
		return decimal.Zero, []string{missingCapHeldBack}, false
	}
	v, missing, ok := c.mcap(n, c.in.Now, c.shares)
	if !ok {
		return decimal.Zero, []string{missing}, false
	}
	c.use(*c.shares)
	if c.capNote != "" {
		c.note(c.capNote)
	}
	if len(c.shares.Classes) > 0 && len(c.dq.ShareClasses) == 0 {
		c.dq.ShareClasses = c.shares.Classes
		c.note("market cap: shares_outstanding " + c.shares.Note)
	}
	c.sources[c.in.PriceSource] = true
	c.ratioSources[c.in.PriceSource] = true
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

// sumNotes names, for each numerator field of the screened period summed from several filed lines, the
// concepts and values summed ("total_debt = ShortTermBorrowings 3068000000 + ... = 45790000000"), so
// a reader can redo the sum from the filing.
func (c *screenContext) sumNotes(fields []shariah.Field) string {
	var out []string
	for _, f := range fields {
		if v, ok := c.fact(f); ok && v.SumText() != "" {
			out = append(out, string(f)+" = "+v.SumText())
		}
	}
	return strings.Join(out, "; ")
}

// numerator sums a ratio's numerator fields. screened says the methodology found nothing prohibited in
// the company's classification; doubtful, that it found a doubtful activity.
func (c *screenContext) numerator(fields []shariah.Field, screened, doubtful bool) (decimal.Decimal, []string, bool) {
	sum := decimal.Zero
	var missing []string
	for _, f := range fields {
		v, ok := c.fact(f)
		if !ok {
			if f == shariah.ImpureRevenue && screened {
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
	rr := RatioResult{ID: rule.ID, Label: labelOf(rule), DenominatorOf: rule.Denominator, ThresholdBP: shariah.NewNumber(rule.ThresholdBP),
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

func (c *screenContext) screenMethodology(rs *Ruleset, m MethodologyRule, acts []Activity, cls Classification) MethodologyResult {
	known := cls.Known()
	mr := MethodologyResult{Methodology: m.Name, ID: m.ID, Verified: true, Ruleset: rs.Name, Edition: rs.EditionDate,
		Business: businessScreen(m, acts, cls), Ratios: []RatioResult{}, AsOf: c.dq.AsOf}
	var failed, unknown []string
	for _, rule := range m.Ratios {
		rr, buf := c.screenRatio(rs, m, rule, mr.Business, known)
		if buf != nil {
			mr.Buffer = buf
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
		mr.Reason = "business activity: " + activityReasons(mr.Business.Prohibited)
	case len(failed) > 0:
		mr.Verdict = NonCompliant
		mr.Reason = joinWords(ratioNames(failed))
	case !known:
		mr.Verdict = InsufficientData
		mr.Reason = "business classification unknown: no SIC code, industry or sector to screen"
		c.miss("industry")
	case len(unknown) > 0:
		mr.Verdict = InsufficientData
		mr.Reason = "missing " + joinWords(missingOf(mr.Ratios)) + straddleOf(mr.Ratios)
		if rs.MissingIsNonCompliant {
			mr.Verdict = NonCompliant
			mr.Reason = "missing data counts as failing under this ruleset: " + joinWords(missingOf(mr.Ratios))
		}
	case len(mr.Business.Doubtful) > 0:
		mr.Verdict = Questionable
		mr.Reason = "doubtful business activity: " + activityReasons(mr.Business.Doubtful)
	default:
		mr.Verdict = Compliant
		mr.Reason = "business activity and every ratio pass"
	}
	return mr
}

// businessScreen sorts the activities a methodology excludes into prohibited (primary) and doubtful;
// it passes when the activities are known and none is prohibited. Its reason names the
// classification read and its source, or says there is none.
func businessScreen(m MethodologyRule, acts []Activity, cls Classification) BusinessScreen {
	known := cls.Known()
	bs := BusinessScreen{Prohibited: []Activity{}, Doubtful: []Activity{}}
	listed := map[string]bool{}
	for _, cat := range m.Business {
		listed[cat] = true
	}
	for _, a := range acts {
		if !listed[a.Category] {
			continue
		}
		if a.Primary {
			bs.Prohibited = append(bs.Prohibited, a)
		} else {
			bs.Doubtful = append(bs.Doubtful, a)
		}
	}
	switch {
	case !known:
		bs.Reason = "business classification unknown: no SIC code, industry or sector on file"
	case len(bs.Prohibited) > 0:
		bs.Reason = "prohibited: " + activityReasons(bs.Prohibited)
	case len(bs.Doubtful) > 0:
		bs.Reason = "doubtful: " + activityReasons(bs.Doubtful) + "; nothing this methodology excludes as a main activity in " + cls.Text
	default:
		bs.Reason = "nothing this methodology excludes in " + cls.Text
	}
	if known {
		bs.Pass = boolp(len(bs.Prohibited) == 0)
	}
	return bs
}

// screenRatio evaluates one ratio of a methodology (on the carried fiscal year when it needs interest
// income the screened period lacks), and the methodology's buffer when it applies to this ratio.
func (c *screenContext) screenRatio(rs *Ruleset, m MethodologyRule, rule RatioRule, bs BusinessScreen, known bool) (RatioResult, *BufferState) {
	cmp := rs.Comparator
	if rule.Comparator != "" {
		cmp = rule.Comparator
	}
	c.ratioSources = map[string]bool{}
	if bnd := c.boundOf(rule); bnd != nil {
		// Decided on a bound: no buffer (a buffer walks the ratio's values period by period, and this
		// period has none; no ruleset buffers a bounded ratio today: DJIM's buffers debt).
		rr := c.boundRatio(bnd, rule, cmp, bs, known)
		rr.Marks = ratioMarks(rr, ratioEvidence{sources: c.ratioSources})
		return rr, nil
	}
	carried := c.carries(rule)
	screened := c.period
	if carried {
		c.period = c.carry // numerator and revenue of the fiscal year the interest income is from
	}
	n, nMiss, nOK := c.numerator(rule.Numerator, known && len(bs.Prohibited) == 0, len(bs.Doubtful) > 0)
	sums := c.sumNotes(rule.Numerator)
	d, dMiss, dOK := c.denominator(rule.Denominator)
	c.period = screened
	var rr RatioResult
	if nOK && dOK {
		rr = evalRatio(rule, cmp, n, d)
	} else {
		rr = RatioResult{ID: rule.ID, Label: labelOf(rule), DenominatorOf: rule.Denominator, ThresholdBP: shariah.NewNumber(rule.ThresholdBP),
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
	if c.capNote != "" && isMcapBasis(rule.Denominator) && rr.Value != nil && rr.Note == "" {
		rr.Note = c.capNote
	}
	if carried {
		rr.Note = fmt.Sprintf("on fiscal year %d (period ending %s): the screened period reports no interest income", c.carry.FiscalYear, c.carry.PeriodEnd)
	}
	if sums != "" {
		if rr.Note != "" {
			rr.Note += "; "
		}
		rr.Note += sums
	}
	rr.Marks = ratioMarks(rr, ratioEvidence{sources: c.ratioSources, carried: carried})
	var buf *BufferState
	if m.Buffer != nil && m.Buffer.Ratio == rule.ID && rr.Pass != nil {
		buf = c.applyBuffer(m, rule, cmp, &rr)
	}
	return rr, buf
}

// isMcapBasis reports whether a denominator is a market cap (latest or a trailing average).
func isMcapBasis(basis string) bool {
	return basis == DenMcapAvg24 || basis == DenMcapAvg36 || basis == DenMcapLatest
}

// carries reports whether a ratio is computed on the carried fiscal year (ScreeningPeriods.RatioCarried).
func (c *screenContext) carries(rule RatioRule) bool { return c.periods.RatioCarried(rule) }

// applyBuffer evaluates the buffered ratio over every period on file (oldest first), each against the
// market cap as of its period end, and replaces the current pass/fail with the buffered status.
func (c *screenContext) applyBuffer(m MethodologyRule, rule RatioRule, cmp string, cur *RatioResult) *BufferState {
	b := m.Buffer
	st := &BufferState{Ratio: rule.ID, UpperPct: b.UpperBP.Div(d100).StringFixed(2)}
	var pts []bufferPoint
	seen := map[string]bool{}
	for i := range c.in.Fundamentals {
		f := &c.in.Fundamentals[i]
		if seen[f.PeriodEnd] {
			continue
		}
		sum, den, ok := c.periodRatio(f, rule)
		if !ok || !den.IsPositive() {
			continue
		}
		seen[f.PeriodEnd] = true
		r := evalRatio(rule, cmp, sum, den)
		inBand := !*r.Pass && sum.Mul(d10000).LessThan(b.UpperBP.Mul(den))
		pts = append(pts, bufferPoint{pass: *r.Pass, inBand: inBand})
	}
	// The current evaluation is the last point (the latest period with the current prices).
	rawPass := *cur.Pass
	inBand := !rawPass && cur.Value != nil && cur.Numerator.Decimal.Mul(d10000).LessThan(b.UpperBP.Mul(cur.Denominator.Decimal))
	if len(pts) > 0 {
		pts = pts[:len(pts)-1]
	}
	pts = append(pts, bufferPoint{pass: rawPass, inBand: inBand})
	compliant, breaches, passes := walkBuffer(pts, b.Periods)
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

// bufferPoint is one period of a buffer evaluation: whether the ratio passed, and if not whether it
// stayed within the buffer band.
type bufferPoint struct{ pass, inBand bool }

// periodRatio is a ratio's numerator and denominator on one period on file (market-cap denominators
// at that period's end); ok is false when an input is missing.
func (c *screenContext) periodRatio(f *shariah.Fundamentals, rule RatioRule) (sum, den decimal.Decimal, ok bool) {
	end, err := time.Parse("2006-01-02", f.PeriodEnd)
	if err != nil {
		return sum, den, false
	}
	for _, fld := range rule.Numerator {
		v, has := f.Facts[fld]
		if !has {
			return sum, den, false
		}
		sum = sum.Add(v.Value.Decimal)
	}
	shares := c.shares
	if s, has := f.Facts[shariah.SharesOutstanding]; has {
		shares = &s
	}
	if n := map[string]int{DenMcapAvg24: 24, DenMcapAvg36: 36, DenMcapLatest: 1}[rule.Denominator]; n > 0 {
		den, _, ok = c.mcap(n, end, shares)
		return sum, den, ok
	}
	v, has := f.Facts[shariah.Field(rule.Denominator)]
	if !has {
		return sum, den, false
	}
	return sum, v.Value.Decimal, true
}

// walkBuffer walks the periods oldest first from the first one's status: a compliant company turns
// non-compliant after `periods` consecutive in-band breaches (at once on an out-of-band one), a
// non-compliant one compliant again after `periods` consecutive passes. It returns the status and the
// current run of breaches or passes.
func walkBuffer(pts []bufferPoint, periods int) (compliant bool, breaches, passes int) {
	compliant = pts[0].pass
	for _, p := range pts[1:] {
		if compliant {
			switch {
			case p.pass:
				breaches = 0
			case p.inBand:
				breaches++
				if breaches >= periods {
					compliant, breaches = false, 0
				}
			default:
				compliant, breaches = false, 0
			}
		} else {
			if p.pass {
				passes++
				if passes >= periods {
					compliant, passes = true, 0
				}
			} else {
				passes = 0
			}
		}
	}
	return compliant, breaches, passes
}

// revenue builds the revenue breakdown and the purification rate of the screened period.
func (c *screenContext) revenue() (RevenueBreakdown, *shariah.Number) {
	rb := RevenueBreakdown{}
	p := c.period
	if p == nil {
		return rb, nil
	}
	if c.carry != nil {
		p = c.carry // the breakdown of the year the interest income is from (data_quality.carried_forward)
	}
	rb.Period, rb.Currency = p.PeriodEnd+" "+p.Period, p.Currency
	get := func(f shariah.Field) *shariah.Number {
		if v, ok := p.Facts[f]; ok {
			return num(v.Value.Decimal)
		}
		return nil
	}
	rb.TotalRevenue, rb.InterestIncome, rb.ImpureRevenue = get(shariah.TotalRevenue), get(shariah.InterestIncome), get(shariah.ImpureRevenue)
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

// overall applies the overall rule: COMPLIANT when every methodology with data passes (and
// at least three, or all of a smaller ruleset, have data); NON_COMPLIANT when every one with data fails;
// QUESTIONABLE when they disagree; INSUFFICIENT_DATA otherwise. A chosen methodology decides alone.
func overall(rs *Ruleset, by map[string]MethodologyResult, methodology string) string {
	if methodology != "" {
		if m, ok := rs.Methodology(methodology); ok {
			return strings.ToUpper(by[MethodologyKey(m.Name)].Verdict)
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

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
