package insights

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// Alternative is a compliant equity proposed in place of another.
type Alternative struct {
	Symbol           string          `json:"symbol"`
	Name             string          `json:"name"`
	Country          string          `json:"country"`
	Sector           string          `json:"sector"`
	Industry         string          `json:"industry"`
	MarketCap        *shariah.Number `json:"market_cap"`
	SameCountry      bool            `json:"same_country"`
	SameIndustry     bool            `json:"same_industry"`
	ComplianceStatus string          `json:"compliance_status"`
	Ruleset          string          `json:"ruleset"`
	Illustrative     bool            `json:"illustrative"`
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
func (in *Service) Alternatives(ctx context.Context, symbol string, opts screening.ScreenOptions, limit int) (AlternativesResult, error) {
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
	distance := func(p shariah.Asset) float64 {
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
		r, _, err := in.Screener.Screen(ctx, p.Symbol, screening.ScreenOptions{Ruleset: opts.Ruleset, Methodology: opts.Methodology})
		if shariah.ErrorCode(err) == shariah.EVALIDATION || shariah.ErrorCode(err) == shariah.ENOTFOUND {
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
