// Package finance holds the calculators of an investor's obligations: zakat on holdings and cash
// (zakat.go), the purification of dividends and of gains by the impure share of a company's income
// (purification.go, purification_periods.go). It imports the kernel and the screening whose rates it
// uses.
package finance

import (
	"context"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
)

// Zakat estimate.
//
// Rate 2.5% of zakatable wealth when that wealth EXCEEDS the nisab. Nisab: 85 g of gold or 595 g of
// silver at a price per gram (nisab_metal gold, the default, silver, or lower: the lower threshold).
// Wealth (method market_value, the default) = market value of holdings + cash + receivables - debts
// owed. Method zakatable_assets (a long-term holder) values each holding at the company's
// (cash_and_securities + receivables + inventory) / shares_outstanding times the shares held. All money
// is decimal; figures are rounded to cents (half away from zero) only when shown, and every total is
// computed from unrounded values.

// MaxZakatHoldings bounds the holdings of one zakat request (more is a 422). With the bounds of every
// amount and quantity (MaxAmount, MaxQuantity, MaxInputPlaces) it bounds the response: each holding
// answers a fixed set of figures of at most a few dozen digits.
const MaxZakatHoldings = 100

// Zakat methods and nisab metals.
const (
	ZakatMarketValue      = "market_value"
	ZakatZakatableAssets  = "zakatable_assets"
	NisabGold             = "gold"
	NisabSilver           = "silver"
	NisabLower            = "lower"
	HoldingOK             = "ok"
	HoldingNotFound       = "NOT_FOUND"
	HoldingNoPrice        = "NO_PRICE"
	HoldingNoFX           = "NO_FX"
	HoldingNoFundamentals = "NO_FUNDAMENTALS"
)

// Zakat constants.
var (
	ZakatRate         = decimal.RequireFromString("0.025")
	NisabGoldGrams    = decimal.NewFromInt(85)
	NisabSilverGrams  = decimal.NewFromInt(595)
	GramsPerTroyOunce = decimal.RequireFromString("31.1034768")
	// DefaultGoldPerGram and DefaultSilverPerGram are used only when neither the request nor the
	// reference data has a price of the metal. They are ILLUSTRATIVE late-2026-level figures (gold about
	// 4,040 USD per troy ounce, silver about 50 USD per troy ounce), not market data; a result using
	// one is labelled illustrative and names the price source "default (illustrative)".
	DefaultGoldPerGram   = decimal.RequireFromString("130.00")
	DefaultSilverPerGram = decimal.RequireFromString("1.60")
)

// metalPerGramPlaces is the precision of a per-gram price derived from a per-ounce one. The rounded
// figure is the one stated and the one used, so grams x price reproduces the threshold exactly.
const metalPerGramPlaces = 6

var zakatSkipped = []string{
	"silver-nisab alternative when gold is used (silver gives a much lower threshold; nisab_metal=silver or lower applies it)",
	"hawl: zakat is due only on wealth held for one full lunar year; the estimate assumes the holdings and cash have been held that long",
	"business-inventory rules: trade goods, business assets and their own valuation rules are not considered",
	"liability deductions beyond the debts currently owed given in the request (long-term debt schedules, expenses due) are not considered",
}

// ZakatHolding is one position of a zakat request: shares of a listed symbol, or its market value in USD.
type ZakatHolding struct {
	Symbol      string          `json:"symbol"`
	Shares      *shariah.Number `json:"shares,omitempty"`       // at most MaxQuantity
	MarketValue *shariah.Number `json:"market_value,omitempty"` // USD, at most MaxAmount
}

// ZakatRequest is the input of the zakat calculator. Amounts are USD, each at most MaxAmount.
type ZakatRequest struct {
	Holdings           []ZakatHolding  `json:"holdings"`
	Cash               shariah.Number  `json:"cash"`
	Receivables        shariah.Number  `json:"receivables"`
	Debts              shariah.Number  `json:"debts"`
	NisabMetal         string          `json:"nisab_metal"` // gold (default), silver, lower
	GoldPricePerGram   *shariah.Number `json:"gold_price_per_gram,omitempty"`
	SilverPricePerGram *shariah.Number `json:"silver_price_per_gram,omitempty"`
	Method             string          `json:"method"` // market_value (default), zakatable_assets
}

// Validate reports every problem of the request at once (a VALIDATION_ERROR) and fills the defaults
// (nisab_metal gold, method market_value) and the normalized symbols.
func (r *ZakatRequest) Validate() error {
	var v shariah.Validation
	v.Choice(&r.NisabMetal, NisabGold, []string{NisabGold, NisabSilver, NisabLower}, "body", "nisab_metal")
	v.Choice(&r.Method, ZakatMarketValue, []string{ZakatMarketValue, ZakatZakatableAssets}, "body", "method")
	for _, f := range []struct {
		name string
		d    shariah.Number
	}{{"cash", r.Cash}, {"receivables", r.Receivables}, {"debts", r.Debts}} {
		v.Amount(f.d.Decimal, false, "body", f.name)
	}
	for _, f := range []struct {
		name string
		d    *shariah.Number
	}{{"gold_price_per_gram", r.GoldPricePerGram}, {"silver_price_per_gram", r.SilverPricePerGram}} {
		if f.d != nil {
			v.Amount(f.d.Decimal, true, "body", f.name)
		}
	}
	v.Items(len(r.Holdings), 0, MaxZakatHoldings, "holdings", "body", "holdings")
	for i := range r.Holdings {
		h := &r.Holdings[i]
		if s, ok := shariah.NormalizeSymbol(h.Symbol); ok {
			h.Symbol = s
		} else {
			v.Add("must be a ticker symbol (letters, digits, '.', '-', '=', '&'; at most 20 characters)", "value_error.symbol", "body", "holdings", i, "symbol")
		}
		switch {
		case h.Shares == nil && h.MarketValue == nil:
			v.Add("give shares or market_value", "value_error.missing", "body", "holdings", i)
		case h.Shares != nil && h.MarketValue != nil:
			v.Add("give either shares or market_value, not both", "value_error.conflict", "body", "holdings", i)
		}
		if h.Shares != nil {
			v.Quantity(h.Shares.Decimal, false, "body", "holdings", i, "shares")
		}
		if h.MarketValue != nil {
			v.Amount(h.MarketValue.Decimal, false, "body", "holdings", i, "market_value")
			if r.Method == ZakatZakatableAssets {
				v.Add("method zakatable_assets values a holding from the company's cash, receivables and inventory per share: give shares, not market_value",
					"value_error.conflict", "body", "holdings", i, "market_value")
			}
		}
	}
	return v.Err()
}

// ZakatReader is what the zakat calculator reads of the reference store: metal prices, a holding's
// record, quote and fundamentals, and the FX rates.
type ZakatReader interface {
	Metals(ctx context.Context, metal string) ([]market.MetalPrice, error) // oldest first
	Asset(ctx context.Context, symbol string) (shariah.Asset, bool, error)
	Quote(ctx context.Context, symbol string) (market.Quote, bool, error)
	Fundamentals(ctx context.Context, symbol string) ([]shariah.Fundamentals, error)
	FXReader
}

// Zakat is the zakat calculator. Ref is read only for what the request does not give (metal prices,
// prices and fundamentals of holdings given as shares); Disclaimers may be nil.
type Zakat struct {
	Ref         ZakatReader
	Disclaimers func(ids ...string) []shariah.Disclaimer
}

// ZakatHoldingResult is one holding of the estimate. Only holdings with status ok count in the totals.
type ZakatHoldingResult struct {
	Symbol         string          `json:"symbol"`
	Name           string          `json:"name,omitempty"`
	Status         string          `json:"status"` // ok, NOT_FOUND, NO_PRICE, NO_FX, NO_FUNDAMENTALS
	Message        string          `json:"message,omitempty"`
	Shares         *shariah.Number `json:"shares,omitempty"`
	Price          *shariah.Number `json:"price,omitempty"` // in price_currency
	PriceCurrency  string          `json:"price_currency,omitempty"`
	PriceAsOf      string          `json:"price_as_of,omitempty"`
	PriceSource    string          `json:"price_source,omitempty"`
	FXPerUSD       *shariah.Number `json:"fx_per_usd,omitempty"` // units of the currency per USD used to convert
	FXSource       string          `json:"fx_source,omitempty"`
	MarketValue    *shariah.Number `json:"market_value,omitempty"`    // USD, to cents
	ZakatableValue *shariah.Number `json:"zakatable_value,omitempty"` // USD, to cents
	Basis          string          `json:"basis,omitempty"`
	// ZakatAmount is the holding's share of the zakat: total_zakat x its zakatable value / the
	// zakatable assets (holdings, cash and receivables; debts reduce every share alike), to cents.
	// Null for an excluded holding; 0 when no zakat is due.
	ZakatAmount  *shariah.Number `json:"zakat_amount"`
	Illustrative bool            `json:"illustrative"`
}

// ZakatNisab is the threshold applied.
type ZakatNisab struct {
	Metal        string         `json:"metal"` // gold or silver (for lower: the metal giving the lower threshold)
	Grams        shariah.Number `json:"grams"`
	PricePerGram shariah.Number `json:"price_per_gram"`
	PriceSource  string         `json:"price_source"`
	Threshold    shariah.Number `json:"threshold"` // USD, to cents (compared unrounded)
}

// ZakatResult is the zakat estimate. Money is USD.
type ZakatResult struct {
	Method              string               `json:"method"`
	NisabMetal          string               `json:"nisab_metal"`
	Currency            string               `json:"currency"`
	Holdings            []ZakatHoldingResult `json:"holdings"`
	HoldingsValue       *shariah.Number      `json:"holdings_value"` // market value of the ok holdings; null when one has none
	Cash                shariah.Number       `json:"cash"`
	Receivables         shariah.Number       `json:"receivables"`
	Debts               shariah.Number       `json:"debts"`
	TotalPortfolioValue *shariah.Number      `json:"total_portfolio_value"` // holdings_value + cash + receivables
	ZakatableWealth     shariah.Number       `json:"zakatable_wealth"`
	Nisab               ZakatNisab           `json:"nisab"`
	GoldPricePerGram    shariah.Number       `json:"gold_price_per_gram"`
	GoldPriceSource     string               `json:"gold_price_source"`
	SilverPricePerGram  shariah.Number       `json:"silver_price_per_gram"`
	SilverPriceSource   string               `json:"silver_price_source"`
	ZakatRate           shariah.Number       `json:"zakat_rate"`
	ZakatDue            bool                 `json:"zakat_due"`
	AmountOwed          shariah.Number       `json:"amount_owed"`
	// The ecosystem's names: total_zakat = amount_owed, is_above_nisab = zakat_due (wealth exceeds
	// the nisab), nisab_threshold = nisab.threshold, total_market_value = total_portfolio_value.
	TotalZakat       shariah.Number       `json:"total_zakat"`
	IsAboveNisab     bool                 `json:"is_above_nisab"`
	NisabThreshold   shariah.Number       `json:"nisab_threshold"`
	TotalMarketValue *shariah.Number      `json:"total_market_value"`
	Excluded         []string             `json:"excluded"`
	Skipped          []string             `json:"skipped"`
	Disclaimers      []shariah.Disclaimer `json:"disclaimers"`
	Illustrative     bool                 `json:"illustrative"`
}

func cents(d decimal.Decimal) shariah.Number { return shariah.NewNumber(d.Round(2)) }

func centsp(d decimal.Decimal) *shariah.Number { n := cents(d); return &n }

func nump(d decimal.Decimal) *shariah.Number { n := shariah.NewNumber(d); return &n }

// metalPrice is the price per gram of a metal: from the request, else the latest in the reference
// data, else the illustrative default.
func (z *Zakat) metalPrice(ctx context.Context, metal string, given *shariah.Number, def decimal.Decimal) (decimal.Decimal, string, bool, error) {
	if given != nil {
		return given.Decimal, "request", false, nil
	}
	if z.Ref != nil {
		ps, err := z.Ref.Metals(ctx, metal)
		if err != nil {
			return decimal.Zero, "", false, err
		}
		if n := len(ps); n > 0 && ps[n-1].USDPerOunce.IsPositive() {
			p := ps[n-1]
			perGram := p.USDPerOunce.Decimal.DivRound(GramsPerTroyOunce, metalPerGramPlaces)
			return perGram, strings.TrimSpace(fmt.Sprintf("data: %s %s", p.Source, p.AsOf)), p.Source == shariah.SourceIllustrative, nil
		}
	}
	return def, "default (illustrative)", true, nil
}

// zakatLine is a holding's unrounded figures.
type zakatLine struct {
	market, zakatable *decimal.Decimal
}

// Calculate validates the request and estimates the zakat. With both metal prices given and only
// market_value holdings it reads nothing from the store.
func (z *Zakat) Calculate(ctx context.Context, req ZakatRequest) (ZakatResult, error) {
	req.Holdings = append([]ZakatHolding(nil), req.Holdings...) // Validate normalizes symbols in place
	if err := req.Validate(); err != nil {
		return ZakatResult{}, err
	}
	res := ZakatResult{Method: req.Method, NisabMetal: req.NisabMetal, Currency: "USD", Holdings: []ZakatHoldingResult{},
		Cash: req.Cash, Receivables: req.Receivables, Debts: req.Debts,
		ZakatRate: shariah.NewNumber(ZakatRate), Excluded: []string{}, Skipped: append([]string(nil), zakatSkipped...), Disclaimers: []shariah.Disclaimer{}}

	threshold, err := z.nisab(ctx, req, &res)
	if err != nil {
		return ZakatResult{}, err
	}

	holdingsValue, holdingsZakatable, err := z.holdings(ctx, req, &res)
	if err != nil {
		return ZakatResult{}, err
	}
	base := holdingsValue
	if req.Method == ZakatZakatableAssets {
		base = holdingsZakatable
	}
	wealth := base.Add(req.Cash.Decimal).Add(req.Receivables.Decimal).Sub(req.Debts.Decimal)
	res.ZakatableWealth = cents(wealth)
	// Zakat is due only when the wealth EXCEEDS the nisab: at exactly the nisab it is not due.
	res.ZakatDue = wealth.GreaterThan(threshold)
	res.AmountOwed = cents(decimal.Zero)
	if res.ZakatDue {
		res.AmountOwed = cents(wealth.Mul(ZakatRate))
	}
	res.TotalZakat, res.IsAboveNisab, res.NisabThreshold, res.TotalMarketValue = res.AmountOwed, res.ZakatDue, res.Nisab.Threshold, res.TotalPortfolioValue
	assets := base.Add(req.Cash.Decimal).Add(req.Receivables.Decimal)
	for i := range res.Holdings {
		h := &res.Holdings[i]
		if h.Status != HoldingOK || h.ZakatableValue == nil {
			continue
		}
		share := decimal.Zero
		if res.ZakatDue && assets.IsPositive() {
			share = res.AmountOwed.Mul(h.ZakatableValue.Decimal).Div(assets)
		}
		h.ZakatAmount = centsp(share)
	}
	if z.Disclaimers != nil {
		res.Disclaimers = z.Disclaimers("zakat")
	}
	return res, nil
}

// nisab prices gold and silver, fills the result's prices and nisab, and returns the threshold of the
// chosen nisab (the lower of the two under NisabLower).
func (z *Zakat) nisab(ctx context.Context, req ZakatRequest, res *ZakatResult) (decimal.Decimal, error) {
	gold, goldSrc, goldIll, err := z.metalPrice(ctx, NisabGold, req.GoldPricePerGram, DefaultGoldPerGram)
	if err != nil {
		return decimal.Zero, err
	}
	silver, silverSrc, silverIll, err := z.metalPrice(ctx, NisabSilver, req.SilverPricePerGram, DefaultSilverPerGram)
	if err != nil {
		return decimal.Zero, err
	}
	res.GoldPricePerGram, res.GoldPriceSource = shariah.NewNumber(gold), goldSrc
	res.SilverPricePerGram, res.SilverPriceSource = shariah.NewNumber(silver), silverSrc
	goldNisab := ZakatNisab{Metal: NisabGold, Grams: shariah.NewNumber(NisabGoldGrams), PricePerGram: shariah.NewNumber(gold), PriceSource: goldSrc}
	silverNisab := ZakatNisab{Metal: NisabSilver, Grams: shariah.NewNumber(NisabSilverGrams), PricePerGram: shariah.NewNumber(silver), PriceSource: silverSrc}
	goldThreshold, silverThreshold := NisabGoldGrams.Mul(gold), NisabSilverGrams.Mul(silver)
	threshold := goldThreshold
	res.Nisab = goldNisab
	res.Illustrative = goldIll
	if req.NisabMetal == NisabSilver || (req.NisabMetal == NisabLower && silverThreshold.LessThan(goldThreshold)) {
		threshold, res.Nisab, res.Illustrative = silverThreshold, silverNisab, silverIll
	}
	res.Nisab.Threshold = cents(threshold)
	if req.NisabMetal == NisabLower {
		// both thresholds were compared, so both prices matter
		res.Illustrative = goldIll || silverIll
	}
	if req.NisabMetal != NisabGold {
		res.Skipped = res.Skipped[1:] // the silver alternative is not skipped
	}
	return threshold, nil
}

// holdings values every holding into the result and returns the sums of their market and zakatable
// values; the market value total is set only when every holding's is known.
func (z *Zakat) holdings(ctx context.Context, req ZakatRequest, res *ZakatResult) (value, zakatable decimal.Decimal, err error) {
	fx := &fxTable{ref: z.Ref}
	marketKnown := true
	for _, h := range req.Holdings {
		hr, line, err := z.holding(ctx, req.Method, h, fx)
		if err != nil {
			return value, zakatable, err
		}
		res.Holdings = append(res.Holdings, hr)
		if hr.Status != HoldingOK {
			res.Excluded = append(res.Excluded, hr.Symbol)
			continue
		}
		res.Illustrative = res.Illustrative || hr.Illustrative
		if line.market != nil {
			value = value.Add(*line.market)
		} else {
			marketKnown = false
		}
		if line.zakatable != nil {
			zakatable = zakatable.Add(*line.zakatable)
		}
	}
	if marketKnown {
		res.HoldingsValue = centsp(value)
		res.TotalPortfolioValue = centsp(value.Add(req.Cash.Decimal).Add(req.Receivables.Decimal))
	}
	return value, zakatable, nil
}

// holding values one holding. Store errors are returned; data gaps are statuses.
func (z *Zakat) holding(ctx context.Context, method string, h ZakatHolding, fx *fxTable) (ZakatHoldingResult, zakatLine, error) {
	hr := ZakatHoldingResult{Symbol: h.Symbol, Status: HoldingOK}
	var line zakatLine
	if h.MarketValue != nil {
		mv := h.MarketValue.Decimal
		line.market, line.zakatable = &mv, &mv
		hr.MarketValue, hr.ZakatableValue = centsp(mv), centsp(mv)
		hr.Basis = "market value given in the request (USD)"
		return hr, line, nil
	}
	shares := h.Shares.Decimal
	hr.Shares = nump(shares)
	if z.Ref == nil {
		return hr, line, fmt.Errorf("zakat: no reference store to value %s", h.Symbol)
	}
	a, ok, err := z.Ref.Asset(ctx, h.Symbol)
	if err != nil {
		return hr, line, err
	}
	if !ok {
		hr.Status, hr.Message = HoldingNotFound, fmt.Sprintf("%s is not in the database: excluded from the totals (not valued at zero).", h.Symbol)
		return hr, line, nil
	}
	hr.Symbol, hr.Name = a.Symbol, a.Name

	q, hasQuote, err := z.Ref.Quote(ctx, a.Symbol)
	if err != nil {
		return hr, line, err
	}
	if hasQuote && q.Price > 0 {
		price := decimal.New(int64(q.Price), -6)
		cur := firstNonEmpty(q.Currency, a.Currency, "USD")
		hr.Price, hr.PriceCurrency, hr.PriceAsOf, hr.PriceSource = nump(price), cur, q.AsOf, q.Source
		hr.Illustrative = q.Source == shariah.SourceIllustrative
		usd, rate, ok, err := fx.toUSD(ctx, shares.Mul(price), cur)
		if err != nil {
			return hr, line, err
		}
		if !ok {
			hr.Status, hr.Message = HoldingNoFX, fmt.Sprintf("No USD exchange rate for %s: %s is excluded from the totals.", cur, a.Symbol)
			return hr, line, nil
		}
		if rate != nil {
			hr.FXPerUSD, hr.FXSource = nump(rate.PerUSD.Decimal), strings.TrimSpace(rate.Source+" "+rate.AsOf)
		}
		line.market = &usd
		hr.MarketValue = centsp(usd)
	} else if method == ZakatMarketValue {
		hr.Status, hr.Message = HoldingNoPrice, fmt.Sprintf("No price on file for %s: excluded from the totals (give market_value to include it).", a.Symbol)
		return hr, line, nil
	}

	if method == ZakatMarketValue {
		line.zakatable = line.market
		hr.ZakatableValue = hr.MarketValue
		hr.Basis = fmt.Sprintf("shares x last price %s %s (%s, %s)", hr.Price.String(), hr.PriceCurrency, q.AsOf, q.Source)
		return hr, line, nil
	}

	err = z.zakatablePart(ctx, a, shares, fx, &hr, &line)
	return hr, line, err
}

// zakatablePart values a holding by the zakatable_assets method: the company's zakatable assets per
// share, from its latest period with them, times the shares held, in USD. Data gaps are statuses.
func (z *Zakat) zakatablePart(ctx context.Context, a shariah.Asset, shares decimal.Decimal, fx *fxTable, hr *ZakatHoldingResult, line *zakatLine) error {
	fs, err := z.Ref.Fundamentals(ctx, a.Symbol)
	if err != nil {
		return err
	}
	assets, outstanding, basis, cur, ill, ok := zakatableAssets(fs)
	if !ok {
		hr.Status, hr.Message = HoldingNoFundamentals, basis
		return nil
	}
	cur = firstNonEmpty(cur, a.Currency, "USD")
	// shares x assets / shares outstanding: multiply first so the one inexact division comes last
	usd, rate, ok, err := fx.toUSD(ctx, shares.Mul(assets).DivRound(outstanding, fxPlaces), cur)
	if err != nil {
		return err
	}
	if !ok {
		hr.Status, hr.Message = HoldingNoFX, fmt.Sprintf("No USD exchange rate for %s (the currency of %s's fundamentals): excluded from the totals.", cur, a.Symbol)
		return nil
	}
	if rate != nil {
		hr.FXPerUSD, hr.FXSource = nump(rate.PerUSD.Decimal), strings.TrimSpace(rate.Source+" "+rate.AsOf)
	}
	line.zakatable = &usd
	hr.ZakatableValue = centsp(usd)
	hr.Basis = basis + " (" + cur + ")"
	hr.Illustrative = hr.Illustrative || ill
	if line.market == nil {
		hr.Message = "No price on file: the market value is unknown (the zakatable value does not need it)."
	}
	return nil
}

// zakatableAssets is cash_and_securities + receivables + inventory and shares_outstanding of the
// latest period with cash and shares (the holding's value per share is assets / outstanding). Missing
// receivables or inventory count as zero and are named in the basis. ok is false (basis says why) when
// no period has cash and shares.
func zakatableAssets(fs []shariah.Fundamentals) (assets, outstanding decimal.Decimal, basis, currency string, illustrative, ok bool) {
	fs = append([]shariah.Fundamentals(nil), fs...)
	shariah.SortFundamentals(fs)
	for i := len(fs) - 1; i >= 0; i-- {
		f := fs[i]
		cash, hasCash := f.Facts[shariah.CashAndSecurities]
		sh, hasShares := f.Facts[shariah.SharesOutstanding]
		if !hasCash || !hasShares || !sh.Value.IsPositive() {
			continue
		}
		sum := cash.Value.Decimal
		var missing []string
		ill := cash.Source == shariah.SourceIllustrative || sh.Source == shariah.SourceIllustrative
		for _, fld := range []shariah.Field{shariah.Receivables, shariah.Inventory} {
			if fact, ok := f.Facts[fld]; ok {
				sum = sum.Add(fact.Value.Decimal)
				ill = ill || fact.Source == shariah.SourceIllustrative
			} else {
				missing = append(missing, string(fld))
			}
		}
		b := fmt.Sprintf("(cash_and_securities + receivables + inventory) / shares_outstanding of %s %s (sources: %s)",
			f.PeriodEnd, f.Period, strings.Join(f.Sources(), ", "))
		if len(missing) > 0 {
			b += "; not reported, counted as 0: " + strings.Join(missing, ", ")
		}
		b += fmt.Sprintf("; per share %s", sum.DivRound(sh.Value.Decimal, 6).String())
		return sum, sh.Value.Decimal, b, f.Currency, ill, true
	}
	return decimal.Zero, decimal.Zero, "No period of the company's fundamentals has both cash_and_securities and shares_outstanding: it cannot be valued by zakatable assets and is excluded from the totals.", "", false, false
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return strings.ToUpper(strings.TrimSpace(s))
		}
	}
	return ""
}

// fxPlaces is the precision of a currency conversion (a division, so it cannot be exact).
const fxPlaces = 12

// FXReader is what converting amounts to USD reads of the reference store: the FX rates.
type FXReader interface {
	FX(ctx context.Context) ([]market.FXRate, error)
}

// fxTable converts amounts to USD with the reference rates, read once per calculation.
type fxTable struct {
	ref   FXReader
	rates map[string]market.FXRate
}

// toUSD converts an amount in currency to USD; ok is false when no rate is known.
func (t *fxTable) toUSD(ctx context.Context, amount decimal.Decimal, currency string) (usd decimal.Decimal, rate *market.FXRate, ok bool, err error) {
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if currency == "" || currency == "USD" {
		return amount, nil, true, nil
	}
	if t.rates == nil {
		rs, err := t.ref.FX(ctx)
		if err != nil {
			return decimal.Zero, nil, false, err
		}
		t.rates = map[string]market.FXRate{}
		for _, r := range rs {
			t.rates[strings.ToUpper(r.Currency)] = r
		}
	}
	r, found := t.rates[currency]
	if !found || !r.PerUSD.IsPositive() {
		return decimal.Zero, nil, false, nil
	}
	return amount.DivRound(r.PerUSD.Decimal, fxPlaces), &r, true, nil
}
