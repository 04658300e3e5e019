package redis

// The reference store (reference.go): dividends by ex-date.

import (
	"context"
	"sort"

	shariah "github.com/shariah-screen/shariah"
)

// PutDividends merges by ex-date.
func (s *RefStore) PutDividends(ctx context.Context, symbol string, ds []shariah.Dividend) error {
	var old []shariah.Dividend
	if _, err := s.getJSON(ctx, divKey(symbol), &old, false); err != nil {
		return err
	}
	key := func(d shariah.Dividend) string {
		if d.ExDate != "" {
			return d.ExDate
		}
		return "period:" + d.PeriodEnd
	}
	byDate := map[string]shariah.Dividend{}
	for _, d := range old {
		byDate[key(d)] = d
	}
	for _, d := range ds {
		byDate[key(d)] = d
	}
	out := make([]shariah.Dividend, 0, len(byDate))
	for _, d := range byDate {
		out = append(out, d)
	}
	date := func(d shariah.Dividend) string {
		if d.ExDate != "" {
			return d.ExDate
		}
		return d.PeriodEnd
	}
	sort.Slice(out, func(i, j int) bool { return date(out[i]) < date(out[j]) })
	c, err := s.setJSON(divKey(symbol), out)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, c).Error()
}

// Dividends reads a symbol's dividends, oldest first.
func (s *RefStore) Dividends(ctx context.Context, symbol string) ([]shariah.Dividend, error) {
	var out []shariah.Dividend
	_, err := s.getJSON(ctx, divKey(symbol), &out, true)
	return out, err
}
