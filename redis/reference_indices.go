package redis

// The reference store (reference.go): indices with their constituents, and ETF holdings.

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// indexRecord is an index as stored (IndexInfo hides its symbols from JSON).
type indexRecord struct {
	Info    catalog.IndexInfo `json:"info"`
	Symbols []string          `json:"symbols"`
}

// PutIndex replaces an index, except that an illustrative list never replaces a real one.
func (s *RefStore) PutIndex(ctx context.Context, ix catalog.IndexInfo) error {
	if ix.Source == shariah.SourceIllustrative {
		var old indexRecord
		if ok, err := s.getJSON(ctx, indexKey(ix.Name), &old, false); err != nil {
			return err
		} else if ok && old.Info.Source != shariah.SourceIllustrative && len(old.Symbols) > 0 {
			return nil
		}
	}
	c, err := s.setJSON(indexKey(ix.Name), indexRecord{Info: ix, Symbols: ix.Symbols})
	if err != nil {
		return err
	}
	return s.doAll(ctx, rueidis.Commands{c, s.c.B().Sadd().Key(indexSetKey()).Member(ix.Name).Build()})
}

// Indices reads every index with its constituents, by name.
func (s *RefStore) Indices(ctx context.Context) ([]catalog.IndexInfo, error) {
	names, err := s.c.Do(ctx, s.c.B().Smembers().Key(indexSetKey()).Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = indexKey(n)
	}
	var out []catalog.IndexInfo
	err = s.getJSONMany(ctx, keys, func(_ int, b []byte) error {
		var r indexRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		r.Info.Symbols = r.Symbols
		out = append(out, r.Info)
		return nil
	})
	return out, err
}

// PutHoldings replaces an ETF's holdings unless the stored ones are more recent, or real where the
// new ones are illustrative.
func (s *RefStore) PutHoldings(ctx context.Context, etf string, hs []shariah.Holding) error {
	var old []shariah.Holding
	if _, err := s.getJSON(ctx, holdingsKey(etf), &old, false); err != nil {
		return err
	}
	if len(old) > 0 && len(hs) > 0 {
		oldReal, newReal := old[0].Source != shariah.SourceIllustrative, hs[0].Source != shariah.SourceIllustrative
		if (oldReal && !newReal) || (oldReal == newReal && old[0].AsOf > hs[0].AsOf) {
			return nil // older holdings, or illustrative ones over real ones, do not replace what is stored
		}
	}
	c, err := s.setJSON(holdingsKey(etf), hs)
	if err != nil {
		return err
	}
	return s.doAll(ctx, rueidis.Commands{c, s.c.B().Sadd().Key(holdingsSetKey()).Member(etf).Build()})
}

// ETFsWithHoldings lists the ETFs whose holdings are loaded.
func (s *RefStore) ETFsWithHoldings(ctx context.Context) ([]string, error) {
	out, err := s.c.Do(ctx, s.c.B().Smembers().Key(holdingsSetKey()).Build()).AsStrSlice()
	sort.Strings(out)
	return out, err
}

// Holdings reads an ETF's holdings.
func (s *RefStore) Holdings(ctx context.Context, etf string) ([]shariah.Holding, error) {
	var out []shariah.Holding
	_, err := s.getJSON(ctx, holdingsKey(etf), &out, true)
	return out, err
}
