package redis

// The reference store (reference.go): FX rates and metal prices.

import (
	"context"
	"sort"

	"github.com/shariah-screen/shariah/market"
)

// PutFX merges rates by currency (a newer date wins).
func (s *RefStore) PutFX(ctx context.Context, rates []market.FXRate) error {
	old, err := s.FX(ctx)
	if err != nil {
		return err
	}
	by := map[string]market.FXRate{}
	for _, r := range old {
		by[r.Currency] = r
	}
	for _, r := range rates {
		if o, ok := by[r.Currency]; !ok || r.AsOf >= o.AsOf {
			by[r.Currency] = r
		}
	}
	out := make([]market.FXRate, 0, len(by))
	for _, r := range by {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	c, err := s.setJSON(fxKey(), out)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, c).Error()
}

// FX reads every rate, by currency.
func (s *RefStore) FX(ctx context.Context) ([]market.FXRate, error) {
	var out []market.FXRate
	_, err := s.getJSON(ctx, fxKey(), &out, true)
	return out, err
}

// PutMetals merges prices by metal and date.
func (s *RefStore) PutMetals(ctx context.Context, prices []market.MetalPrice) error {
	by := map[string][]market.MetalPrice{}
	for _, p := range prices {
		by[p.Metal] = append(by[p.Metal], p)
	}
	for metal, ps := range by {
		old, err := s.Metals(ctx, metal)
		if err != nil {
			return err
		}
		dated := map[string]market.MetalPrice{}
		for _, p := range old {
			dated[p.AsOf] = p
		}
		for _, p := range ps {
			dated[p.AsOf] = p
		}
		out := make([]market.MetalPrice, 0, len(dated))
		for _, p := range dated {
			out = append(out, p)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].AsOf < out[j].AsOf })
		c, err := s.setJSON(metalKey(metal), out)
		if err != nil {
			return err
		}
		if err := s.c.Do(ctx, c).Error(); err != nil {
			return err
		}
	}
	return nil
}

// Metals reads a metal's prices, oldest first.
func (s *RefStore) Metals(ctx context.Context, metal string) ([]market.MetalPrice, error) {
	var out []market.MetalPrice
	_, err := s.getJSON(ctx, metalKey(metal), &out, true)
	return out, err
}
