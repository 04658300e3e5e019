package screening

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// ResultStore holds cached screening results and a time-ordered index of their updates.
type ResultStore interface {
	// PutResult stores a result of a ruleset with the reference-data version its inputs had, and its
	// served body (ServeResult); when it replaces one whose verdicts differ (ChangeFrom), it records the
	// change in the change log (ChangeLog), without failing the write when that cannot be done then.
	PutResult(ctx context.Context, r Result, version int64) error
	Result(ctx context.Context, symbol, ruleset string) (Result, int64, bool, error)
	// ServedResult is a cached result's served body: as stored when it was stored under ResultVariant,
	// else encoded from the stored result (and stored beside it for the next read). The body is read
	// only. ok is false when the symbol was never screened under the ruleset.
	ServedResult(ctx context.Context, symbol, ruleset string) (shariah.StoredResult, bool, error)
	// Results lists every cached result of a ruleset, by symbol.
	Results(ctx context.Context, ruleset string) ([]Result, error)
	// UpdatedSince lists results written after since, oldest first.
	UpdatedSince(ctx context.Context, since time.Time, ruleset string) ([]Result, error)
	// Count is the number of cached screening results (every ruleset's), for the database stats.
	Count(ctx context.Context) (int64, error)
	// CountBySource counts the cached results by what their fundamentals stand on (DataSourceOf).
	CountBySource(ctx context.Context) (shariah.SourceCounts, error)
}

// ScreenOptions are the knobs of one screening request.
type ScreenOptions struct {
	Ruleset      string // empty: DefaultRuleset
	Methodology  string // empty: the overall rule; else that methodology decides
	ForceRefresh bool   // re-screen even when a fresh result is cached
	RunID        string // the bulk run asking, recorded on the result
}

// InputReader is what the screener reads of the reference store: the data version (which keeps a
// result fresh), a symbol's record, its fundamentals and its monthly candles.
type InputReader interface {
	Version(ctx context.Context) (int64, error)
	Asset(ctx context.Context, symbol string) (shariah.Asset, bool, error)
	Fundamentals(ctx context.Context, symbol string) ([]shariah.Fundamentals, error)
	Series(ctx context.Context, symbol, interval string) (shariah.Series, bool, error)
}

// Screener screens symbols: it reads the inputs from the reference store, runs the engine, attaches
// the disclaimers, and caches results in process and in the result store. A result stays fresh while
// the reference data keeps the version it was computed from (and at most MaxAge); a miss is computed
// once per symbol and ruleset even under concurrent requests. REST, jobs and MCP all screen through it.
type Screener struct {
	Ref         InputReader
	Results     ResultStore
	Rulesets    Rulesets
	Disclaimers func(ids ...string) []shariah.Disclaimer
	Now         func() time.Time
	MaxAge      time.Duration // 0: 24 hours
	MaxEntries  int           // in-process entries; 0: 5000

	mu  sync.Mutex
	mem map[memID]memEntry
	// newest is the latest ScreenedAt (Unix ns) of a result remembered so far: a result read from the
	// store screened at or after it has no newer one in memory, and rememberedAfter answers without the
	// lock (the usual case of every cached read).
	newest atomic.Int64
	sf     singleflight.Group
	// afterMiss, when set (tests), runs between a request's cache miss and its joining the flight.
	afterMiss func()
}

type memEntry struct {
	r       Result
	version int64
}

// NowUTC is the time of a screening: Now when set (tests), else the clock, in UTC.
func (s *Screener) NowUTC() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Screener) maxAge() time.Duration {
	if s.MaxAge > 0 {
		return s.MaxAge
	}
	return 24 * time.Hour
}

// ScreenableAsset resolves a symbol to a record that can be screened as a single stock.
func (s *Screener) ScreenableAsset(ctx context.Context, symbol string) (shariah.Asset, error) {
	a, ok, err := s.Ref.Asset(ctx, symbol)
	if err != nil {
		return shariah.Asset{}, err
	}
	if !ok {
		return shariah.Asset{}, catalog.UnknownSymbol(symbol)
	}
	if a.Type != shariah.Equity {
		var v shariah.Validation
		v.Add(fmt.Sprintf("%s is a %s: single-stock screening applies to equities (ETFs: POST /api/etf/%s/screen)", a.Symbol, a.Type, a.Symbol),
			"value_error.asset_type", "path", "symbol")
		return shariah.Asset{}, v.Err()
	}
	return a, nil
}

// Fresh reports whether a fresh cached result exists (the cheaper token price applies).
func (s *Screener) Fresh(ctx context.Context, symbol string, opts ScreenOptions) bool {
	rs, _, err := s.Rulesets.Resolve(opts.Ruleset, opts.Methodology)
	return err == nil && !opts.ForceRefresh && s.freshCached(ctx, symbol, rs.Name)
}

// freshCached reports whether a fresh result of the ruleset is cached: its served body, or the result.
func (s *Screener) freshCached(ctx context.Context, symbol, ruleset string) bool {
	if _, ok := s.servedFresh(ctx, symbol, ruleset); ok {
		return true
	}
	_, ok := s.cached(ctx, symbol, ruleset)
	return ok
}

// NeedsFresh reports whether a screening request is priced as a fresh computation (the "fresh" price of
// the token table): force_refresh, or no fresh result of its ruleset cached. POST/GET
// /api/screen/{symbol} and MCP's screen_stock both price by it. A request refused (an unknown ruleset)
// is not: it is refunded anyway.
func (s *Screener) NeedsFresh(ctx context.Context, symbol string, opts ScreenOptions) bool {
	if opts.ForceRefresh {
		return true
	}
	rs, _, err := s.Rulesets.Resolve(opts.Ruleset, opts.Methodology)
	return err == nil && !s.freshCached(ctx, symbol, rs.Name)
}

// ServedFresh is Screen's answer as stored, when it is one: the served body of a fresh cached result
// for a request of its default view. ok is false when the request needs anything else (force_refresh,
// a methodology's view, nothing fresh cached), and the caller screens (Screen) and encodes the result
// (ServeResult).
func (s *Screener) ServedFresh(ctx context.Context, symbol string, opts ScreenOptions) (shariah.Served, bool) {
	if opts.ForceRefresh || opts.Methodology != "" {
		return shariah.Served{}, false
	}
	rs, _, err := s.Rulesets.Resolve(opts.Ruleset, "")
	if err != nil {
		return shariah.Served{}, false
	}
	st, ok := s.servedFresh(ctx, symbol, rs.Name)
	return st.Served, ok
}

// servedFresh reads a cached result's served body and tells whether it is fresh. A result this process
// wrote after the one read is newer (the client-side cache has not yet heard of the write): the stored
// body is not the answer then.
func (s *Screener) servedFresh(ctx context.Context, symbol, ruleset string) (shariah.StoredResult, bool) {
	v, err := s.Ref.Version(ctx)
	if err != nil {
		return shariah.StoredResult{}, false
	}
	st, ok, err := s.Results.ServedResult(ctx, symbol, ruleset)
	if err != nil || !ok || st.Version != v || s.NowUTC().Sub(st.ScreenedAt) >= s.maxAge() || s.rememberedAfter(symbol, ruleset, st.ScreenedAt) {
		return shariah.StoredResult{}, false
	}
	return st, true
}

// rememberedAfter reports whether this process remembers a result of the symbol screened after at.
func (s *Screener) rememberedAfter(symbol, ruleset string, at time.Time) bool {
	if at.UnixNano() >= s.newest.Load() {
		return false
	}
	s.mu.Lock()
	e, ok := s.mem[memID{symbol, ruleset}]
	s.mu.Unlock()
	return ok && e.r.ScreenedAt.After(at)
}

// flightKey names a computation of a symbol's result under a ruleset (one flight at a time).
func flightKey(symbol, ruleset string) string { return symbol + "|" + ruleset }

// memID keys the screener's memory: a lookup builds no string (it runs on every cached read).
type memID struct{ symbol, ruleset string }

// cached returns a fresh cached result from memory or the store.
func (s *Screener) cached(ctx context.Context, symbol, ruleset string) (Result, bool) {
	v, err := s.Ref.Version(ctx)
	if err != nil {
		return Result{}, false
	}
	fresh := func(r Result, ver int64) bool { return ver == v && s.NowUTC().Sub(r.ScreenedAt) < s.maxAge() }
	s.mu.Lock()
	e, ok := s.mem[memID{symbol, ruleset}]
	s.mu.Unlock()
	if ok && fresh(e.r, e.version) {
		return e.r, true
	}
	r, ver, ok, err := s.Results.Result(ctx, symbol, ruleset)
	if err != nil || !ok || !fresh(r, ver) {
		return Result{}, false
	}
	s.remember(r, ver)
	return r, true
}

func (s *Screener) remember(r Result, version int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mem == nil {
		s.mem = map[memID]memEntry{}
	}
	limit := s.MaxEntries
	if limit <= 0 {
		limit = 5000
	}
	if len(s.mem) >= limit { // drop an arbitrary tenth: Go's map order is random
		n := 0
		for k := range s.mem {
			delete(s.mem, k)
			if n++; n >= limit/10+1 {
				break
			}
		}
	}
	s.mem[memID{r.Symbol, r.Ruleset.Name}] = memEntry{r: r, version: version}
	if ns := r.ScreenedAt.UnixNano(); ns > s.newest.Load() {
		s.newest.Store(ns) // under s.mu: no other store races it
	}
}

// Screen returns a symbol's screening result: cached when fresh (cached is true), else computed now.
func (s *Screener) Screen(ctx context.Context, symbol string, opts ScreenOptions) (Result, bool, error) {
	rs, m, err := s.Rulesets.Resolve(opts.Ruleset, opts.Methodology)
	if err != nil {
		return Result{}, false, err
	}
	if !opts.ForceRefresh {
		if r, ok := s.cached(ctx, symbol, rs.Name); ok {
			return r.View(rs, m), true, nil
		}
	}
	if s.afterMiss != nil {
		s.afterMiss()
	}
	key := flightKey(symbol, rs.Name)
	if opts.ForceRefresh {
		key += "|refresh"
	}
	v, err, _ := s.sf.Do(key, func() (any, error) {
		if !opts.ForceRefresh {
			// A flight that ended after this request's miss and before it joined has cached its result:
			// computing again would be a second computation of one miss (seen under load).
			if r, ok := s.cached(ctx, symbol, rs.Name); ok {
				return flight{r: r, cached: true}, nil
			}
		}
		r, err := s.compute(context.WithoutCancel(ctx), symbol, rs, opts.RunID)
		return flight{r: r}, err
	})
	if err != nil {
		return Result{}, false, err
	}
	f := v.(flight)
	return f.r.View(rs, m), f.cached, nil
}

// flight is what a screening's single flight returns: the result, and whether it was found cached.
type flight struct {
	r      Result
	cached bool
}

// compute reads the inputs, screens, and stores the result.
func (s *Screener) compute(ctx context.Context, symbol string, rs *Ruleset, runID string) (Result, error) {
	version, err := s.Ref.Version(ctx)
	if err != nil {
		return Result{}, err
	}
	a, err := s.ScreenableAsset(ctx, symbol)
	if err != nil {
		return Result{}, err
	}
	fs, err := s.Ref.Fundamentals(ctx, a.Symbol)
	if err != nil {
		return Result{}, err
	}
	in := ScreenInputs{Asset: a, Fundamentals: fs, Now: s.NowUTC()}
	if se, ok, err := s.Ref.Series(ctx, a.Symbol, "1mo"); err != nil {
		return Result{}, err
	} else if ok {
		in.Monthly, in.PriceSource = se.Bars, se.Source
	}
	r := Screen(in, rs, "")
	r.RunID = runID
	if s.Disclaimers != nil {
		ids := []string{"screening", "purification"}
		if r.DataQuality.Illustrative || len(r.DataQuality.MissingFields) > 0 {
			ids = append(ids, "market_data")
		}
		r.Disclaimers = s.Disclaimers(ids...)
	}
	if err := s.Results.PutResult(ctx, r, version); err != nil {
		return Result{}, err
	}
	s.remember(r, version)
	return r, nil
}

// Cached returns the stored result of a symbol regardless of freshness (GET /api/result/{symbol}),
// or ENOTFOUND when it was never screened under the ruleset.
func (s *Screener) Cached(ctx context.Context, symbol string, opts ScreenOptions) (Result, error) {
	rs, m, err := s.Rulesets.Resolve(opts.Ruleset, opts.Methodology)
	if err != nil {
		return Result{}, err
	}
	r, _, ok, err := s.Results.Result(ctx, symbol, rs.Name)
	if err != nil {
		return Result{}, err
	}
	if !ok {
		return Result{}, shariah.Errorf(shariah.ENOTFOUND, "%s has not been screened under ruleset %s: POST /api/screen/%s screens it.", symbol, rs.Name, symbol)
	}
	return r.View(rs, m), nil
}

// ServedCached is Cached's answer as stored, when it is one: the served body of the stored result
// (fresh or not) for a request of its default view. ok is false when the request needs a methodology's
// view, when nothing is stored (or the client-side cache has not yet heard of it), or when this process
// wrote a newer result than the one read; the caller then reads Cached (which says ENOTFOUND for a symbol
// never screened) and encodes it (ServeResult).
func (s *Screener) ServedCached(ctx context.Context, symbol string, opts ScreenOptions) (shariah.Served, bool, error) {
	rs, _, err := s.Rulesets.Resolve(opts.Ruleset, opts.Methodology)
	if err != nil || opts.Methodology != "" {
		return shariah.Served{}, false, err
	}
	st, ok, err := s.Results.ServedResult(ctx, symbol, rs.Name)
	if err != nil || !ok || s.rememberedAfter(symbol, rs.Name, st.ScreenedAt) {
		return shariah.Served{}, false, err
	}
	return st.Served, true, nil
}

// View returns the result as seen through one methodology (the overall verdict becomes that
// methodology's), or unchanged when methodology is empty.
func (r Result) View(rs *Ruleset, methodology string) Result {
	if methodology == "" {
		return r
	}
	m, ok := rs.Methodology(methodology)
	if !ok {
		return r
	}
	r.SetOverall(overall(rs, r.ByMethodology, methodology), m.Name)
	r.ComplianceExplanation = explain(rs, r, methodology)
	return r
}
