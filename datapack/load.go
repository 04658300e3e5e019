package datapack

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// Extras is what some public sources know beyond the pack's records, used to make illustrative
// fundamentals: market capitalisations (in the asset's currency) and size classes ("Large Cap", ...).
type Extras struct {
	MarketCaps map[string]decimal.Decimal
	CapClasses map[string]string
	// USDPer is units of each currency per USD (to convert size classes); from the pack's FX when nil.
	USDPer map[string]decimal.Decimal
}

// Report is what a load did.
type Report struct {
	Assets       int           `json:"assets"`
	Series       int           `json:"series"`
	Bars         int           `json:"bars"`
	Fundamentals int           `json:"fundamental_periods"`
	Illustrative int           `json:"illustrative_fundamentals"`
	Dividends    int           `json:"dividends"`
	Sukuk        int           `json:"sukuk"` // set by StoreSukuk's caller
	Indices      int           `json:"indices"`
	Holdings     int           `json:"holdings"`
	FX           int           `json:"fx_rates"`
	Metals       int           `json:"metal_prices"`
	Quotes       int           `json:"quotes"`
	Problems     []Problem     `json:"problems"`
	Notes        []string      `json:"notes"`
	Duration     time.Duration `json:"-"`
}

// Store is what a load reads and writes of the reference store: every write (the pack's records, the
// derived data, the version) and the reads that rebuild the derived data.
type Store interface {
	marketWriter
	referenceWriter
	derivedStore
	BumpVersion(ctx context.Context) (int64, error)
}

// marketWriter is what putMarket writes: assets, candles and fundamentals.
type marketWriter interface {
	PutAssets(ctx context.Context, assets []shariah.Asset) error
	PutSeries(ctx context.Context, s shariah.Series) error
	PutFundamentals(ctx context.Context, bySymbol map[string][]shariah.Fundamentals) error
}

// referenceWriter is what putReference writes: dividends, indices, ETF holdings, FX rates and metal
// prices.
type referenceWriter interface {
	PutDividends(ctx context.Context, symbol string, ds []shariah.Dividend) error
	PutIndex(ctx context.Context, ix catalog.IndexInfo) error
	PutHoldings(ctx context.Context, etf string, hs []shariah.Holding) error
	PutFX(ctx context.Context, rates []market.FXRate) error
	PutMetals(ctx context.Context, prices []market.MetalPrice) error
}

// derivedStore is what putDerived reads and writes: the quotes rebuilt from the candles, the
// illustrative fundamentals and the trending list.
type derivedStore interface {
	market.QuoteStore
	illustrativeStore
	trendingStore
}

// illustrativeStore is what fillIllustrative reads and writes: the records and fundamentals of the
// symbols it fills, and what their fundamentals stand on.
type illustrativeStore interface {
	AssetsMany(ctx context.Context, symbols []string) (map[string]shariah.Asset, error)
	FundamentalsMany(ctx context.Context, symbols []string) (map[string][]shariah.Fundamentals, error)
	PutFundamentals(ctx context.Context, bySymbol map[string][]shariah.Fundamentals) error
	MarkFundamentalsSources(ctx context.Context, bySymbol map[string]string) error
}

// trendingStore is what rebuildTrending reads and writes: the symbols with candles, their quotes and
// records, and the trending list.
type trendingStore interface {
	SeriesSymbols(ctx context.Context) ([]string, error)
	Quotes(ctx context.Context, symbols []string) (map[string]market.Quote, error)
	AssetsMany(ctx context.Context, symbols []string) (map[string]shariah.Asset, error)
	PutTrending(ctx context.Context, items []market.Trending) error
}

// Load writes a pack to the store: records merge with what is stored (so loading twice changes nothing
// and nothing stored before is lost), then the derived data is rebuilt for the symbols the pack
// touched: illustrative fundamentals for equities that have none, quotes from the latest candles, the
// trending list; finally the reference version is bumped so caches reload.
func Load(ctx context.Context, st Store, p *Pack, x Extras, now time.Time) (Report, error) {
	start := time.Now()
	rep := Report{Problems: p.Problems, Notes: p.Notes}
	touched, err := putMarket(ctx, st, p, &rep)
	if err == nil {
		err = putReference(ctx, st, p, &rep)
	}
	if err == nil {
		err = putDerived(ctx, st, p, x, touched, now, &rep)
	}
	if err != nil {
		return rep, err
	}
	if _, err := st.BumpVersion(ctx); err != nil {
		return rep, fmt.Errorf("version: %w", err)
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

// putMarket writes the pack's assets, candles and fundamentals and returns the symbols they touched.
func putMarket(ctx context.Context, st marketWriter, p *Pack, rep *Report) (map[string]bool, error) {
	assets := mergeAssets(p.Assets)
	if err := st.PutAssets(ctx, assets); err != nil {
		return nil, fmt.Errorf("assets: %w", err)
	}
	rep.Assets = len(assets)
	touched := map[string]bool{}
	for _, a := range assets {
		touched[a.Symbol] = true
	}
	for _, s := range p.Series {
		if len(s.Bars) == 0 {
			continue
		}
		if err := st.PutSeries(ctx, s); err != nil {
			return nil, fmt.Errorf("series %s: %w", s.Symbol, err)
		}
		rep.Series++
		rep.Bars += len(s.Bars)
		touched[s.Symbol] = true
	}
	funds := map[string][]shariah.Fundamentals{}
	for _, f := range p.Fundamentals {
		funds[f.Symbol] = append(funds[f.Symbol], f)
		touched[f.Symbol] = true
	}
	if len(funds) > 0 {
		if err := st.PutFundamentals(ctx, funds); err != nil {
			return nil, fmt.Errorf("fundamentals: %w", err)
		}
	}
	rep.Fundamentals = len(p.Fundamentals)
	return touched, nil
}

// putReference writes the pack's dividends, indices, ETF holdings, FX rates and metal prices.
func putReference(ctx context.Context, st referenceWriter, p *Pack, rep *Report) error {
	divs := map[string][]shariah.Dividend{}
	for _, d := range p.Dividends {
		divs[d.Symbol] = append(divs[d.Symbol], d)
	}
	for sym, ds := range divs {
		if err := st.PutDividends(ctx, sym, ds); err != nil {
			return fmt.Errorf("dividends %s: %w", sym, err)
		}
	}
	rep.Dividends = len(p.Dividends)
	for _, ix := range mergeIndices(p.Indices) {
		if err := st.PutIndex(ctx, ix); err != nil {
			return fmt.Errorf("index %s: %w", ix.Name, err)
		}
		rep.Indices++
	}
	hold := map[string][]shariah.Holding{}
	for _, h := range p.Holdings {
		hold[h.ETF] = append(hold[h.ETF], h)
	}
	for etf, hs := range hold {
		if err := st.PutHoldings(ctx, etf, hs); err != nil {
			return fmt.Errorf("holdings %s: %w", etf, err)
		}
	}
	rep.Holdings = len(p.Holdings)
	if len(p.FX) > 0 {
		if err := st.PutFX(ctx, p.FX); err != nil {
			return fmt.Errorf("fx: %w", err)
		}
	}
	rep.FX = len(p.FX)
	if len(p.Metals) > 0 {
		if err := st.PutMetals(ctx, p.Metals); err != nil {
			return fmt.Errorf("metals: %w", err)
		}
	}
	rep.Metals = len(p.Metals)
	return nil
}

// putDerived rebuilds the derived data for what this load touched: quotes for the symbols with candles
// whose candles or shares outstanding may have changed, illustrative fundamentals for the touched
// equities, and the trending list.
func putDerived(ctx context.Context, st derivedStore, p *Pack, x Extras, touched map[string]bool, now time.Time, rep *Report) error {
	syms := make([]string, 0, len(touched))
	for s := range touched {
		syms = append(syms, s)
	}
	sort.Strings(syms)
	withSeries, err := st.SeriesSymbols(ctx)
	if err != nil {
		return fmt.Errorf("series symbols: %w", err)
	}
	quotes := map[string]market.Quote{}
	for _, sym := range withSeries {
		if !touched[sym] {
			continue
		}
		q, ok, err := market.QuoteFromStore(ctx, st, sym)
		if err != nil {
			return fmt.Errorf("quote %s: %w", sym, err)
		}
		if ok {
			quotes[sym] = q
		}
	}
	n, err := fillIllustrative(ctx, st, syms, quotes, x, p.FX, now)
	if err != nil {
		return fmt.Errorf("illustrative fundamentals: %w", err)
	}
	rep.Illustrative = n
	for sym, q := range quotes {
		if err := market.FinishQuote(ctx, st, &q); err != nil {
			return fmt.Errorf("quote %s: %w", sym, err)
		}
		if err := st.PutQuote(ctx, q); err != nil {
			return fmt.Errorf("quote %s: %w", sym, err)
		}
	}
	rep.Quotes = len(quotes)
	if len(quotes) > 0 {
		if err := rebuildTrending(ctx, st); err != nil {
			return fmt.Errorf("trending: %w", err)
		}
	}
	return nil
}

// mergeAssets merges records of one symbol from several sources (the first listed wins per field).
func mergeAssets(in []shariah.Asset) []shariah.Asset {
	idx := map[string]int{}
	var out []shariah.Asset
	for _, a := range in {
		if i, ok := idx[a.Symbol]; ok {
			out[i] = out[i].Merge(a)
			continue
		}
		idx[a.Symbol] = len(out)
		out = append(out, a)
	}
	return out
}

// mergeIndices keeps the first description of an index and the first non-empty constituent list.
func mergeIndices(in []catalog.IndexInfo) []catalog.IndexInfo {
	idx := map[string]int{}
	var out []catalog.IndexInfo
	for _, ix := range in {
		i, ok := idx[ix.Name]
		if !ok {
			idx[ix.Name] = len(out)
			out = append(out, ix)
			continue
		}
		if len(out[i].Symbols) == 0 {
			out[i].Symbols = ix.Symbols
		}
	}
	return out
}

// fillIllustrative completes, for the equities among syms with no filed (or live) fundamentals, the
// screening inputs they lack with illustrative values from their sector and market cap. The market cap
// is shares outstanding on file x last close when both are known, else the best estimate. Fields on
// file are never overwritten, so a second load changes nothing. Works in chunks to bound memory.
func fillIllustrative(ctx context.Context, st illustrativeStore, syms []string, quotes map[string]market.Quote, x Extras, fx []market.FXRate, now time.Time) (int, error) {
	perUSD := x.USDPer
	if perUSD == nil {
		perUSD = map[string]decimal.Decimal{}
		for _, r := range fx {
			perUSD[r.Currency] = r.PerUSD.Decimal
		}
	}
	made := 0
	for start := 0; start < len(syms); start += 2000 {
		part := syms[start:min(start+2000, len(syms))]
		have, err := st.FundamentalsMany(ctx, part)
		if err != nil {
			return made, err
		}
		assets, err := st.AssetsMany(ctx, part)
		if err != nil {
			return made, err
		}
		out := map[string][]shariah.Fundamentals{}
		kept := map[string]string{} // symbols not rewritten here: their source, for the stats' counts
		for _, sym := range part {
			if src := shariah.FundamentalsSourceOf(have[sym]); src != shariah.DataNoFundamentals {
				kept[sym] = src
			}
			a, ok := assets[sym]
			if !ok || a.Type != shariah.Equity {
				continue
			}
			f, ok, err := illustrativeFor(a, have[sym], quotes, x, perUSD, now)
			if err != nil {
				return made, err
			}
			if ok {
				out[sym] = []shariah.Fundamentals{f}
			}
		}
		if len(out) > 0 {
			if err := st.PutFundamentals(ctx, out); err != nil {
				return made, err
			}
			made += len(out)
		}
		for sym := range out {
			delete(kept, sym) // PutFundamentals marked them
		}
		if err := st.MarkFundamentalsSources(ctx, kept); err != nil {
			return made, err
		}
	}
	return made, nil
}

// illustrativeFor returns the illustrative facts to add for one symbol, if any.
func illustrativeFor(a shariah.Asset, have []shariah.Fundamentals, quotes map[string]market.Quote, x Extras, perUSD map[string]decimal.Decimal, now time.Time) (shariah.Fundamentals, bool, error) {
	sym := a.Symbol
	for _, f := range have {
		for _, fact := range f.Facts {
			if fact.Source == shariah.SourceFiling || fact.Source == shariah.SourceLive {
				return shariah.Fundamentals{}, false, nil // real data: never mixed with made-up values
			}
		}
	}
	var latest *shariah.Fundamentals
	if len(have) > 0 {
		latest = &have[len(have)-1]
		missing := false
		for _, field := range shariah.Fields {
			if _, ok := latest.Facts[field]; !ok {
				missing = true
			}
		}
		if !missing {
			return shariah.Fundamentals{}, false, nil
		}
	}
	q, hasQuote := quotes[sym]
	asOf := now
	if hasQuote {
		if t, err := time.Parse("2006-01-02", q.AsOf); err == nil {
			asOf = t
		}
	}
	var close shariah.Price
	if hasQuote {
		close = q.Price
	}
	cap, basis := estimateCap(a, x, perUSD)
	if latest != nil {
		if sh, ok := latest.Facts[shariah.SharesOutstanding]; ok && close > 0 {
			cap = sh.Value.Decimal.Mul(decimal.New(int64(close), -6))
			basis = "shares outstanding on file x last close " + close.String()
		}
	}
	f := screening.IllustrativeFundamentals(a, cap, basis, close, asOf)
	if latest != nil { // add only what the period on file lacks
		f.PeriodEnd, f.Period, f.FiscalYear = latest.PeriodEnd, latest.Period, latest.FiscalYear
		for field := range latest.Facts {
			delete(f.Facts, field)
		}
	}
	return f, len(f.Facts) > 0, nil
}

// estimateCap picks the best market-cap estimate for an asset and says what it is based on.
func estimateCap(a shariah.Asset, x Extras, perUSD map[string]decimal.Decimal) (decimal.Decimal, string) {
	if c, ok := x.MarketCaps[a.Symbol]; ok && c.IsPositive() {
		return c, "market cap from a public snapshot"
	}
	toLocal := func(usd int64) (decimal.Decimal, string) {
		v := decimal.NewFromInt(usd)
		if a.Currency != "" && a.Currency != "USD" {
			if r, ok := perUSD[a.Currency]; ok && r.IsPositive() {
				return v.Mul(r), "converted at " + r.String() + " " + a.Currency + "/USD"
			}
			return v, "in USD: no rate for " + a.Currency
		}
		return v, ""
	}
	if cls, ok := x.CapClasses[a.Symbol]; ok {
		if usd, ok := screening.CapClassUSD[strings.ToLower(cls)]; ok {
			v, conv := toLocal(usd)
			return v, strings.TrimSuffix("typical "+cls+" size; "+conv, "; ")
		}
	}
	v, conv := toLocal(screening.CapClassUSD["small cap"])
	return v, strings.TrimSuffix("market cap unknown: assumed small cap; "+conv, "; ")
}

// rebuildTrending ranks every quoted symbol (market.RankTrending) and stores the list.
func rebuildTrending(ctx context.Context, st trendingStore) error {
	syms, err := st.SeriesSymbols(ctx)
	if err != nil {
		return err
	}
	qs, err := st.Quotes(ctx, syms)
	if err != nil {
		return err
	}
	all := make([]market.Quote, 0, len(qs))
	for _, q := range qs {
		all = append(all, q)
	}
	assets, err := st.AssetsMany(ctx, syms)
	if err != nil {
		return err
	}
	return st.PutTrending(ctx, market.RankTrending(all, assets))
}
