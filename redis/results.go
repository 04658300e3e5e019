package redis

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
)

// ResultStore implements shariah.ResultStore.
type ResultStore struct{ c rueidis.Client }

var _ shariah.ResultStore = (*ResultStore)(nil)

// NewResultStore returns the result store over the client.
func NewResultStore(c rueidis.Client) *ResultStore { return &ResultStore{c: c} }

type storedResult struct {
	Version int64          `json:"version"`
	Result  shariah.Result `json:"result"`
}

// PutResult writes a result and indexes it by time.
func (s *ResultStore) PutResult(ctx context.Context, r shariah.Result, version int64) error {
	b, err := json.Marshal(storedResult{Version: version, Result: r})
	if err != nil {
		return err
	}
	ms := float64(r.ScreenedAt.UnixMilli())
	member := r.Symbol + "|" + r.Ruleset.Name
	cmds := rueidis.Commands{
		s.c.B().Set().Key(resultKey(r.Symbol, r.Ruleset.Name)).Value(rueidis.BinaryString(b)).Build(),
		s.c.B().Sadd().Key(resultSetKey()).Member(member).Build(),
		s.c.B().Zadd().Key(updatedKey(r.Ruleset.Name)).ScoreMember().ScoreMember(ms, r.Symbol).Build(),
	}
	// The result is in exactly one of the per-source sets (for the database stats).
	src := shariah.DataSourceOf(r)
	for _, other := range dataSources {
		if other == src {
			cmds = append(cmds, s.c.B().Sadd().Key(resultSourceKey(other)).Member(member).Build())
		} else {
			cmds = append(cmds, s.c.B().Srem().Key(resultSourceKey(other)).Member(member).Build())
		}
	}
	for _, res := range s.c.DoMulti(ctx, cmds...) {
		if err := res.Error(); err != nil {
			return err
		}
	}
	return nil
}

// Result reads a symbol's cached result of a ruleset with the data version it was computed from.
func (s *ResultStore) Result(ctx context.Context, symbol, ruleset string) (shariah.Result, int64, bool, error) {
	b, err := s.c.Do(ctx, s.c.B().Get().Key(resultKey(symbol, ruleset)).Build()).AsBytes()
	if rueidis.IsRedisNil(err) {
		return shariah.Result{}, 0, false, nil
	}
	if err != nil {
		return shariah.Result{}, 0, false, err
	}
	var sr storedResult
	if err := json.Unmarshal(b, &sr); err != nil {
		return shariah.Result{}, 0, false, err
	}
	sr.Result.Normalize() // written before the client-ecosystem fields: by_methodology keys, percent
	return sr.Result, sr.Version, true, nil
}

func (s *ResultStore) fetch(ctx context.Context, ruleset string, syms []string) ([]shariah.Result, error) {
	out := make([]shariah.Result, 0, len(syms))
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
			var sr storedResult
			if err := json.Unmarshal(b, &sr); err != nil {
				return nil, err
			}
			sr.Result.Normalize()
			out = append(out, sr.Result)
		}
	}
	return out, nil
}

// Results lists every cached result of a ruleset, oldest write first.
func (s *ResultStore) Results(ctx context.Context, ruleset string) ([]shariah.Result, error) {
	syms, err := s.c.Do(ctx, s.c.B().Zrange().Key(updatedKey(ruleset)).Min("0").Max("-1").Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	return s.fetch(ctx, ruleset, syms)
}

// UpdatedSince lists results written strictly after since, oldest first.
func (s *ResultStore) UpdatedSince(ctx context.Context, since time.Time, ruleset string) ([]shariah.Result, error) {
	min := "(" + strconv.FormatInt(since.UnixMilli(), 10)
	syms, err := s.c.Do(ctx, s.c.B().Zrangebyscore().Key(updatedKey(ruleset)).Min(min).Max("+inf").Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	return s.fetch(ctx, ruleset, syms)
}

var _ shariah.ETFResultStore = (*ResultStore)(nil)

// PutETFResult stores an ETF look-through.
func (s *ResultStore) PutETFResult(ctx context.Context, r shariah.ETFResult) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, s.c.B().Set().Key(etfResultKey(r.Symbol, r.Ruleset.Name)).Value(rueidis.BinaryString(b)).Build()).Error()
}

// ETFResult reads an ETF look-through.
func (s *ResultStore) ETFResult(ctx context.Context, symbol, ruleset string) (shariah.ETFResult, bool, error) {
	b, err := s.c.Do(ctx, s.c.B().Get().Key(etfResultKey(symbol, ruleset)).Build()).AsBytes()
	if rueidis.IsRedisNil(err) {
		return shariah.ETFResult{}, false, nil
	}
	if err != nil {
		return shariah.ETFResult{}, false, err
	}
	var r shariah.ETFResult
	if err := json.Unmarshal(b, &r); err != nil {
		return shariah.ETFResult{}, false, err
	}
	r.Normalize() // a look-through stored with the purification rate as a fraction
	return r, true, nil
}
