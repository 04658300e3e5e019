// Package insights holds what is read from a company's history and its peers rather than from one
// screening: the ratio trajectory of its quarters (trajectory.go) and across an index (trajectory
// analytics: drift toward a threshold, sector medians), peer percentiles, cash flow, and alternatives
// to a non-compliant holding. It imports the kernel and the screening.
package insights

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// LatestFundamentals picks the latest period, preferring a quarter over the FY of the same end; fs is
// oldest first and must not be empty.
func LatestFundamentals(fs []shariah.Fundamentals) shariah.Fundamentals {
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
func BasicRatios(f shariah.Fundamentals) map[string]float64 {
	out := map[string]float64{}
	ratio := func(name string, num, den decimal.Decimal) {
		v, _ := num.DivRound(den, 8).Float64()
		out[name] = v
	}
	if ta, ok := f.Facts[shariah.TotalAssets]; ok && ta.Value.IsPositive() {
		if d, ok := f.Facts[shariah.TotalDebt]; ok {
			ratio(RatioDebtAssets, d.Value.Decimal, ta.Value.Decimal)
		}
		if cash, ok := f.Facts[shariah.CashAndSecurities]; ok {
			ratio(RatioCashAssets, cash.Value.Decimal, ta.Value.Decimal)
			if r, ok := f.Facts[shariah.Receivables]; ok {
				ratio(RatioLiquidityAssets, cash.Value.Decimal.Add(r.Value.Decimal), ta.Value.Decimal)
			}
		}
	}
	if rev, ok := f.Facts[shariah.TotalRevenue]; ok && rev.Value.IsPositive() {
		if i, ok := f.Facts[shariah.InterestIncome]; ok {
			ratio(RatioInterestRevenue, i.Value.Decimal, rev.Value.Decimal)
		}
		if im, ok := f.Facts[shariah.ImpureRevenue]; ok {
			ratio(RatioImpureRevenue, im.Value.Decimal, rev.Value.Decimal)
		}
	}
	return out
}

// Reader is what the insights read of the reference store: the data version, fundamentals (of one
// symbol and of many) and the quotes of alternatives.
type Reader interface {
	Version(ctx context.Context) (int64, error)
	Fundamentals(ctx context.Context, symbol string) ([]shariah.Fundamentals, error)
	FundamentalsMany(ctx context.Context, symbols []string) (map[string][]shariah.Fundamentals, error)
	Quotes(ctx context.Context, symbols []string) (map[string]market.Quote, error)
}

// Insights derives per-symbol insights from the reference data and screenings.
type Service struct {
	Ref      Reader
	Screener *screening.Screener
	Catalogs *catalog.Cache

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
func (in *Service) sector(ctx context.Context, cat *catalog.Catalog, a shariah.Asset) (map[string]peerRatios, error) {
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
