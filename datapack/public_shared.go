package datapack

// ReadShared assembles every reader of the real public data formats over the shared data root
// (../shared/data in development; the README and SOURCES.md files there describe each file).

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/shariah-screen/shariah/catalog"
)

// Paths of the public files, relative to the shared data root.
const (
	PathSP500Constituents = "indices/sp500-datasets/constituents.csv"
	PathYfiuaDir          = "indices/yfiua"
	PathNifty50           = "indices/unlicensed-facts/ind_nifty50list.csv"
	PathPyTickerSymbols   = "indices/pytickersymbols/stocks.yaml"
	PathN225Yearly        = "prices/janzen-alpha/Yearly_full_constituents_list/N225_yearly_full_constituents_2010to2025.csv"
	PathFinanceDBEquities = "reference/financedatabase/equities-compact.csv"
	PathFinanceDBETFs     = "reference/financedatabase/etfs-compact.csv"
	PathNasdaqListed      = "reference/nasdaq-listings/nasdaq-listed-symbols.csv"
	PathOtherListed       = "reference/nyse-other-listings/other-listed.csv"
	PathJanzenDir         = "prices/janzen-alpha"
	PathSPUSHoldings      = "etf/sp-funds/spus-holdings-2026-07-17.csv"
	PathGoldMonthly       = "market/gold-prices/monthly.csv"
	PathFXMonthly         = "market/exchange-rates/monthly.csv"
	PathSP500Financials   = "fundamentals/sp500-financials-datasets/constituents-financials.csv"
)

// closeMatrixYears are the years of the staged constituent close matrices.
var closeMatrixYears = []string{"2023", "2024", "2025"}

// closeMatrices are the staged constituent close matrices: name prefix and ticker suffix.
var closeMatrices = []struct{ prefix, suffix string }{
	{"SP500", ""}, {"N225", ".T"}, {"FTSE100", ""},
}

// SharedExtras carries what ReadShared reads besides the Pack.
type SharedExtras struct {
	// MarketCapCategory is FinanceDatabase's market-cap category by symbol (Mega Cap ... Nano Cap).
	MarketCapCategory map[string]string
	// Snapshots are the S&P 500 constituents' price and market cap by symbol.
	Snapshots map[string]MarketSnapshot
}

// sharedTask is one reader run by ReadShared.
type sharedTask struct {
	files []string // the files it reads (the first names it in Notes and Problems)
	// indexRank orders the sources of an index's membership: the lowest rank with a list wins.
	indexRank int
	run       func() (*Pack, error)
	pack      *Pack
	err       error
}

// Index membership precedence, when several sources list one index: the most current list wins.
// sp500-datasets (2026-08) before yfiua's current lists (2026-07), then the single-source lists
// (Janzen-Alpha's latest year for the Nikkei 225, NSE's NIFTY 50, FinanceDatabase's Saudi Exchange
// equities for TASI), and pytickersymbols last: it is rebuilt from Wikipedia and lags (it still lists
// companies that left the S&P 500), so it only supplies the indices nobody else lists (SP100, MDAX,
// TECDAX, CAC40, EUROSTOXX50, IBEX35, AEX, SMI, OMXS30, BEL20).
const (
	rankSP500Constituents = iota
	rankYfiua
	rankSingleSource
	rankPyTickerSymbols
)

// ReadShared reads every public file it knows under fsys (the shared data root) into one Pack:
//
//   - Assets merged by canonical symbol with shariah.Asset.Merge, first source wins per field:
//     sp500-constituents, pytickersymbols, financedatabase (equities, then ETFs), the Nasdaq Trader
//     listings (nasdaq, then other), the NIFTY 50 list, then the bare records of the index lists
//     (yfiua names, Nikkei 225 codes) for members no directory has, and the index records of the
//     index price files;
//     except the exchange of a US listing, which the Nasdaq Trader directories decide (they are the
//     current listings; FinanceDatabase has BRK/B on ASE, NYSE American);
//   - Indices: one IndexInfo per index, from the most current source (see rankSP500Constituents);
//   - Series of the constituent close matrices and the index OHLC files, daily and monthly;
//   - Holdings of SPUS, monthly gold prices and the latest FX rate per currency;
//   - in SharedExtras, FinanceDatabase's market-cap categories and the S&P 500 price/market-cap
//     snapshots.
//
// A missing file is a Note; a file that cannot be read otherwise is a Problem. The error is set only
// when fsys is nil or none of the files is there (a wrong data root). The readers run concurrently;
// the result does not depend on their timing.
func ReadShared(fsys fs.FS) (*Pack, SharedExtras, error) {
	extras := SharedExtras{MarketCapCategory: map[string]string{}, Snapshots: map[string]MarketSnapshot{}}
	if fsys == nil {
		return &Pack{}, extras, errors.New("datapack: no data root")
	}
	r := newSharedRead(fsys)
	runSharedTasks(r.tasks)
	if n := reconcileByISIN(r.pyts.pack, r.fdb.pack); n > 0 {
		r.pyts.pack.pubNotef("%s: %d symbols replaced by FinanceDatabase's home-market listing of the same ISIN",
			PathPyTickerSymbols, n)
	}
	if r.caps != nil {
		extras.MarketCapCategory = r.caps
	}
	if r.snaps != nil {
		extras.Snapshots = r.snaps
	}
	out, best, found, records := mergeSharedTasks(r.tasks)
	if found == 0 {
		return out, extras, errors.New("datapack: none of the public data files is under the data root")
	}
	if fixed := fixUSExchanges(out, r.nasdaq, r.other); fixed > 0 {
		out.pubNotef("%d US exchanges taken from the Nasdaq Trader listings over FinanceDatabase's", fixed)
	}
	sort.Slice(out.Assets, func(i, j int) bool { return out.Assets[i].Symbol < out.Assets[j].Symbol })
	for _, k := range catalog.KnownIndices {
		if c, ok := best[k.Name]; ok {
			out.Indices = append(out.Indices, c.info)
			out.pubNotef("index %s: %d constituents from %s", k.Name, len(c.info.Symbols), c.info.Source)
		}
	}
	out.pubNotef("%d assets merged from %d records", len(out.Assets), records)
	return out, extras, nil
}

// sharedRead is the set of readers of the shared data root, with the tasks ReadShared reconciles after
// they ran and the extras two of them return.
type sharedRead struct {
	fsys                     fs.FS
	tasks                    []*sharedTask
	pyts, fdb, nasdaq, other *sharedTask
	caps                     map[string]string
	snaps                    map[string]MarketSnapshot
}

func (r *sharedRead) one(file string, rank int, read func(fs.FS, string) (*Pack, error)) *sharedTask {
	return &sharedTask{files: []string{file}, indexRank: rank, run: func() (*Pack, error) { return read(r.fsys, file) }}
}

// newSharedRead lists every reader of the shared data root, in the order their records merge.
func newSharedRead(fsys fs.FS) *sharedRead {
	r := &sharedRead{fsys: fsys}
	r.pyts = r.one(PathPyTickerSymbols, rankPyTickerSymbols, ReadPyTickerSymbols)
	r.fdb = &sharedTask{files: []string{PathFinanceDBEquities}, indexRank: rankSingleSource, run: func() (p *Pack, err error) {
		p, r.caps, err = ReadFinanceDBEquities(fsys, PathFinanceDBEquities)
		return p, err
	}}
	r.nasdaq = r.one(PathNasdaqListed, rankSingleSource, ReadNasdaqListed)
	r.other = r.one(PathOtherListed, rankSingleSource, ReadOtherListed)
	r.tasks = []*sharedTask{
		r.one(PathSP500Constituents, rankSP500Constituents, ReadSP500Constituents),
		r.pyts,
		r.fdb,
		r.one(PathFinanceDBETFs, rankSingleSource, ReadFinanceDBETFs),
		r.nasdaq,
		r.other,
		r.one(PathNifty50, rankSingleSource, ReadNifty50),
	}
	codes := make([]string, 0, len(YfiuaIndices))
	for code := range YfiuaIndices {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	for _, code := range codes {
		r.tasks = append(r.tasks, r.one(PathYfiuaDir+"/constituents-"+code+".csv", rankYfiua, ReadYfiuaConstituents))
	}
	r.tasks = append(r.tasks, r.one(PathN225Yearly, rankSingleSource, func(fsys fs.FS, file string) (*Pack, error) {
		return ReadYearlyMembership(fsys, file, "NIKKEI225", ".T")
	}))
	for _, m := range closeMatrices {
		r.tasks = append(r.tasks, closeMatrixTask(fsys, m.prefix, m.suffix))
	}
	keys := make([]string, 0, len(JanzenIndices))
	for k := range JanzenIndices {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ix := JanzenIndices[k]
		r.tasks = append(r.tasks, r.one(PathJanzenDir+"/index-benchmark-data/"+k+"_daily.csv", rankSingleSource,
			func(fsys fs.FS, file string) (*Pack, error) { return ReadIndexDaily(fsys, file, ix) }))
	}
	r.tasks = append(r.tasks,
		r.one(PathSPUSHoldings, rankSingleSource, ReadSPFundsHoldings),
		r.one(PathGoldMonthly, rankSingleSource, ReadGoldMonthly),
		r.one(PathFXMonthly, rankSingleSource, ReadFedFXMonthly),
		&sharedTask{files: []string{PathSP500Financials}, indexRank: rankSingleSource, run: func() (p *Pack, err error) {
			p, r.snaps, err = ReadSP500Financials(fsys, PathSP500Financials)
			return p, err
		}},
	)
	return r
}

// closeMatrixTask reads one index's yearly close matrices (the years present; none present is a missing
// source).
func closeMatrixTask(fsys fs.FS, prefix, suffix string) *sharedTask {
	var files []string
	for _, y := range closeMatrixYears {
		files = append(files, fmt.Sprintf("%s/%s_constituents_close_2010to2025/%s_constituents_close_%s.csv",
			PathJanzenDir, prefix, prefix, y))
	}
	t := &sharedTask{files: files, indexRank: rankSingleSource}
	t.run = func() (*Pack, error) {
		var present []string
		p := &Pack{}
		for _, f := range t.files {
			if _, err := fs.Stat(fsys, f); errors.Is(err, fs.ErrNotExist) {
				p.pubNotef("%s: not present, skipped", f)
				continue
			}
			present = append(present, f)
		}
		if len(present) == 0 {
			return &Pack{}, fs.ErrNotExist
		}
		q, err := ReadCloseMatrices(fsys, present, suffix)
		p.Add(q)
		p.pubNotef("%s: closes are Yahoo's dividend-adjusted closes, not the traded ones", present[0])
		if prefix == "FTSE100" {
			p.pubNotef("%s: London closes are in pence (GBX), the assets' currency is GBP", present[0])
		}
		return p, err
	}
	return t
}

// runSharedTasks runs every reader at once; a reader that panics fails alone.
func runSharedTasks(tasks []*sharedTask) {
	var wg sync.WaitGroup
	for _, t := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil { // a reader bug must not take the process down
					t.pack, t.err = &Pack{}, fmt.Errorf("reader failed: %v", r)
				}
			}()
			t.pack, t.err = t.run()
			if t.pack == nil {
				t.pack = &Pack{}
			}
		}()
	}
	wg.Wait()
}

// indexCandidate is an index's constituents as one source gives them, with the source's rank.
type indexCandidate struct {
	info catalog.IndexInfo
	rank int
}

// mergeSharedTasks merges the readers' packs in task order: assets by symbol, each index from its
// best-ranked source, everything else appended. found counts the sources present, records the asset
// records read.
func mergeSharedTasks(tasks []*sharedTask) (out *Pack, best map[string]indexCandidate, found, records int) {
	out = &Pack{}
	merged := map[string]int{} // symbol -> index in out.Assets
	best = map[string]indexCandidate{}
	for _, t := range tasks {
		switch {
		case t.err == nil:
			found++
		case errors.Is(t.err, fs.ErrNotExist):
			out.pubNotef("%s: not present, skipped", strings.Join(t.files, ", "))
		default:
			found++
			out.Problemf(t.files[0], 0, "%v", t.err)
		}
		p := t.pack
		for _, a := range p.Assets {
			records++
			if i, ok := merged[a.Symbol]; ok {
				out.Assets[i] = out.Assets[i].Merge(a)
				continue
			}
			merged[a.Symbol] = len(out.Assets)
			out.Assets = append(out.Assets, a)
		}
		for _, ix := range p.Indices {
			if c, ok := best[ix.Name]; !ok || t.indexRank < c.rank {
				best[ix.Name] = indexCandidate{ix, t.indexRank}
			}
		}
		out.Fundamentals = append(out.Fundamentals, p.Fundamentals...)
		out.Series = append(out.Series, p.Series...)
		out.Dividends = append(out.Dividends, p.Dividends...)
		out.Holdings = append(out.Holdings, p.Holdings...)
		out.FX = append(out.FX, p.FX...)
		out.Metals = append(out.Metals, p.Metals...)
		out.Problems = append(out.Problems, p.Problems...)
		out.Notes = append(out.Notes, p.Notes...)
	}
	return out, best, found, records
}

// fixUSExchanges takes the US exchange from the Nasdaq Trader directories, the current US listings,
// over FinanceDatabase's codes, which are stale for some (BRK/B under ASE, NYSE American). It returns
// how many changed.
func fixUSExchanges(out *Pack, tasks ...*sharedTask) int {
	listed := map[string]string{}
	for _, t := range tasks {
		for _, a := range t.pack.Assets {
			if a.Exchange != "" {
				listed[a.Symbol] = a.Exchange
			}
		}
	}
	fixed := 0
	for i := range out.Assets {
		if ex, ok := listed[out.Assets[i].Symbol]; ok && out.Assets[i].Exchange != ex {
			out.Assets[i].Exchange = ex
			fixed++
		}
	}
	return fixed
}

// reconcileByISIN corrects pytickersymbols symbols that FinanceDatabase does not know (stale tickers,
// OTC codes under a home suffix: GSEFF.PA for Covivio, Frankfurt fallbacks: DJDA.F for D'Ieteren) when
// FinanceDatabase lists the company's ISIN under exactly one symbol of the same market (of the
// country's market for a Frankfurt symbol). FinanceDatabase repeats an ISIN on every venue of a company
// (Brazilian BDRs, London's international order book), hence the market condition. Index membership
// follows the new symbols. It returns how many symbols changed.
func reconcileByISIN(py, fdb *Pack) int {
	if py == nil || fdb == nil || len(py.Assets) == 0 || len(fdb.Assets) == 0 {
		return 0
	}
	known := make(map[string]bool, len(fdb.Assets))
	byISIN := map[string][]string{}
	for _, a := range fdb.Assets {
		known[a.Symbol] = true
		if a.ISIN != "" {
			byISIN[a.ISIN] = append(byISIN[a.ISIN], a.Symbol)
		}
	}
	taken := make(map[string]bool, len(py.Assets))
	for _, a := range py.Assets {
		taken[a.Symbol] = true
	}
	rename := map[string]string{}
	for i, a := range py.Assets {
		dot := strings.LastIndexByte(a.Symbol, '.')
		if a.ISIN == "" || dot < 0 || known[a.Symbol] {
			continue
		}
		suffix := a.Symbol[dot:]
		if suffix == ".F" {
			h, ok := ptsCountryHome[a.Country]
			if !ok || h == "" {
				continue
			}
			suffix = h
		}
		var match []string
		for _, s := range byISIN[a.ISIN] {
			if strings.HasSuffix(s, suffix) && !ptsIOB(s) {
				match = append(match, s)
			}
		}
		if len(match) != 1 || taken[match[0]] {
			continue
		}
		taken[match[0]] = true
		rename[a.Symbol] = match[0]
		py.Assets[i].Symbol = match[0]
	}
	for i := range py.Indices {
		for j, s := range py.Indices[i].Symbols {
			if n, ok := rename[s]; ok {
				py.Indices[i].Symbols[j] = n
			}
		}
	}
	return len(rename)
}
