package finance

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// Dividend purification: the part of a dividend
// to donate. Method dividend: dividend income x the company's purification rate (impure share of
// revenue) under a ruleset. Method aaoifi (holding based): shares x the company's impure income per
// share of its latest fiscal year. Amounts are USD, rounded to cents only when shown; the total is the
// rounded sum of the unrounded amounts.

// MaxPurificationHoldings bounds the holdings of one purification request (more is a 422); amounts and
// shares are bounded by MaxAmount, MaxQuantity and MaxInputPlaces.
const MaxPurificationHoldings = 100

// Purification methods and holding statuses.
const (
	PurifyDividend           = "dividend"
	PurifyAAOIFI             = "aaoifi"
	HoldingNoDividends       = "NO_DIVIDENDS"
	HoldingRateUnknown       = "RATE_UNKNOWN"
	impurityPerSharePlaces   = 6
	dividendWindowMonths     = 12
	purificationDividendText = "dividend income x purification rate (interest income + impure revenue) / total revenue of the screened period"
)

// PurificationHolding is one position: its dividend income (USD) or its shares.
type PurificationHolding struct {
	Symbol         string          `json:"symbol"`
	DividendIncome *shariah.Number `json:"dividend_income,omitempty"` // USD, at most MaxAmount
	Shares         *shariah.Number `json:"shares,omitempty"`          // at most MaxQuantity
}

// PurificationRequest is the input of the purification calculator.
type PurificationRequest struct {
	Holdings []PurificationHolding `json:"holdings"`
	Method   string                `json:"method"` // dividend (default) | aaoifi
	Ruleset  string                `json:"ruleset,omitempty"`
}

// Validate reports every problem at once (VALIDATION_ERROR), fills the default method and normalizes
// the symbols.
func (r *PurificationRequest) Validate() error {
	var v shariah.Validation
	v.Choice(&r.Method, PurifyDividend, []string{PurifyDividend, PurifyAAOIFI}, "body", "method")
	r.Ruleset = strings.TrimSpace(r.Ruleset)
	v.Items(len(r.Holdings), 1, MaxPurificationHoldings, "holdings", "body", "holdings")
	for i := range r.Holdings {
		h := &r.Holdings[i]
		if s, ok := shariah.NormalizeSymbol(h.Symbol); ok {
			h.Symbol = s
		} else {
			v.Add("must be a ticker symbol (letters, digits, '.', '-', '=', '&'; at most 20 characters)", "value_error.symbol", "body", "holdings", i, "symbol")
		}
		if h.DividendIncome != nil {
			v.Amount(h.DividendIncome.Decimal, false, "body", "holdings", i, "dividend_income")
		}
		if h.Shares != nil {
			v.Quantity(h.Shares.Decimal, false, "body", "holdings", i, "shares")
		}
		switch {
		case r.Method == PurifyAAOIFI && h.Shares == nil:
			v.Add("method aaoifi needs the shares held", "value_error.missing", "body", "holdings", i, "shares")
		case r.Method == PurifyDividend && h.Shares == nil && h.DividendIncome == nil:
			v.Add("give dividend_income or shares", "value_error.missing", "body", "holdings", i)
		}
	}
	return v.Err()
}

// PeriodImpurity is a fiscal year's impure income per share: (interest_income + impure_revenue) /
// shares_outstanding, in the reporting currency.
type PeriodImpurity struct {
	PeriodEnd string         `json:"period_end"`
	PerShare  shariah.Number `json:"impure_income_per_share"`
	Currency  string         `json:"currency,omitempty"`
	Source    string         `json:"source"`               // sources of the facts used (filing, illustrative, ...)
	Ref       string         `json:"source_ref,omitempty"` // the interest income's reference (e.g. accession number)
}

// ImpureIncomePerShare lists, oldest first, the impure income per share of every fiscal year (period
// FY) with interest_income and shares_outstanding > 0: (interest_income + impure_revenue when reported)
// / shares_outstanding, rounded half away from zero to 6 places.
func ImpureIncomePerShare(fs []shariah.Fundamentals) []PeriodImpurity {
	fs = append([]shariah.Fundamentals(nil), fs...)
	shariah.SortFundamentals(fs)
	out := []PeriodImpurity{}
	for _, f := range fs {
		if f.Period != "FY" {
			continue
		}
		ii, ok := f.Facts[shariah.InterestIncome]
		sh, okS := f.Facts[shariah.SharesOutstanding]
		if !ok || !okS || !sh.Value.IsPositive() {
			continue
		}
		impure := ii.Value.Decimal
		srcs := map[string]bool{ii.Source: true, sh.Source: true}
		if ir, ok := f.Facts[shariah.ImpureRevenue]; ok {
			impure = impure.Add(ir.Value.Decimal)
			srcs[ir.Source] = true
		}
		var src []string
		for _, s := range []string{shariah.SourceFiling, shariah.SourceLive, shariah.SourceHistory, shariah.SourceIllustrative} {
			if srcs[s] {
				src = append(src, s)
				delete(srcs, s)
			}
		}
		for s := range srcs { // any other source, after the known ones
			if s != "" {
				src = append(src, s)
			}
		}
		out = append(out, PeriodImpurity{PeriodEnd: f.PeriodEnd, Currency: f.Currency,
			PerShare: shariah.NewNumber(impure.DivRound(sh.Value.Decimal, impurityPerSharePlaces)),
			Source:   strings.Join(src, ", "), Ref: ii.Ref})
	}
	return out
}

// PurificationReader is what the purification calculator reads of the reference store: a holding's
// record, dividends and fundamentals, and the FX rates.
type PurificationReader interface {
	Asset(ctx context.Context, symbol string) (shariah.Asset, bool, error)
	Dividends(ctx context.Context, symbol string) ([]shariah.Dividend, error)
	Fundamentals(ctx context.Context, symbol string) ([]shariah.Fundamentals, error)
	FXReader
}

// Purifier is the purification calculator. Screener gives the purification rates of the dividend
// method; Disclaimers may be nil.
type Purifier struct {
	Ref         PurificationReader
	Screener    *screening.Screener
	Disclaimers func(ids ...string) []shariah.Disclaimer
}

// RateSource says where a purification rate came from.
type RateSource struct {
	Ruleset string   `json:"ruleset"`
	AsOf    string   `json:"as_of"` // period end of the fundamentals screened
	Sources []string `json:"sources"`
	Method  string   `json:"method"`
}

// DividendBasis is how dividend income was estimated from shares: the dividends per share in the 12
// months to the latest dividend on file.
type DividendBasis struct {
	From     string             `json:"from"` // exclusive
	To       string             `json:"to"`   // inclusive: the latest dividend on file
	PerShare shariah.Number     `json:"per_share"`
	Payments []shariah.Dividend `json:"payments"`
	Note     string             `json:"note"`
}

// PurificationHoldingResult is one holding of the result. Only status ok counts in the total.
type PurificationHoldingResult struct {
	Symbol               string          `json:"symbol"`
	Name                 string          `json:"name,omitempty"`
	Status               string          `json:"status"` // ok, NOT_FOUND, NO_DIVIDENDS, NO_FX, RATE_UNKNOWN, NO_FUNDAMENTALS
	Message              string          `json:"message,omitempty"`
	DividendIncome       *shariah.Number `json:"dividend_income,omitempty"` // USD
	DividendBasis        *DividendBasis  `json:"dividend_income_basis,omitempty"`
	Shares               *shariah.Number `json:"shares,omitempty"`
	Rate                 *shariah.Number `json:"rate,omitempty"`              // the purification rate as a fraction 0..1 (what amount multiplies)
	PurificationRate     *shariah.Number `json:"purification_rate,omitempty"` // the same in percent (3.37 means 3.37%), as everywhere else
	RateSource           *RateSource     `json:"rate_source,omitempty"`
	ImpureIncomePerShare *shariah.Number `json:"impure_income_per_share,omitempty"` // reporting currency
	Period               *PeriodImpurity `json:"period,omitempty"`
	FXPerUSD             *shariah.Number `json:"fx_per_usd,omitempty"`
	Amount               *shariah.Number `json:"amount,omitempty"` // USD, to cents
	Illustrative         bool            `json:"illustrative"`
}

// PurificationResult is the purification estimate. Money is USD.
type PurificationResult struct {
	Method       string                      `json:"method"`
	Ruleset      string                      `json:"ruleset,omitempty"` // dividend method
	Currency     string                      `json:"currency"`
	Holdings     []PurificationHoldingResult `json:"holdings"`
	TotalAmount  shariah.Number              `json:"total_amount"`
	Excluded     []string                    `json:"excluded"`
	Disclaimers  []shariah.Disclaimer        `json:"disclaimers"`
	Illustrative bool                        `json:"illustrative"`
}

// Calculate validates the request and computes the amount to purify per holding and in total.
func (p *Purifier) Calculate(ctx context.Context, req PurificationRequest) (PurificationResult, error) {
	req.Holdings = append([]PurificationHolding(nil), req.Holdings...)
	if err := req.Validate(); err != nil {
		return PurificationResult{}, err
	}
	res := PurificationResult{Method: req.Method, Currency: "USD", Holdings: []PurificationHoldingResult{},
		Excluded: []string{}, Disclaimers: []shariah.Disclaimer{}}
	if req.Method == PurifyDividend {
		if p.Screener == nil {
			return PurificationResult{}, fmt.Errorf("purification: no screener")
		}
		rs, _, err := p.Screener.Rulesets.Resolve(req.Ruleset, "")
		if err != nil {
			var v shariah.Validation
			v.Add("unknown ruleset; valid: "+strings.Join(p.Screener.Rulesets.Names(), ", "), "value_error.ruleset", "body", "ruleset")
			return PurificationResult{}, v.Err()
		}
		req.Ruleset, res.Ruleset = rs.Name, rs.Name
	}
	fx := &fxTable{ref: p.Ref}
	total := decimal.Zero
	for _, h := range req.Holdings {
		hr, amount, err := p.holding(ctx, req, h, fx)
		if err != nil {
			return PurificationResult{}, err
		}
		res.Holdings = append(res.Holdings, hr)
		if hr.Status != HoldingOK {
			res.Excluded = append(res.Excluded, hr.Symbol)
			continue
		}
		total = total.Add(amount)
		res.Illustrative = res.Illustrative || hr.Illustrative
	}
	res.TotalAmount = cents(total)
	if p.Disclaimers != nil {
		res.Disclaimers = p.Disclaimers("purification")
	}
	return res, nil
}

func (p *Purifier) holding(ctx context.Context, req PurificationRequest, h PurificationHolding, fx *fxTable) (PurificationHoldingResult, decimal.Decimal, error) {
	hr := PurificationHoldingResult{Symbol: h.Symbol, Status: HoldingOK}
	if h.Shares != nil {
		hr.Shares = nump(h.Shares.Decimal)
	}
	a, ok, err := p.Ref.Asset(ctx, h.Symbol)
	if err != nil {
		return hr, decimal.Zero, err
	}
	if !ok {
		hr.Status, hr.Message = HoldingNotFound, fmt.Sprintf("%s is not in the database: excluded from the total.", h.Symbol)
		return hr, decimal.Zero, nil
	}
	hr.Symbol, hr.Name = a.Symbol, a.Name
	if req.Method == PurifyAAOIFI {
		return p.aaoifi(ctx, a, h.Shares.Decimal, hr, fx)
	}

	// dividend method: the income, given or estimated from the dividends on file
	var income decimal.Decimal
	if h.DividendIncome != nil {
		income = h.DividendIncome.Decimal
	} else {
		ds, err := p.Ref.Dividends(ctx, a.Symbol)
		if err != nil {
			return hr, decimal.Zero, err
		}
		perShare, basis, ill, ok, err := trailingDividends(ctx, ds, fx)
		if err != nil {
			return hr, decimal.Zero, err
		}
		if !ok {
			hr.Status, hr.Message = HoldingNoDividends, basis.Note
			if basis.Note == "" {
				hr.Message = fmt.Sprintf("No dividends of %s on file: give dividend_income to include it.", a.Symbol)
			}
			return hr, decimal.Zero, nil
		}
		hr.DividendBasis = basis
		hr.Illustrative = ill
		income = h.Shares.Mul(perShare)
	}
	hr.DividendIncome = nump(income)
	if h.DividendIncome == nil {
		hr.DividendIncome = centsp(income)
	}

	r, _, err := p.Screener.Screen(ctx, a.Symbol, screening.ScreenOptions{Ruleset: req.Ruleset})
	switch shariah.ErrorCode(err) {
	case "":
	case shariah.ENOTFOUND:
		hr.Status, hr.Message = HoldingNotFound, fmt.Sprintf("%s is not in the database: excluded from the total.", a.Symbol)
		return hr, decimal.Zero, nil
	case shariah.EVALIDATION: // not a single stock (an ETF, fund or index): no company rate
		hr.Status, hr.Message = HoldingRateUnknown, fmt.Sprintf("%s is a %s: the dividend method needs a company's purification rate; excluded from the total.", a.Symbol, a.Type)
		return hr, decimal.Zero, nil
	default:
		return hr, decimal.Zero, err
	}
	hr.RateSource = &RateSource{Ruleset: r.Ruleset.Name, AsOf: r.DataQuality.AsOf, Sources: r.DataQuality.Sources, Method: purificationDividendText}
	if r.PurificationMethod != "" {
		hr.RateSource.Method = r.PurificationMethod + ": " + purificationDividendText
	}
	hr.Illustrative = hr.Illustrative || r.DataQuality.Illustrative
	if r.PurificationFraction == nil {
		hr.Status = HoldingRateUnknown
		hr.Message = "The purification rate is unknown (" + r.ComplianceExplanation + "): excluded from the total."
		return hr, decimal.Zero, nil
	}
	hr.Rate, hr.PurificationRate = nump(r.PurificationFraction.Decimal), screening.PercentOf(r.PurificationFraction)
	amount := income.Mul(r.PurificationFraction.Decimal)
	hr.Amount = centsp(amount)
	return hr, amount, nil
}

// trailingDividends sums the dividends per share (in USD) dated in the 12 months to the latest one on
// file. A dividend is dated by its ex-date, or its period end when the ex-date is unknown.
func trailingDividends(ctx context.Context, ds []shariah.Dividend, fx *fxTable) (decimal.Decimal, *DividendBasis, bool, bool, error) {
	date := func(d shariah.Dividend) string {
		if d.ExDate != "" {
			return d.ExDate
		}
		return d.PeriodEnd
	}
	latest := ""
	for _, d := range ds {
		if dt := date(d); dt > latest {
			latest = dt
		}
	}
	if latest == "" {
		return decimal.Zero, &DividendBasis{}, false, false, nil
	}
	to, err := time.Parse("2006-01-02", latest)
	if err != nil {
		return decimal.Zero, &DividendBasis{Note: "The dividends on file have no valid date: give dividend_income."}, false, false, nil
	}
	from := to.AddDate(0, -dividendWindowMonths, 0).Format("2006-01-02")
	b := &DividendBasis{From: from, To: latest, Payments: []shariah.Dividend{}}
	sum, ill := decimal.Zero, false
	for _, d := range ds {
		if dt := date(d); dt <= from || dt > latest {
			continue
		}
		usd, _, ok, err := fx.toUSD(ctx, d.Amount.Decimal, d.Currency)
		if err != nil {
			return decimal.Zero, nil, false, false, err
		}
		if !ok {
			return decimal.Zero, &DividendBasis{Note: fmt.Sprintf("No USD exchange rate for %s (the dividends' currency): give dividend_income.", d.Currency)}, false, false, nil
		}
		sum = sum.Add(usd)
		ill = ill || d.Source == shariah.SourceIllustrative
		b.Payments = append(b.Payments, d)
	}
	b.PerShare = shariah.NewNumber(sum)
	b.Note = fmt.Sprintf("dividend income = shares x %s USD per share: the dividends dated after %s up to %s, the latest on file", sum.String(), from, latest)
	return sum, b, ill, true, nil
}

// aaoifi is the holding-based method: shares x impure income per share of the latest fiscal year.
func (p *Purifier) aaoifi(ctx context.Context, a shariah.Asset, shares decimal.Decimal, hr PurificationHoldingResult, fx *fxTable) (PurificationHoldingResult, decimal.Decimal, error) {
	fs, err := p.Ref.Fundamentals(ctx, a.Symbol)
	if err != nil {
		return hr, decimal.Zero, err
	}
	ps := ImpureIncomePerShare(fs)
	if len(ps) == 0 {
		hr.Status, hr.Message = HoldingNoFundamentals, fmt.Sprintf("No fiscal year of %s has interest income and shares outstanding: excluded from the total.", a.Symbol)
		return hr, decimal.Zero, nil
	}
	last := ps[len(ps)-1]
	if last.Currency == "" {
		last.Currency = firstNonEmpty(a.Currency, "USD")
	}
	hr.Period, hr.ImpureIncomePerShare = &last, nump(last.PerShare.Decimal)
	hr.Illustrative = strings.Contains(last.Source, shariah.SourceIllustrative)
	amount, rate, ok, err := fx.toUSD(ctx, shares.Mul(last.PerShare.Decimal), last.Currency)
	if err != nil {
		return hr, decimal.Zero, err
	}
	if !ok {
		hr.Status, hr.Message = HoldingNoFX, fmt.Sprintf("No USD exchange rate for %s (the currency of %s's fundamentals): excluded from the total.", last.Currency, a.Symbol)
		return hr, decimal.Zero, nil
	}
	if rate != nil {
		hr.FXPerUSD = nump(rate.PerUSD.Decimal)
	}
	hr.Amount = centsp(amount)
	return hr, amount, nil
}

// PaymentPurification is what to purify of one dividend payment (dividend method).
type PaymentPurification struct {
	ExDate           string          `json:"ex_date"`
	PeriodEnd        string          `json:"period_end"`
	DividendPerShare shariah.Number  `json:"dividend_per_share"`
	Currency         string          `json:"currency"`
	PurifyPerShare   *shariah.Number `json:"purify_per_share"` // null when the rate is unknown
	Amount           *shariah.Number `json:"amount,omitempty"` // for the shares given, to cents
}

// PurifyPayments applies a purification rate, as a fraction (purification_rate_fraction, never the
// percent), to each payment: per share to 6 places, and for shares (when given) to cents.
func PurifyPayments(ds []shariah.Dividend, rate *shariah.Number, shares *decimal.Decimal) []PaymentPurification {
	out := make([]PaymentPurification, 0, len(ds))
	for _, d := range ds {
		p := PaymentPurification{ExDate: d.ExDate, PeriodEnd: d.PeriodEnd, DividendPerShare: d.Amount, Currency: d.Currency}
		if rate != nil {
			per := shariah.NewNumber(d.Amount.Decimal.Mul(rate.Decimal).Round(6))
			p.PurifyPerShare = &per
			if shares != nil {
				amt := shariah.NewNumber(per.Mul(*shares).Round(2))
				p.Amount = &amt
			}
		}
		out = append(out, p)
	}
	return out
}
