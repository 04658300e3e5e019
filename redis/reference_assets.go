package redis

// The reference store (reference.go): assets: records merged field by field, read one, many or all.

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
)

// PutAssets merges each record over the stored one (new non-empty fields win).
func (s *RefStore) PutAssets(ctx context.Context, assets []shariah.Asset) error {
	keys := make([]string, len(assets))
	for i, a := range assets {
		keys[i] = assetKey(a.Symbol)
	}
	merged := append([]shariah.Asset(nil), assets...)
	if err := s.getJSONMany(ctx, keys, func(i int, b []byte) error {
		var old shariah.Asset
		if err := json.Unmarshal(b, &old); err != nil {
			return fmt.Errorf("asset %s: %w", assets[i].Symbol, err)
		}
		merged[i] = merged[i].Merge(old)
		return nil
	}); err != nil {
		return err
	}
	cmds := make(rueidis.Commands, 0, len(merged)+1)
	syms := make([]string, 0, len(merged))
	for _, a := range merged {
		c, err := s.setJSON(assetKey(a.Symbol), a)
		if err != nil {
			return err
		}
		cmds = append(cmds, c)
		syms = append(syms, a.Symbol)
	}
	if len(syms) > 0 {
		cmds = append(cmds, s.c.B().Sadd().Key(assetSetKey()).Member(syms...).Build())
	}
	return s.doAll(ctx, cmds)
}

// Asset reads one record.
func (s *RefStore) Asset(ctx context.Context, symbol string) (shariah.Asset, bool, error) {
	var a shariah.Asset
	ok, err := s.getJSON(ctx, assetKey(symbol), &a, true)
	return a, ok, err
}

// AllAssets reads every record (the edge's catalog loads from it).
func (s *RefStore) AllAssets(ctx context.Context) ([]shariah.Asset, error) {
	syms, err := s.c.Do(ctx, s.c.B().Smembers().Key(assetSetKey()).Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	sort.Strings(syms)
	keys := make([]string, len(syms))
	for i, sym := range syms {
		keys[i] = assetKey(sym)
	}
	out := make([]shariah.Asset, 0, len(syms))
	err = s.getJSONMany(ctx, keys, func(_ int, b []byte) error {
		var a shariah.Asset
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		out = append(out, a)
		return nil
	})
	return out, err
}

// AssetsMany reads many records, pipelined.
func (s *RefStore) AssetsMany(ctx context.Context, symbols []string) (map[string]shariah.Asset, error) {
	keys := make([]string, len(symbols))
	for i, sym := range symbols {
		keys[i] = assetKey(sym)
	}
	out := make(map[string]shariah.Asset, len(symbols))
	err := s.getJSONMany(ctx, keys, func(i int, b []byte) error {
		var a shariah.Asset
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		out[symbols[i]] = a
		return nil
	})
	return out, err
}
