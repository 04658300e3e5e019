// Package etf holds the look-through screening of ETFs (each holding screened as a single stock, the
// weights bucketed by verdict), their comparison, directory, bulk screening and purification. It imports
// the kernel and the screening it looks through.
package etf

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// Holding is one holding as screened through.
type Holding struct {
	Symbol           string          `json:"symbol"` // canonical; empty when the holding could not be resolved
	Input            string          `json:"input"`  // the symbol as the issuer lists it
	Name             string          `json:"name"`
	Weight           shariah.Number  `json:"weight"`                     // fraction
	Status           string          `json:"status"`                     // COMPLIANT, NON_COMPLIANT, QUESTIONABLE, INSUFFICIENT_DATA or UNKNOWN
	PurificationRate *shariah.Number `json:"purification_rate"`          // percent: 3.37 means 3.37%
	PurificationFrac *shariah.Number `json:"purification_rate_fraction"` // the same as a fraction
	Reason           string          `json:"reason"`
	Illustrative     bool            `json:"illustrative"`
	DataSource       string          `json:"data_source"` // filed, illustrative or no_fundamentals (also unresolved holdings)
}

// Result is a look-through screening of an ETF.
type Result struct {
	Symbol                string    `json:"symbol"`
	Name                  string    `json:"name"`
	HoldingsAsOf          string    `json:"holdings_as_of"`
	HoldingsSource        string    `json:"holdings_source"`
	Holdings              []Holding `json:"holdings"`
	HoldingsCount         int       `json:"holdings_count"`
	CompliantWeightPct    string    `json:"compliant_weight_pct"`
	NonCompliantWeightPct string    `json:"non_compliant_weight_pct"`
	QuestionableWeightPct string    `json:"questionable_weight_pct"`
	UnknownWeightPct      string    `json:"unknown_weight_pct"` // unresolved, unscreenable or without a verdict
	ComplianceStatus      string    `json:"compliance_status"`
	// Disposition is the ecosystem's reading of the verdict (Disposition).
	Disposition          string               `json:"disposition"`
	IsCompliant          *bool                `json:"is_compliant"`
	PurificationRate     *shariah.Number      `json:"purification_rate"` // percent, holdings-weighted over the holdings with a known rate
	PurificationFraction *shariah.Number      `json:"purification_rate_fraction"`
	PurificationRatePct  *shariah.Number      `json:"purification_rate_pct"`     // percent (= purification_rate)
	PurificationCoverage string               `json:"purification_coverage_pct"` // weight share with a known rate
	Explanation          string               `json:"compliance_explanation"`
	Rule                 string               `json:"verdict_rule"`
	Ruleset              screening.RulesetRef `json:"ruleset"`
	Illustrative         bool                 `json:"illustrative"`
	// DataSources counts the holdings, and DataSourceWeights their weight, by what the holdings'
	// fundamentals stand on: how much of the look-through is filed.
	DataSources       shariah.SourceCounts  `json:"data_sources"`
	DataSourceWeights shariah.SourceWeights `json:"data_source_weights"`
	Disclaimers       []shariah.Disclaimer  `json:"disclaimers"`
	ScreenedAt        time.Time             `json:"screened_at"`
}

// Disposition reads a look-through as the ecosystem's clients do, by its verdict and its weights
// (DispositionRule): compliant_with_purification (COMPLIANT with a purification rate above zero),
// compliant, mostly_compliant (QUESTIONABLE with more than half the weight compliant), questionable
// (QUESTIONABLE otherwise), non_compliant, insufficient_data. Unknown weight never counts towards
// mostly_compliant: HLAL with 25.3% compliant and 48.7% unknown is questionable.
func Disposition(r Result) string {
	switch r.ComplianceStatus {
	case "COMPLIANT":
		if r.PurificationFraction != nil && r.PurificationFraction.IsPositive() {
			return "compliant_with_purification"
		}
		return "compliant"
	case "QUESTIONABLE":
		// The weights as served (2 decimals), so a reader can check the label against them.
		if c, err := decimal.NewFromString(r.CompliantWeightPct); err == nil && c.GreaterThan(pct50) {
			return "mostly_compliant"
		}
		return "questionable"
	case "NON_COMPLIANT":
		return "non_compliant"
	}
	return "insufficient_data"
}

// DispositionRule says what each disposition means by the weights (documented in every result,
// after VerdictRule).
const DispositionRule = "disposition: compliant_with_purification when COMPLIANT with a purification rate above zero, compliant when COMPLIANT without; mostly_compliant when QUESTIONABLE and more than half the weight is compliant (compliant weight above non-compliant, questionable and unknown weight together), questionable when QUESTIONABLE otherwise; non_compliant; insufficient_data. Unknown weight never counts towards mostly_compliant."

// VerdictRule explains the look-through verdict and its disposition (documented in every result).
const VerdictRule = "INSUFFICIENT_DATA when half the weight or more is unknown; COMPLIANT when non-compliant plus questionable weight is under 5% and unknown weight under 10%; NON_COMPLIANT when non-compliant weight is 33% or more; QUESTIONABLE otherwise. Unknown weight is never counted as compliant. " + DispositionRule

var (
	pct5  = decimal.NewFromInt(5)
	pct10 = decimal.NewFromInt(10)
	pct33 = decimal.NewFromInt(33)
	pct50 = decimal.NewFromInt(50)
	d100  = decimal.NewFromInt(100)
)

func num(d decimal.Decimal) *shariah.Number { n := shariah.NewNumber(d); return &n }
func boolp(b bool) *bool                    { return &b }

// capitalize upper-cases the first letter of an explanation.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// ResultStore holds ETF look-through results.
type ResultStore interface {
	PutETFResult(ctx context.Context, r Result) error
	ETFResult(ctx context.Context, symbol, ruleset string) (Result, bool, error)
}

// Reader is what the ETF service reads of the reference store: an ETF's record and holdings, and for
// purification its quote and dividends.
type Reader interface {
	Asset(ctx context.Context, symbol string) (shariah.Asset, bool, error)
	Holdings(ctx context.Context, etf string) ([]shariah.Holding, error)
	Quote(ctx context.Context, symbol string) (market.Quote, bool, error)
	Dividends(ctx context.Context, symbol string) ([]shariah.Dividend, error)
}

// Service screens ETFs through their holdings with the Screener, so each holding gets the same verdict as
// a single-stock screening.
type Service struct {
	Ref      Reader
	Screener *screening.Screener
	Results  ResultStore
	Catalogs *catalog.Cache
}

// ETFAsset resolves a symbol to an ETF record (ENOTFOUND, or EVALIDATION when it is not an ETF).
func (e *Service) ETFAsset(ctx context.Context, symbol string) (shariah.Asset, error) {
	a, ok, err := e.Ref.Asset(ctx, symbol)
	if err != nil {
		return shariah.Asset{}, err
	}
	if !ok {
		return shariah.Asset{}, catalog.UnknownSymbol(symbol)
	}
	if a.Type != shariah.ETF && a.Type != shariah.Fund {
		var v shariah.Validation
		v.Add(fmt.Sprintf("%s is a %s, not an ETF (stocks: POST /api/screen/%s)", a.Symbol, a.Type, a.Symbol), "value_error.asset_type", "path", "symbol")
		return shariah.Asset{}, v.Err()
	}
	return a, nil
}

// Holdings returns an ETF's holdings, or ENOTFOUND when none are loaded.
func (e *Service) Holdings(ctx context.Context, a shariah.Asset) ([]shariah.Holding, error) {
	hs, err := e.Ref.Holdings(ctx, a.Symbol)
	if err != nil {
		return nil, err
	}
	if len(hs) == 0 {
		return nil, shariah.Errorf(shariah.ENOTFOUND, "No holdings are loaded for %s.", a.Symbol)
	}
	return hs, nil
}

// Screen looks through an ETF: every holding screened (cached results reused), weights bucketed by
// verdict, the overall verdict by VerdictRule, and the holdings-weighted purification rate.
func (e *Service) Screen(ctx context.Context, symbol, ruleset string, force bool) (Result, error) {
	a, err := e.ETFAsset(ctx, symbol)
	if err != nil {
		return Result{}, err
	}
	hs, err := e.Holdings(ctx, a)
	if err != nil {
		return Result{}, err
	}
	rs, _, err := e.Screener.Rulesets.Resolve(ruleset, "")
	if err != nil {
		return Result{}, err
	}
	cat, err := e.Catalogs.Get(ctx)
	if err != nil {
		return Result{}, err
	}
	r := Result{Symbol: a.Symbol, Name: a.Name, HoldingsAsOf: hs[0].AsOf, HoldingsSource: hs[0].Source, HoldingsCount: len(hs),
		Rule: VerdictRule, ScreenedAt: e.Screener.NowUTC(), Disclaimers: []shariah.Disclaimer{},
		Ruleset: screening.RulesetRef{Name: rs.Name, Title: rs.Title, Edition: rs.EditionDate, ReviewStatus: rs.ReviewStatus, Source: rs.Source}}
	r.Illustrative = hs[0].Source == shariah.SourceIllustrative
	var wt etfWeights
	for _, h := range hs {
		eh, sr, err := e.screenHolding(ctx, cat, rs, h, force)
		if err != nil {
			return Result{}, err
		}
		wt.add(eh, sr, h.Weight.Decimal)
		r.Illustrative = r.Illustrative || eh.Illustrative
		r.DataSources.Add(eh.DataSource)
		r.Holdings = append(r.Holdings, eh)
	}
	sort.SliceStable(r.Holdings, func(i, j int) bool { return r.Holdings[i].Weight.GreaterThan(r.Holdings[j].Weight.Decimal) })
	r.weigh(wt)
	r.Disposition = Disposition(r)
	lead := ""
	if r.Illustrative {
		lead = "Based on illustrative data (not from filings), "
	}
	r.Explanation = capitalize(fmt.Sprintf("%s%s%% of %s's weight is compliant, %s%% non-compliant, %s%% questionable and %s%% unknown (%d holdings as of %s): %s.",
		lead, r.CompliantWeightPct, a.Symbol, r.NonCompliantWeightPct, r.QuestionableWeightPct, r.UnknownWeightPct, len(hs), r.HoldingsAsOf,
		strings.ToLower(strings.ReplaceAll(r.ComplianceStatus, "_", " "))))
	if e.Screener.Disclaimers != nil {
		r.Disclaimers = e.Screener.Disclaimers("screening", "etf_lookthrough", "purification")
	}
	if err := e.Results.PutETFResult(ctx, r); err != nil {
		return Result{}, err
	}
	return r, nil
}

// screenHolding screens one holding of an ETF: a holding without a listed symbol, or one the database
// does not know, is UNKNOWN with the reason; sr is the holding's screening when there is one.
func (e *Service) screenHolding(ctx context.Context, cat *catalog.Catalog, rs *screening.Ruleset, h shariah.Holding, force bool) (eh Holding, sr *screening.Result, err error) {
	eh = Holding{Input: h.Symbol, Name: h.Name, Weight: h.Weight, Status: "UNKNOWN", DataSource: shariah.DataNoFundamentals}
	res := catalog.Resolution{}
	if h.Symbol != "" {
		res = cat.Canonical(h.Symbol)
	}
	switch {
	case h.Symbol == "":
		eh.Reason = "no listed symbol (cash or an unlisted item)"
		return eh, nil, nil
	case res.Symbol == "":
		eh.Reason = "symbol not in the database"
		return eh, nil, nil
	}
	eh.Symbol = res.Symbol
	r, _, err := e.Screener.Screen(ctx, res.Symbol, screening.ScreenOptions{Ruleset: rs.Name, ForceRefresh: force})
	if err != nil {
		if shariah.ErrorCode(err) == shariah.EINTERNAL {
			return eh, nil, err
		}
		eh.Reason = err.(*shariah.Error).Message
		return eh, nil, nil
	}
	eh.Status, eh.PurificationRate, eh.PurificationFrac, eh.Reason = r.ComplianceStatus, r.PurificationRate, r.PurificationFraction, r.ComplianceExplanation
	eh.Illustrative = r.DataQuality.Illustrative
	eh.DataSource = screening.DataSourceOf(r)
	return eh, &r, nil
}

// etfWeights sums an ETF's holding weights by verdict and by data source, and the weight-averaged
// purification fraction of the holdings that have one.
type etfWeights struct {
	total, comp, non, quest, unknown, rated, ratedWeight decimal.Decimal
	bySource                                             sourceWeights
}

func (t *etfWeights) add(eh Holding, sr *screening.Result, w decimal.Decimal) {
	t.total = t.total.Add(w)
	if sr != nil && sr.PurificationFraction != nil {
		t.rated = t.rated.Add(w.Mul(sr.PurificationFraction.Decimal))
		t.ratedWeight = t.ratedWeight.Add(w)
	}
	switch eh.Status {
	case "COMPLIANT":
		t.comp = t.comp.Add(w)
	case "NON_COMPLIANT":
		t.non = t.non.Add(w)
	case "QUESTIONABLE":
		t.quest = t.quest.Add(w)
	default:
		t.unknown = t.unknown.Add(w)
	}
	if t.bySource == nil {
		t.bySource = sourceWeights{}
	}
	t.bySource[eh.DataSource] = t.bySource[eh.DataSource].Add(w)
}

// weigh applies VerdictRule to the weights and fills the shares, the verdict and the purification.
func (r *Result) weigh(t etfWeights) {
	total := t.total
	if !total.IsPositive() {
		total = decimal.NewFromInt(1)
	}
	share := func(d decimal.Decimal) decimal.Decimal { return d.Mul(d100).Div(total) }
	cp, np, qp, up := share(t.comp), share(t.non), share(t.quest), share(t.unknown)
	r.CompliantWeightPct, r.NonCompliantWeightPct = cp.StringFixed(2), np.StringFixed(2)
	r.QuestionableWeightPct, r.UnknownWeightPct = qp.StringFixed(2), up.StringFixed(2)
	switch {
	case up.GreaterThanOrEqual(pct50):
		r.ComplianceStatus = "INSUFFICIENT_DATA"
	case np.Add(qp).LessThan(pct5) && up.LessThan(pct10):
		r.ComplianceStatus = "COMPLIANT"
	case np.GreaterThanOrEqual(pct33):
		r.ComplianceStatus = "NON_COMPLIANT"
	default:
		r.ComplianceStatus = "QUESTIONABLE"
	}
	switch r.ComplianceStatus {
	case "COMPLIANT":
		r.IsCompliant = boolp(true)
	case "NON_COMPLIANT", "QUESTIONABLE":
		r.IsCompliant = boolp(false)
	}
	r.DataSourceWeights = t.bySource.pct(total)
	r.PurificationCoverage = share(t.ratedWeight).StringFixed(2)
	if t.ratedWeight.IsPositive() {
		rate := t.rated.Div(t.ratedWeight).Round(6)
		r.PurificationFraction = num(rate)
		r.PurificationRate, r.PurificationRatePct = screening.PercentOf(r.PurificationFraction), screening.PercentOf(r.PurificationFraction)
	}
}

// Cached returns the stored look-through of an ETF under a ruleset, or ENOTFOUND.
func (e *Service) Cached(ctx context.Context, symbol, ruleset string) (Result, error) {
	rs, _, err := e.Screener.Rulesets.Resolve(ruleset, "")
	if err != nil {
		return Result{}, err
	}
	r, ok, err := e.Results.ETFResult(ctx, symbol, rs.Name)
	if err != nil {
		return Result{}, err
	}
	if !ok {
		return Result{}, shariah.Errorf(shariah.ENOTFOUND, "%s has not been screened under ruleset %s: POST /api/etf/%s/screen screens it.", symbol, rs.Name, symbol)
	}
	// Stored before the field existed, or under the earlier reading (mostly_compliant for every
	// QUESTIONABLE): the disposition follows from the stored verdict and weights.
	r.Disposition, r.Rule = Disposition(r), VerdictRule
	return r, nil
}

// CachedOrScreen returns the ETF's cached look-through, computing it when there is none.
func (e *Service) CachedOrScreen(ctx context.Context, symbol, ruleset string) (Result, error) {
	r, err := e.Cached(ctx, symbol, ruleset)
	if shariah.ErrorCode(err) == shariah.ENOTFOUND {
		r, err = e.Screen(ctx, symbol, ruleset, false)
	}
	return r, err
}

// sourceWeights accumulates weights by source.
type sourceWeights map[string]decimal.Decimal

func (w sourceWeights) pct(total decimal.Decimal) shariah.SourceWeights {
	p := func(s string) string { return w[s].Mul(d100).Div(total).StringFixed(2) }
	return shariah.SourceWeights{FiledPct: p(shariah.DataFiled), IllustrativePct: p(shariah.DataIllustrative), NoFundamentalsPct: p(shariah.DataNoFundamentals)}
}
