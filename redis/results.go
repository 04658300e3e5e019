package redis

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/etf"
	"github.com/shariah-screen/shariah/screening"
)

// ResultStore implements screening.ResultStore, and screening.ChangeLog: the changes its writes record
// (changes.go).
type ResultStore struct {
	c rueidis.Client
	// cacheTTL, when set, serves ServedResult from rueidis's client-side cache (see RefStore).
	cacheTTL time.Duration
	// memo, in a cached store, remembers the results parsed from the cache's values (parsed_memo.go).
	memo      *parsedMemo[shariah.StoredResult]
	retention time.Duration    // of the change log; 0: DefaultChangeRetention
	now       func() time.Time // the retention's clock (tests); nil: time.Now
	changeErr func(error)      // hears of a change not recorded (OnChangeError)
}

var _ screening.ResultStore = (*ResultStore)(nil)

// NewResultStore returns the result store over the client.
func NewResultStore(c rueidis.Client) *ResultStore { return &ResultStore{c: c} }

// Cached returns a copy of the store that serves ServedResult from the client-side cache (for the
// processes that serve cached screenings).
func (s *ResultStore) Cached(ttl time.Duration) *ResultStore {
	c := *s
	c.cacheTTL = ttl
	c.memo = nil
	if ttl > 0 {
		c.memo = newParsedMemo[shariah.StoredResult]()
	}
	return &c
}

// storedResult is how a result decodes from its key (the served header, when present, is skipped).
type storedResult struct {
	Version int64            `json:"version"`
	Result  screening.Result `json:"result"`
}

// decodeResult reads a stored result value as the current format (upgradeResult).
func decodeResult(b []byte) (storedResult, error) {
	var sr storedResult
	if err := json.Unmarshal(b, &sr); err != nil {
		return storedResult{}, err
	}
	upgradeResult(&sr.Result)
	return sr, nil
}

// upgradeResult brings a result stored before the client-ecosystem fields existed up to date:
// by_methodology re-keyed by MethodologyKey with each entry's is_compliant, status and disposition, the
// purification rate from a fraction to percent, data_quality.methodologies_insufficient and the fields
// derived from the overall verdict. Sector, industry, market cap and the flat ratios need the inputs:
// they stay null until the result is screened again. The three purification fields are derived from
// the stored fraction (SetPurificationFraction), as the engine derives them; a current result is
// otherwise left as it is.
func upgradeResult(r *screening.Result) {
	if r.ByMethodology != nil {
		by := make(map[string]screening.MethodologyResult, len(r.ByMethodology))
		for k, mr := range r.ByMethodology {
			if mr.Methodology != "" {
				k = screening.MethodologyKey(mr.Methodology)
			}
			if mr.Status == "" {
				mr.IsCompliant, mr.Status, mr.Disposition = screening.VerdictBool(mr.Verdict), mr.Verdict, mr.Verdict
			}
			by[k] = mr
		}
		r.ByMethodology = by
	}
	fraction := r.PurificationFraction
	if fraction == nil {
		fraction = r.PurificationRate // stored as a fraction: purification_rate_fraction did not exist yet
	}
	r.SetPurificationFraction(fraction)
	if r.DataQuality.MethodologiesInsufficient == nil {
		r.DataQuality.MethodologiesInsufficient = screening.InsufficientOf(r.ByMethodology)
	}
	if r.DataQuality.Bounded == nil {
		r.DataQuality.Bounded = []screening.BoundedInput{} // stored before bounds existed: none
	}
	if r.VerdictMethodology == "" {
		// Stored when is_compliant was true only for COMPLIANT: it follows one methodology now.
		if m := legacyVerdictMethodology(r); m != "" {
			r.SetYesNo(m)
			r.DeriveOverall()
		}
	}
	if r.ShariahStatus == "" {
		r.DeriveOverall()
	}
}

// legacyPrimary is the primary methodology id of every ruleset with several methodologies when
// verdict_methodology was introduced (spec's AAOIFI): what a result stored before it is read with.
const legacyPrimary = "aaoifi"

// legacyVerdictMethodology is the methodology a result stored before verdict_methodology existed
// follows: the one it is seen through, its only one, or its ruleset's primary then (legacyPrimary).
func legacyVerdictMethodology(r *screening.Result) string {
	if r.Methodology != "" {
		return r.Methodology
	}
	for _, mr := range r.ByMethodology {
		if len(r.ByMethodology) == 1 || mr.ID == legacyPrimary {
			return mr.Methodology
		}
	}
	return ""
}

// resultValue is a result stored as its served body (served.go): the header, the data version and the
// body as the result.
func resultValue(sv shariah.Served, version int64, screenedAt time.Time) []byte {
	b := framed(screening.ResultVariant, sv.ETag, strconv.FormatInt(max(screenedAt.UnixNano(), 0), 10), len(sv.Body)+32)
	b = append(b, `"version":`...)
	b = strconv.AppendInt(b, version, 10)
	b = append(b, `,"result":`...)
	b = append(b, sv.Body...)
	return append(b, '}')
}

// PutResult writes a result, as its served body, indexes it by time, and records its verdict change
// (changes.go): the result and what its change is measured against in one script on the symbol's slot
// (lua/result_put.lua), sent in one pipeline with the index; then, when the verdicts moved (or for a
// first screening), the change in the change log and the symbol's baseline. A rescreen whose verdicts
// stand costs the pipeline alone. A change that cannot be recorded does not fail the write: it is
// recorded at the symbol's next write.
func (s *ResultStore) PutResult(ctx context.Context, r screening.Result, version int64) error {
	sv, err := screening.ServeResult(r)
	if err != nil {
		return err
	}
	b := resultValue(sv, version, r.ScreenedAt)
	key := screening.VerdictKey(r)
	ms := float64(r.ScreenedAt.UnixMilli())
	member := r.Symbol + "|" + r.Ruleset.Name
	cmds := rueidis.Commands{
		s.putResultCmd(r, b, key),
		s.c.B().Sadd().Key(resultSetKey()).Member(member).Build(),
		s.c.B().Zadd().Key(updatedKey(r.Ruleset.Name)).ScoreMember().ScoreMember(ms, r.Symbol).Build(),
	}
	// The result is in exactly one of the per-source sets (for the database stats).
	src := screening.DataSourceOf(r)
	for _, other := range dataSources {
		if other == src {
			cmds = append(cmds, s.c.B().Sadd().Key(resultSourceKey(other)).Member(member).Build())
		} else {
			cmds = append(cmds, s.c.B().Srem().Key(resultSourceKey(other)).Member(member).Build())
		}
	}
	res := s.c.DoMulti(ctx, cmds...)
	kind, prev, err := s.putResultAnswer(ctx, res[0], r, b, key)
	if err != nil {
		return err
	}
	for _, res := range res[1:] {
		if err := res.Error(); err != nil {
			return err
		}
	}
	s.recordChange(ctx, r, key, kind, prev)
	return nil
}

// ServedResult reads a symbol's cached result of a ruleset as its served body (client-side cached on a
// cached store): the stored body when its variant is screening.ResultVariant, else the body encoded from
// the stored result, which then replaces the value read if an older binary wrote it without a body (and
// it is still the stored one).
func (s *ResultStore) ServedResult(ctx context.Context, symbol, ruleset string) (shariah.StoredResult, bool, error) {
	key := resultKey(symbol, ruleset)
	b, ok, err := getValue(ctx, s.c, key, s.cacheTTL)
	if err != nil || !ok {
		return shariah.StoredResult{}, false, err
	}
	if st, ok := s.memo.get(key, screening.ResultVariant, b); ok {
		return st, true, nil
	}
	if st, ok := parseResultValue(b); ok {
		s.memo.put(key, screening.ResultVariant, b, st)
		return st, true, nil
	}
	sr, err := decodeResult(b)
	if err != nil {
		return shariah.StoredResult{}, false, err
	}
	sv, err := screening.ServeResult(sr.Result)
	if err != nil {
		return shariah.StoredResult{}, false, err
	}
	if _, _, _, _, headed := parseServed(b); !headed {
		// only a value an older binary wrote without a body (see RefStore.ServedQuote)
		backfill(ctx, s.c, key, b, resultValue(sv, sr.Version, sr.Result.ScreenedAt))
	}
	return shariah.StoredResult{Served: sv, Version: sr.Version, ScreenedAt: sr.Result.ScreenedAt}, true, nil
}

// parseResultValue reads a result stored as its served body of the current variant, by position.
func parseResultValue(b []byte) (shariah.StoredResult, bool) {
	variant, etag, at, rest, ok := parseServed(b)
	if !ok || string(variant) != screening.ResultVariant {
		return shariah.StoredResult{}, false
	}
	ns, ok := digits(at)
	if !ok || !bytes.HasPrefix(rest, []byte(`"version":`)) {
		return shariah.StoredResult{}, false
	}
	rest = rest[len(`"version":`):]
	i := bytes.IndexByte(rest, ',')
	if i < 0 {
		return shariah.StoredResult{}, false
	}
	version, ok := digits(rest[:i])
	rest = rest[i:]
	if !ok || !bytes.HasPrefix(rest, []byte(`,"result":`)) || len(rest) < len(`,"result":`)+3 || rest[len(rest)-1] != '}' {
		return shariah.StoredResult{}, false
	}
	body := rest[len(`,"result":`) : len(rest)-1]
	return shariah.StoredResult{Served: shariah.Served{Body: body, ETag: string(etag)}, Version: version,
		ScreenedAt: time.Unix(0, ns).UTC()}, true
}

// Result reads a symbol's cached result of a ruleset with the data version it was computed from.
func (s *ResultStore) Result(ctx context.Context, symbol, ruleset string) (screening.Result, int64, bool, error) {
	b, ok, err := getValue(ctx, s.c, resultKey(symbol, ruleset), 0)
	if !ok || err != nil {
		return screening.Result{}, 0, false, err
	}
	sr, err := decodeResult(b)
	if err != nil {
		return screening.Result{}, 0, false, err
	}
	return sr.Result, sr.Version, true, nil
}

func (s *ResultStore) fetch(ctx context.Context, ruleset string, syms []string) ([]screening.Result, error) {
	out := make([]screening.Result, 0, len(syms))
	for start := 0; start < len(syms); start += chunk {
		part := syms[start:min(start+chunk, len(syms))]
		cmds := make(rueidis.Commands, len(part))
		for i, sym := range part {
			cmds[i] = s.c.B().Get().Key(resultKey(sym, ruleset)).Build()
		}
		for _, r := range s.c.DoMulti(ctx, cmds...) {
			b, err := r.AsBytes()
			if rueidis.IsRedisNil(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			sr, err := decodeResult(b)
			if err != nil {
				return nil, err
			}
			out = append(out, sr.Result)
		}
	}
	return out, nil
}

// Results lists every cached result of a ruleset, oldest write first.
func (s *ResultStore) Results(ctx context.Context, ruleset string) ([]screening.Result, error) {
	syms, err := s.c.Do(ctx, s.c.B().Zrange().Key(updatedKey(ruleset)).Min("0").Max("-1").Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	return s.fetch(ctx, ruleset, syms)
}

// UpdatedSince lists results written strictly after since, oldest first.
func (s *ResultStore) UpdatedSince(ctx context.Context, since time.Time, ruleset string) ([]screening.Result, error) {
	min := "(" + strconv.FormatInt(since.UnixMilli(), 10)
	syms, err := s.c.Do(ctx, s.c.B().Zrangebyscore().Key(updatedKey(ruleset)).Min(min).Max("+inf").Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	return s.fetch(ctx, ruleset, syms)
}

var _ etf.ResultStore = (*ResultStore)(nil)

// PutETFResult stores an ETF look-through.
func (s *ResultStore) PutETFResult(ctx context.Context, r etf.Result) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, s.c.B().Set().Key(etfResultKey(r.Symbol, r.Ruleset.Name)).Value(rueidis.BinaryString(b)).Build()).Error()
}

// ETFResult reads an ETF look-through.
func (s *ResultStore) ETFResult(ctx context.Context, symbol, ruleset string) (etf.Result, bool, error) {
	b, err := s.c.Do(ctx, s.c.B().Get().Key(etfResultKey(symbol, ruleset)).Build()).AsBytes()
	if rueidis.IsRedisNil(err) {
		return etf.Result{}, false, nil
	}
	if err != nil {
		return etf.Result{}, false, err
	}
	var r etf.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return etf.Result{}, false, err
	}
	upgradeETFResult(&r)
	return r, true, nil
}

// Count counts the cached screening results.
func (s *ResultStore) Count(ctx context.Context) (int64, error) {
	return s.c.Do(ctx, s.c.B().Scard().Key(resultSetKey()).Build()).AsInt64()
}

// CountBySource counts the cached screening results by what their fundamentals stand on
// (results written before the counts existed are in none of the sets until they are rescreened).
func (s *ResultStore) CountBySource(ctx context.Context) (shariah.SourceCounts, error) {
	cmds := make(rueidis.Commands, len(dataSources))
	for i, src := range dataSources {
		cmds[i] = s.c.B().Scard().Key(resultSourceKey(src)).Build()
	}
	var out shariah.SourceCounts
	for i, res := range s.c.DoMulti(ctx, cmds...) {
		n, err := res.AsInt64()
		if err != nil {
			return out, err
		}
		out.AddN(dataSources[i], int(n))
	}
	return out, nil
}

// upgradeETFResult brings an ETF look-through stored with the purification rate as a fraction (before
// purification_rate_fraction existed) to percent, for the ETF and each holding.
func upgradeETFResult(r *etf.Result) {
	if r.PurificationFraction == nil && r.PurificationRate != nil {
		r.PurificationFraction = r.PurificationRate
		r.PurificationRate, r.PurificationRatePct = screening.PercentOf(r.PurificationFraction), screening.PercentOf(r.PurificationFraction)
	}
	for i := range r.Holdings {
		h := &r.Holdings[i]
		if h.PurificationFrac == nil && h.PurificationRate != nil {
			h.PurificationFrac, h.PurificationRate = h.PurificationRate, screening.PercentOf(h.PurificationRate)
		}
	}
}
