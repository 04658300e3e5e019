package shariah

import (
	"context"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
)

// LatestFundamentals picks the latest period, preferring a quarter over the FY of the same end; fs is
// oldest first and must not be empty.
func LatestFundamentals(fs []Fundamentals) Fundamentals {
	best := fs[len(fs)-1]
	for i := len(fs) - 2; i >= 0 && fs[i].PeriodEnd == best.PeriodEnd; i-- {
		if best.Period == "FY" {
			best = fs[i]
		}
	}
	return best
}

// Ratio names of BasicRatios (book-value ratios of one period, independent of the market price).
const (
	RatioDebtAssets      = "debt_to_assets"
	RatioCashAssets      = "cash_to_assets"
	RatioLiquidityAssets = "liquidity_to_assets" // (cash and securities + receivables) / total assets
	RatioInterestRevenue = "interest_to_revenue"
	RatioImpureRevenue   = "impure_to_revenue"
)

// RatioNames lists the ratios of BasicRatios in a stable order.
var RatioNames = []string{RatioDebtAssets, RatioCashAssets, RatioLiquidityAssets, RatioInterestRevenue, RatioImpureRevenue}

// BasicRatios computes a period's book-value ratios (8 decimal places); a ratio whose inputs are not
// on file is absent, never guessed. The trajectory and the peer percentiles both use it.
func BasicRatios(f Fundamentals) map[string]float64 {
	out := map[string]float64{}
	ratio := func(name string, num, den decimal.Decimal) {
		v, _ := num.DivRound(den, 8).Float64()
		out[name] = v
	}
	if ta, ok := f.Facts[TotalAssets]; ok && ta.Value.IsPositive() {
		if d, ok := f.Facts[TotalDebt]; ok {
			ratio(RatioDebtAssets, d.Value.Decimal, ta.Value.Decimal)
		}
		if cash, ok := f.Facts[CashAndSecurities]; ok {
			ratio(RatioCashAssets, cash.Value.Decimal, ta.Value.Decimal)
			if r, ok := f.Facts[Receivables]; ok {
				ratio(RatioLiquidityAssets, cash.Value.Decimal.Add(r.Value.Decimal), ta.Value.Decimal)
			}
		}
	}
	if rev, ok := f.Facts[TotalRevenue]; ok && rev.Value.IsPositive() {
		if i, ok := f.Facts[InterestIncome]; ok {
			ratio(RatioInterestRevenue, i.Value.Decimal, rev.Value.Decimal)
		}
		if im, ok := f.Facts[ImpureRevenue]; ok {
			ratio(RatioImpureRevenue, im.Value.Decimal, rev.Value.Decimal)
		}
	}
	return out
}

// Insights derives per-symbol insights from the reference data and screenings.
type Insights struct {
	Ref      RefReader
	Screener *Screener
	Catalogs *CatalogCache

	mu      sync.Mutex
	sectors map[string]*sectorRatios // lower-case sector -> latest ratios of its equities
}

// sectorRatios are the book ratios of a sector's equities, read once per reference-data version (and at
// most every sectorRatiosTTL), so percentile requests do not read every peer's fundamentals each time.
type sectorRatios struct {
	version int64
	at      time.Time
	bySym   map[string]peerRatios
}

type peerRatios struct {
	periodEnd    string
	ratios       map[string]float64
	illustrative bool
}

const sectorRatiosTTL = 10 * time.Minute

// sector returns the ratios of the equities of a's sector (a included), from the cache when current.
func (in *Insights) sector(ctx context.Context, cat *Catalog, a Asset) (map[string]peerRatios, error) {
	version, err := in.Ref.Version(ctx)
	if err != nil {
		return nil, err
	}
	key := strings.ToLower(a.Sector)
	in.mu.Lock()
	c := in.sectors[key]
	in.mu.Unlock()
	if c != nil && c.version == version && time.Since(c.at) < sectorRatiosTTL {
		return c.bySym, nil
	}
	peers := append(cat.SectorPeers(a), a)
	syms := make([]string, len(peers))
	for i, p := range peers {
		syms[i] = p.Symbol
	}
	many, err := in.Ref.FundamentalsMany(ctx, syms)
	if err != nil {
		return nil, err
	}
	bySym := make(map[string]peerRatios, len(many))
	for sym, fs := range many {
		if len(fs) == 0 {
			continue
		}
		l := LatestFundamentals(fs)
		bySym[sym] = peerRatios{periodEnd: l.PeriodEnd, ratios: BasicRatios(l), illustrative: illustrativeFacts(l)}
	}
	in.mu.Lock()
	if in.sectors == nil {
		in.sectors = map[string]*sectorRatios{}
	}
	in.sectors[key] = &sectorRatios{version: version, at: time.Now(), bySym: bySym}
	in.mu.Unlock()
	return bySym, nil
}

// Alternative is a compliant equity proposed in place of another.
type Alternative struct {
	Symbol           string  `json:"symbol"`
	Name             string  `json:"name"`
	Country          string  `json:"country"`
	Sector           string  `json:"sector"`
	Industry         string  `json:"industry"`
	MarketCap        *Number `json:"market_cap"`
	SameCountry      bool    `json:"same_country"`
	SameIndustry     bool    `json:"same_industry"`
	ComplianceStatus string  `json:"compliance_status"`
	Ruleset          string  `json:"ruleset"`
	Illustrative     bool    `json:"illustrative"`
}

// AlternativesResult answers GET /api/insights/{symbol}/alternatives.
type AlternativesResult struct {
	Symbol           string        `json:"symbol"`
	Sector           string        `json:"sector"`
	Country          string        `json:"country"`
	ComplianceStatus string        `json:"compliance_status"`
	Ruleset          string        `json:"ruleset"`
	Alternatives     []Alternative `json:"alternatives"`
	Ranking          string        `json:"ranking"`
	Considered       int           `json:"peers_considered"`
	Note             string        `json:"note,omitempty"`
}

// maxAlternativeScreens bounds the peers one request screens (most are cached after the first).
const maxAlternativeScreens = 300

// Alternatives ranks the compliant equities of the symbol's sector: same country first, then by
// market-cap proximity (|ln(cap/cap of the symbol)|; peers without a market cap last), then by symbol.
func (in *Insights) Alternatives(ctx context.Context, symbol string, opts ScreenOptions, limit int) (AlternativesResult, error) {
	self, _, err := in.Screener.Screen(ctx, symbol, opts)
	if err != nil {
		return AlternativesResult{}, err
	}
	cat, err := in.Catalogs.Get(ctx)
	if err != nil {
		return AlternativesResult{}, err
	}
	a, _ := cat.Lookup(self.Symbol)
	res := AlternativesResult{Symbol: a.Symbol, Sector: a.Sector, Country: a.Country, ComplianceStatus: self.ComplianceStatus,
		Ruleset: self.Ruleset.Name, Alternatives: []Alternative{},
		Ranking: "compliant equities of the same sector: same country first, then closest market cap"}
	peers := cat.SectorPeers(a)
	if len(peers) == 0 {
		res.Note = "No other equity of this sector is in the database."
		return res, nil
	}
	syms := make([]string, len(peers))
	for i, p := range peers {
		syms[i] = p.Symbol
	}
	syms = append(syms, a.Symbol)
	quotes, err := in.Ref.Quotes(ctx, syms)
	if err != nil {
		return AlternativesResult{}, err
	}
	capOf := func(sym string) (float64, bool) {
		q, ok := quotes[sym]
		if !ok || q.MarketCap == nil || !q.MarketCap.IsPositive() {
			return 0, false
		}
		f, _ := q.MarketCap.Float64()
		return f, true
	}
	own, hasOwn := capOf(a.Symbol)
	distance := func(p Asset) float64 {
		c, ok := capOf(p.Symbol)
		if !ok || !hasOwn {
			return math.Inf(1)
		}
		return math.Abs(math.Log(c / own))
	}
	sort.SliceStable(peers, func(i, j int) bool {
		si, sj := strings.EqualFold(peers[i].Country, a.Country), strings.EqualFold(peers[j].Country, a.Country)
		if si != sj {
			return si
		}
		return distance(peers[i]) < distance(peers[j])
	})
	for _, p := range peers {
		if len(res.Alternatives) >= limit || res.Considered >= maxAlternativeScreens {
			break
		}
		res.Considered++
		r, _, err := in.Screener.Screen(ctx, p.Symbol, ScreenOptions{Ruleset: opts.Ruleset, Methodology: opts.Methodology})
		if ErrorCode(err) == EVALIDATION || ErrorCode(err) == ENOTFOUND {
			continue
		}
		if err != nil {
			return AlternativesResult{}, err
		}
		if r.IsCompliant == nil || !*r.IsCompliant {
			continue
		}
		alt := Alternative{Symbol: p.Symbol, Name: p.Name, Country: p.Country, Sector: p.Sector, Industry: p.Industry,
			SameCountry: strings.EqualFold(p.Country, a.Country), SameIndustry: p.Industry != "" && strings.EqualFold(p.Industry, a.Industry),
			ComplianceStatus: r.ComplianceStatus, Ruleset: r.Ruleset.Name, Illustrative: r.DataQuality.Illustrative}
		if q, ok := quotes[p.Symbol]; ok {
			alt.MarketCap = q.MarketCap
		}
		res.Alternatives = append(res.Alternatives, alt)
	}
	if len(res.Alternatives) == 0 {
		res.Note = "No compliant equity found among the sector's peers considered."
	}
	return res, nil
}

// PeerPercentile places one ratio of a symbol among its sector peers.
type PeerPercentile struct {
	Value      *float64 `json:"value"`
	Percentile *float64 `json:"percentile"` // share of peers with a lower value (ties count half), 0-100
	PeerCount  int      `json:"peer_count"` // peers with this ratio on file
	Median     *float64 `json:"peer_median"`
	P25        *float64 `json:"peer_p25"`
	P75        *float64 `json:"peer_p75"`
}

// PeerPercentiles answers GET /api/insights/{symbol}/peer-percentiles.
type PeerPercentiles struct {
	Symbol            string                    `json:"symbol"`
	Sector            string                    `json:"sector"`
	PeriodEnd         string                    `json:"period_end"`
	Peers             int                       `json:"peers"`
	Ratios            map[string]PeerPercentile `json:"ratios"`
	Basis             string                    `json:"basis"`
	Illustrative      bool                      `json:"illustrative"`
	IllustrativePeers int                       `json:"illustrative_peers"`
	Note              string                    `json:"note,omitempty"`
}

func quantile(sorted []float64, q float64) *float64 {
	if len(sorted) == 0 {
		return nil
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	v := sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
	v = math.Round(v*1e8) / 1e8
	return &v
}

func illustrativeFacts(f Fundamentals) bool {
	for _, fact := range f.Facts {
		if fact.Source == SourceIllustrative {
			return true
		}
	}
	return false
}

// PeerPercentiles computes, from each sector peer's latest period, where each book ratio of the symbol
// sits (lower debt, interest and impure revenue are better for screening).
func (in *Insights) PeerPercentiles(ctx context.Context, symbol string) (PeerPercentiles, error) {
	cat, err := in.Catalogs.Get(ctx)
	if err != nil {
		return PeerPercentiles{}, err
	}
	a, err := in.Screener.ScreenableAsset(ctx, symbol)
	if err != nil {
		return PeerPercentiles{}, err
	}
	res := PeerPercentiles{Symbol: a.Symbol, Sector: a.Sector, Ratios: map[string]PeerPercentile{},
		Basis: "latest reported period of each equity of the sector; book-value ratios (debt, cash, cash + receivables over total assets; interest income and impure revenue over revenue)"}
	bySym, err := in.sector(ctx, cat, a)
	if err != nil {
		return PeerPercentiles{}, err
	}
	self, ok := bySym[a.Symbol]
	if !ok {
		fs, err := in.Ref.Fundamentals(ctx, a.Symbol) // a symbol without a sector is not in the cache
		if err != nil {
			return PeerPercentiles{}, err
		}
		if len(fs) == 0 {
			return PeerPercentiles{}, Errorf(ENOTFOUND, "No fundamentals on file for %s.", a.Symbol)
		}
		l := LatestFundamentals(fs)
		self = peerRatios{periodEnd: l.PeriodEnd, ratios: BasicRatios(l), illustrative: illustrativeFacts(l)}
	}
	res.PeriodEnd, res.Illustrative = self.periodEnd, self.illustrative
	own := self.ratios
	values := map[string][]float64{}
	for sym, p := range bySym {
		if sym == a.Symbol {
			continue
		}
		res.Peers++
		if p.illustrative {
			res.IllustrativePeers++
		}
		for k, v := range p.ratios {
			values[k] = append(values[k], v)
		}
	}
	for _, name := range RatioNames {
		vs := values[name]
		sort.Float64s(vs)
		pp := PeerPercentile{PeerCount: len(vs), Median: quantile(vs, 0.5), P25: quantile(vs, 0.25), P75: quantile(vs, 0.75)}
		if v, ok := own[name]; ok {
			v := v
			pp.Value = &v
			if len(vs) > 0 {
				below := sort.SearchFloat64s(vs, v)
				equal := sort.SearchFloat64s(vs, math.Nextafter(v, math.Inf(1))) - below
				p := math.Round((float64(below)+float64(equal)/2)/float64(len(vs))*10000) / 100
				pp.Percentile = &p
			}
		}
		res.Ratios[name] = pp
	}
	if res.Peers == 0 {
		res.Note = "No other equity of this sector has fundamentals on file."
	}
	return res, nil
}
