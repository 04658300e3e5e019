package screening

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
)

// Verdicts from bounds. When the screened period does not report interest income and no fiscal year
// within the last two can be carried forward (planInterestCarry), interest income is still bounded by
// filed figures: a company cannot earn more interest in a window than its interest-bearing assets
// earn at the highest policy rate of the window plus a margin. The income (impure-revenue) ratio is
// then decided on that bound when the bound is decisive: the ratio's upper bound under the threshold
// passes, its lower bound (the other numerator inputs, interest income at zero) at or over it fails,
// and a bound straddling the threshold leaves the ratio unknown, with the figures. Receivables not
// reported are bounded the same way, by the balance sheet (planReceivablesBound). A ruleset switches
// this off with bounded_inputs: false.

// BoundKind names, in data_quality.bounded and on a ratio's bound, an input bounded from filed figures.
const BoundKind = "bounded"

// BoundedInput is an input the screened period does not report, bounded from filed figures
// (data_quality.bounded). Amounts are in the reporting currency; the window is the screened period's
// own, the same window as its revenue: the 3 months of a quarter, the 12 months of a fiscal year.
//
// Interest income (field interest_income) fills the window and policy-rate fields; receivables (field
// receivables, a balance at the period end) fills total_assets and less. Both fill the rest.
type BoundedInput struct {
	Kind        string `json:"kind"`                   // "bounded"
	Field       string `json:"field"`                  // interest_income or receivables
	Period      string `json:"period"`                 // of the screened period: Q1..Q4 or FY
	PeriodEnd   string `json:"period_end"`             // of the screened period (the window's last day)
	WindowStart string `json:"window_start,omitempty"` // the window's first day (interest income)
	Months      int    `json:"window_months,omitempty"`
	// Assets is the largest quarter-end interest-bearing assets filed in the 12 months to the period
	// end (the opening balance included): cash and interest-bearing securities.
	Assets     *shariah.Number `json:"interest_bearing_assets,omitempty"`
	AssetsAsOf string          `json:"interest_bearing_assets_as_of,omitempty"`
	AssetsFrom []BoundedAsset  `json:"interest_bearing_assets_considered,omitempty"`
	RateBP     *shariah.Number `json:"policy_rate_bp,omitempty"`
	RateBasis  string          `json:"policy_rate_basis,omitempty"`
	MarginBP   *shariah.Number `json:"margin_bp,omitempty"`
	Revenue    *shariah.Number `json:"revenue,omitempty"` // the screened period's total revenue, the same window
	// TotalAssets and Less bound a balance-sheet part (receivables): at most total assets less the
	// other filed parts of them, at the same date.
	TotalAssets *shariah.Number `json:"total_assets,omitempty"`
	Less        []BoundedAsset  `json:"less,omitempty"`
	Lower       shariah.Number  `json:"lower_bound"`
	Upper       shariah.Number  `json:"upper_bound"`
	Reason      string          `json:"reason"` // why the period has no filed value
	Method      string          `json:"method"` // the arithmetic, in words and figures
}

// BoundedAsset is one quarter-end balance considered for the largest interest-bearing assets.
type BoundedAsset struct {
	Field     string         `json:"field"` // cash_and_securities
	PeriodEnd string         `json:"period_end"`
	Value     shariah.Number `json:"value"`
	SourceRef string         `json:"source_ref,omitempty"`
	Tag       string         `json:"tag,omitempty"`
}

// RatioBound is how a ratio was decided on a bound: its numerator and value at the bound's lower and
// upper ends, and which end decided (pass: the upper end is under the threshold; fail: the lower end
// is not; straddles: neither, no verdict).
type RatioBound struct {
	Kind           string         `json:"kind"` // "bounded"
	Field          string         `json:"field"`
	NumeratorLower shariah.Number `json:"numerator_lower"`
	NumeratorUpper shariah.Number `json:"numerator_upper"`
	ValueLowerPct  string         `json:"value_lower_pct"`
	ValueUpperPct  string         `json:"value_upper_pct"`
	Decided        string         `json:"decided"` // pass, fail or straddles
}

// boundedAssetFields are the filed balances that earn interest and that a period's inputs carry. The
// data pack carries no finance receivables or loans: a company whose classification names a finance
// activity gets no bound (see planInterestBound).
var boundedAssetFields = []shariah.Field{shariah.CashAndSecurities}

// windowMonths is the length of a period's revenue window: 12 for a fiscal year, 3 for a quarter (the
// readers give a quarter its 3-month revenue, a fourth quarter included).
func windowMonths(period string) int {
	if period == "FY" {
		return 12
	}
	return 3
}

// planInterestBound decides, once per screening, the bound on interest income when the screened
// period reports none and none was carried forward: the window's largest quarter-end interest-bearing
// assets x (the window's highest policy rate + PolicyRateMarginBP) x months/12. Without what the bound
// needs, a note says which part is lacking and the ratios stay unknown.
func (c *screenContext) planInterestBound(rs *Ruleset, acts []Activity) {
	if c.period == nil || c.carry != nil || !rs.BoundsInputs() || !c.uses(rs, shariah.InterestIncome) {
		return
	}
	if _, ok := c.period.Facts[shariah.InterestIncome]; ok {
		return
	}
	b, why := c.interestBound(rs, acts)
	if b == nil {
		c.note("interest_income not bounded: " + why)
		return
	}
	c.bounded[shariah.InterestIncome] = b
	c.dq.Bounded = append(c.dq.Bounded, *b)
	c.note("interest_income bounded (" + b.Reason + "): " + b.Method)
}

// interestBound is the screened period's bound on interest income, or nil and which part of what the
// bound needs is lacking (the first, in the order checked).
func (c *screenContext) interestBound(rs *Ruleset, acts []Activity) (_ *BoundedInput, whyNot string) {
	p := c.period
	if why := interestBoundExcluded(p, acts); why != "" {
		return nil, why
	}
	end, err := time.Parse("2006-01-02", p.PeriodEnd)
	if err != nil {
		return nil, "the period end " + p.PeriodEnd + " is not a date"
	}
	rev, ok := p.Facts[shariah.TotalRevenue]
	if !ok || !rev.Value.IsPositive() {
		return nil, "the period reports no positive total revenue to set it against"
	}
	w, ok := interestWindowOf(p.Period, end)
	if !ok {
		return nil, fmt.Sprintf("the policy-rate table does not cover %s to %s", w.start.Format("2006-01-02"), p.PeriodEnd)
	}
	// The largest filed quarter-end balance in the 12 months to the period end, its opening balance
	// (the year before, two weeks' leeway for 52/53-week years) included. The period's own must be filed.
	if _, ok := p.Facts[shariah.CashAndSecurities]; !ok {
		return nil, "the screened period reports no cash and interest-bearing securities"
	}
	considered, best, ownFiled := c.interestBearingAssets(end)
	if best == nil || !ownFiled {
		return nil, "the screened period's cash and interest-bearing securities are not from a filing"
	}
	for _, a := range considered {
		if a.Value.IsNegative() {
			return nil, "a negative cash and interest-bearing securities balance at " + a.PeriodEnd + " contradicts the filing"
		}
	}
	return c.newInterestBound(rs, w, considered, *best, rev.Value.Decimal), ""
}

// interestBoundExcluded says why a company's interest income is not bounded from cash and securities
// at all ("" when it is): a classification naming conventional finance, or a currency other than the
// policy-rate table's.
func interestBoundExcluded(p *shariah.Fundamentals, acts []Activity) string {
	for _, a := range acts {
		if a.Category == "conventional_finance" {
			return "the classification names conventional finance (" + a.Reason + "): interest from loans and finance receivables, which the inputs do not carry, is not bounded by cash and securities"
		}
	}
	if cur := strings.ToUpper(p.Currency); cur != "" && cur != "USD" {
		return "reported in " + cur + ": the policy-rate table is the US federal funds rate's"
	}
	return ""
}

// interestWindow is a screened period's revenue window and the highest policy rate over it.
type interestWindow struct {
	start  time.Time // the window's first day
	months int
	rateBP int64
	basis  string
}

// interestWindowOf is the window of a period ending at end, its policy rate from the table; ok is false
// when the table does not cover the window (start is set then).
func interestWindowOf(period string, end time.Time) (w interestWindow, ok bool) {
	w.months = windowMonths(period)
	w.start = end.AddDate(0, 0, 1).AddDate(0, -w.months, 0) // the day after the end, months back: 2025-04-01 for 2025-06-30
	w.rateBP, w.basis, ok = market.PolicyRateOver(w.start, end)
	return w, ok
}

// interestBearingAssets is the filed quarter-end interest-bearing assets of the 12 months to the
// screened period's end (the opening balance included: from a year and two weeks before), one per
// period end in the order of the inputs; best is the largest, and ownFiled whether the screened period's
// own end is among them.
func (c *screenContext) interestBearingAssets(end time.Time) (considered []BoundedAsset, best *BoundedAsset, ownFiled bool) {
	from := end.AddDate(-1, 0, -14).Format("2006-01-02")
	seen := map[string]bool{}
	for _, f := range c.in.Fundamentals {
		if f.PeriodEnd < from || f.PeriodEnd > c.period.PeriodEnd || seen[f.PeriodEnd] {
			continue
		}
		sum, any := decimal.Zero, false
		var refs, tags []string
		for _, fld := range boundedAssetFields {
			v, ok := f.Facts[fld]
			if !ok || (v.Source != shariah.SourceFiling && v.Source != shariah.SourceLive) {
				continue
			}
			sum, any = sum.Add(v.Value.Decimal), true
			refs, tags = append(refs, v.Ref), append(tags, v.Tag)
		}
		if !any {
			continue
		}
		seen[f.PeriodEnd] = true
		considered = append(considered, BoundedAsset{Field: string(shariah.CashAndSecurities), PeriodEnd: f.PeriodEnd, Value: shariah.NewNumber(sum),
			SourceRef: strings.Join(refs, ", "), Tag: strings.Join(tags, ", ")})
		if best == nil || sum.GreaterThan(best.Value.Decimal) {
			b := considered[len(considered)-1]
			best = &b
		}
	}
	return considered, best, seen[c.period.PeriodEnd]
}

// newInterestBound is the screened period's bound on interest income over window w: from 0 to the
// largest interest-bearing assets (best, of those considered) x (the policy rate + the margin) x
// months/12, set against revenue, with why the period has no value and the arithmetic in words.
func (c *screenContext) newInterestBound(rs *Ruleset, w interestWindow, considered []BoundedAsset, best BoundedAsset, revenue decimal.Decimal) *BoundedInput {
	p := c.period
	bp := decimal.NewFromInt(w.rateBP + market.PolicyRateMarginBP)
	frac := decimal.NewFromInt(int64(w.months)).Div(decimal.NewFromInt(12)) // 1 or 0.25: exact
	upper := best.Value.Decimal.Mul(bp).Div(d10000).Mul(frac)
	why := p.Missing[shariah.InterestIncome]
	if why == "" {
		why = "not reported"
	}
	carry := "no fiscal year within the last two reported it"
	if !rs.CarriesInterestForward() {
		carry = "this ruleset does not carry it forward from an earlier fiscal year"
	}
	window := "the 12 months of the fiscal year"
	if w.months == 3 {
		window = "the 3 months of the quarter"
	}
	b := &BoundedInput{Kind: BoundKind, Field: string(shariah.InterestIncome), Period: p.Period, PeriodEnd: p.PeriodEnd,
		WindowStart: w.start.Format("2006-01-02"), Months: w.months, Assets: num(best.Value.Decimal), AssetsAsOf: best.PeriodEnd, AssetsFrom: considered,
		RateBP: num(decimal.NewFromInt(w.rateBP)), RateBasis: w.basis, MarginBP: num(decimal.NewFromInt(market.PolicyRateMarginBP)),
		Lower: shariah.NewNumber(decimal.Zero), Upper: shariah.NewNumber(upper), Revenue: num(revenue),
		Reason: fmt.Sprintf("%s %s: %s; %s", p.PeriodEnd, p.Period, why, carry)}
	b.Method = fmt.Sprintf("interest income of %s (%s to %s, the window of its revenue) is at most the largest quarter-end cash and interest-bearing securities of the 12 months to %s, %s (as of %s), x (the highest policy rate of the calendar year(s) of the window, %s%%, + a margin of %s%%) x %d/12 = %s; at least 0; against revenue of %s",
		window, b.WindowStart, p.PeriodEnd, p.PeriodEnd, money(best.Value.Decimal), best.PeriodEnd,
		decimal.New(w.rateBP, -2).StringFixed(2), decimal.New(market.PolicyRateMarginBP, -2).StringFixed(2), w.months, money(upper), money(revenue))
	return b
}

// money writes an amount with thousands separators and at most two decimals (rounded away from zero
// for an upper bound's display only; the arithmetic keeps every digit).
func money(d decimal.Decimal) string {
	s := d.RoundUp(2).String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// uses reports whether a ratio of the ruleset needs field f.
func (c *screenContext) uses(rs *Ruleset, f shariah.Field) bool {
	for _, m := range rs.Methodologies {
		for _, r := range m.Ratios {
			if ratioNeeds(r, f) {
				return true
			}
		}
	}
	return false
}

func ratioNeeds(r RatioRule, f shariah.Field) bool {
	for _, n := range r.Numerator {
		if n == f {
			return true
		}
	}
	return false
}

// boundOf is the bounded input a ratio is decided on, or nil: interest income when the ratio needs it,
// the screened period has none, a bound was planned, and it is set against revenue (the bound's window
// is the revenue's); receivables when the ratio needs them and a bound was planned (a balance at the
// period end, against any denominator).
func (c *screenContext) boundOf(rule RatioRule) *BoundedInput {
	if b := c.bounded[shariah.InterestIncome]; b != nil && rule.Denominator == DenTotalRevenue && ratioNeeds(rule, shariah.InterestIncome) {
		return b
	}
	if b := c.bounded[shariah.Receivables]; b != nil && ratioNeeds(rule, shariah.Receivables) && !ratioNeeds(rule, shariah.InterestIncome) {
		return b
	}
	return nil
}

// boundRatio decides a ratio on the interest bound: the other numerator inputs as filed (or assumed, as
// any ratio assumes them), interest income between 0 and the bound. The ratio's value stays unknown
// (null); its bound, and a note with the figures, say how it was decided.
func (c *screenContext) boundRatio(bnd *BoundedInput, rule RatioRule, cmp string, bs BusinessScreen, known bool) RatioResult {
	field := shariah.Field(bnd.Field)
	var others []shariah.Field
	for _, f := range rule.Numerator {
		if f != field {
			others = append(others, f)
		}
	}
	n, nMiss, nOK := c.numerator(others, known && len(bs.Prohibited) == 0, len(bs.Doubtful) > 0)
	d, dMiss, dOK := c.denominator(rule.Denominator)
	rr := RatioResult{ID: rule.ID, Label: labelOf(rule), DenominatorOf: rule.Denominator, ThresholdBP: shariah.NewNumber(rule.ThresholdBP),
		ThresholdPct: rule.ThresholdBP.Div(d100).StringFixed(2), Comparator: cmp}
	if rule.ThresholdBP.Mod(decimal.NewFromInt(1)).IsPositive() {
		rr.ThresholdPct = rule.ThresholdBP.Div(d100).StringFixed(3)
	}
	if dOK {
		rr.Denominator = num(d)
	}
	if !nOK || !dOK || !d.IsPositive() {
		rr.Missing = append(append(nMiss, dMiss...), string(field))
		for _, f := range rr.Missing {
			c.miss(f)
		}
		return rr
	}
	for _, f := range append(append([]BoundedAsset(nil), bnd.AssetsFrom...), bnd.Less...) {
		if f.SourceRef != "" {
			c.refs[f.SourceRef] = true
		}
	}
	lower, upper := n.Add(bnd.Lower.Decimal), n.Add(bnd.Upper.Decimal)
	under := func(x decimal.Decimal) bool {
		lhs, rhs := x.Mul(d10000), rule.ThresholdBP.Mul(d)
		if cmp == CmpLE {
			return lhs.LessThanOrEqual(rhs)
		}
		return lhs.LessThan(rhs)
	}
	pct := func(x decimal.Decimal) string { return x.Mul(d100).DivRound(d, 4).StringFixed(4) }
	rb := &RatioBound{Kind: BoundKind, Field: string(field), NumeratorLower: shariah.NewNumber(lower), NumeratorUpper: shariah.NewNumber(upper),
		ValueLowerPct: pct(lower), ValueUpperPct: pct(upper)}
	rr.Bound = rb
	figures := fmt.Sprintf("%s not filed for %s %s, at most %s (%s); the ratio lies between %s%% and %s%% against %s%%",
		strings.ReplaceAll(bnd.Field, "_", " "), bnd.PeriodEnd, bnd.Period, money(bnd.Upper.Decimal), bnd.Method, rb.ValueLowerPct, rb.ValueUpperPct, rr.ThresholdPct)
	switch {
	case under(upper):
		rb.Decided, rr.Pass = "pass", boolp(true)
		rr.Note = "passes on a bound: " + figures
	case !under(lower):
		rb.Decided, rr.Pass = "fail", boolp(false)
		rr.Note = "fails on its lower bound (" + strings.ReplaceAll(bnd.Field, "_", " ") + " taken at 0): " + figures
	default:
		rb.Decided = "straddles"
		rr.Missing = []string{string(field)}
		c.miss(string(field))
		rr.Note = "the bound straddles the threshold, no verdict: " + figures
	}
	return rr
}

// straddleOf adds to a methodology's "missing" reason the figures of a bound that straddled its
// threshold ("" when none did).
func straddleOf(rs []RatioResult) string {
	for _, r := range rs {
		if r.Bound != nil && r.Bound.Decided == "straddles" {
			return fmt.Sprintf(" (its bound straddles the %s ratio's threshold: %s%% to %s%% against %s%%)", ratioNames([]string{r.ID})[0],
				r.Bound.ValueLowerPct, r.Bound.ValueUpperPct, r.ThresholdPct)
		}
	}
	return ""
}

// planReceivablesBound bounds receivables the screened period does not report: they are a part of
// total assets apart from cash and interest-bearing securities and from inventory, so at most total
// assets less those (each subtracted where filed), at the same balance-sheet date, and at least 0.
// Every figure must be filed (or live); a remainder below zero contradicts the filing and gives no bound.
func (c *screenContext) planReceivablesBound(rs *Ruleset) {
	p := c.period
	if p == nil || !rs.BoundsInputs() || !c.uses(rs, shariah.Receivables) {
		return
	}
	if _, ok := p.Facts[shariah.Receivables]; ok {
		return
	}
	no := func(why string) { c.note("receivables not bounded: " + why) }
	filed := func(f shariah.Fact) bool { return f.Source == shariah.SourceFiling || f.Source == shariah.SourceLive }
	ta, ok := p.Facts[shariah.TotalAssets]
	if !ok || !filed(ta) {
		no("the screened period has no filed total assets")
		return
	}
	cash, ok := p.Facts[shariah.CashAndSecurities]
	if !ok || !filed(cash) {
		no("the screened period has no filed cash and interest-bearing securities to subtract from total assets")
		return
	}
	less := []BoundedAsset{{Field: string(shariah.CashAndSecurities), PeriodEnd: p.PeriodEnd, Value: cash.Value, SourceRef: cash.Ref, Tag: cash.Tag}}
	if inv, ok := p.Facts[shariah.Inventory]; ok && filed(inv) {
		less = append(less, BoundedAsset{Field: string(shariah.Inventory), PeriodEnd: p.PeriodEnd, Value: inv.Value, SourceRef: inv.Ref, Tag: inv.Tag})
	}
	upper := ta.Value.Decimal
	var parts []string
	for _, l := range less {
		if l.Value.IsNegative() {
			no("a negative " + strings.ReplaceAll(l.Field, "_", " ") + " balance")
			return
		}
		upper = upper.Sub(l.Value.Decimal)
		parts = append(parts, strings.ReplaceAll(l.Field, "_", " ")+" "+money(l.Value.Decimal))
	}
	if upper.IsNegative() {
		no("total assets are smaller than the parts filed beside them")
		return
	}
	why := p.Missing[shariah.Receivables]
	if why == "" {
		why = "not reported"
	}
	b := &BoundedInput{Kind: BoundKind, Field: string(shariah.Receivables), Period: p.Period, PeriodEnd: p.PeriodEnd,
		TotalAssets: num(ta.Value.Decimal), Less: less, Lower: shariah.NewNumber(decimal.Zero), Upper: shariah.NewNumber(upper),
		Reason: fmt.Sprintf("%s %s: %s", p.PeriodEnd, p.Period, why)}
	b.Method = fmt.Sprintf("receivables at %s are at most total assets of %s less %s = %s (the other parts of total assets filed beside them); at least 0",
		p.PeriodEnd, money(ta.Value.Decimal), joinWords(parts), money(upper))
	c.bounded[shariah.Receivables] = b
	c.dq.Bounded = append(c.dq.Bounded, *b)
	c.note("receivables bounded (" + b.Reason + "): " + b.Method)
}
