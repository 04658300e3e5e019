package redis

// The reference store (reference.go): fundamentals (periods and facts) and the source each symbol's stand on.

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
)

// PutFundamentals merges periods and facts, pipelined over many symbols.
func (s *RefStore) PutFundamentals(ctx context.Context, bySymbol map[string][]shariah.Fundamentals) error {
	syms := make([]string, 0, len(bySymbol))
	for sym := range bySymbol {
		syms = append(syms, sym)
	}
	sort.Strings(syms)
	keys := make([]string, len(syms))
	for i, sym := range syms {
		keys[i] = fundKey(sym)
	}
	old := make([][]shariah.Fundamentals, len(syms))
	if err := s.getJSONMany(ctx, keys, func(i int, b []byte) error {
		return json.Unmarshal(b, &old[i])
	}); err != nil {
		return err
	}
	cmds := make(rueidis.Commands, 0, 3*len(syms))
	for i, sym := range syms {
		merged := shariah.MergeFundamentals(old[i], bySymbol[sym])
		c, err := s.setJSON(keys[i], merged)
		if err != nil {
			return err
		}
		cmds = append(cmds, c)
		cmds = append(cmds, s.markSource(sym, shariah.FundamentalsSourceOf(merged))...)
	}
	return s.doAll(ctx, cmds)
}

// markSource puts a symbol in the set of its fundamentals' source and out of the other, for the
// database stats' filed / illustrative counts.
func (s *RefStore) markSource(sym, source string) rueidis.Commands {
	in, out := shariah.DataFiled, shariah.DataIllustrative
	switch source {
	case shariah.DataIllustrative:
		in, out = shariah.DataIllustrative, shariah.DataFiled
	case shariah.DataFiled:
	default:
		return nil
	}
	return rueidis.Commands{s.c.B().Sadd().Key(fundSourceKey(in)).Member(sym).Build(),
		s.c.B().Srem().Key(fundSourceKey(out)).Member(sym).Build()}
}

// MarkFundamentalsSources records the sources of many symbols' fundamentals, pipelined.
func (s *RefStore) MarkFundamentalsSources(ctx context.Context, bySymbol map[string]string) error {
	cmds := make(rueidis.Commands, 0, 2*len(bySymbol))
	for sym, src := range bySymbol {
		cmds = append(cmds, s.markSource(sym, src)...)
	}
	return s.doAll(ctx, cmds)
}

// CompaniesBySource counts the symbols with filed fundamentals and those with illustrative ones only.
func (s *RefStore) CompaniesBySource(ctx context.Context) (filed, illustrative int64, err error) {
	res := s.c.DoMulti(ctx, s.c.B().Scard().Key(fundSourceKey(shariah.DataFiled)).Build(),
		s.c.B().Scard().Key(fundSourceKey(shariah.DataIllustrative)).Build())
	if filed, err = res[0].AsInt64(); err != nil {
		return 0, 0, err
	}
	illustrative, err = res[1].AsInt64()
	return filed, illustrative, err
}

// Fundamentals reads a symbol's periods, oldest first.
func (s *RefStore) Fundamentals(ctx context.Context, symbol string) ([]shariah.Fundamentals, error) {
	var out []shariah.Fundamentals
	_, err := s.getJSON(ctx, fundKey(symbol), &out, true)
	return out, err
}

// FundamentalsMany reads the periods of many symbols, pipelined.
func (s *RefStore) FundamentalsMany(ctx context.Context, symbols []string) (map[string][]shariah.Fundamentals, error) {
	keys := make([]string, len(symbols))
	for i, sym := range symbols {
		keys[i] = fundKey(sym)
	}
	out := map[string][]shariah.Fundamentals{}
	err := s.getJSONMany(ctx, keys, func(i int, b []byte) error {
		var fs []shariah.Fundamentals
		if err := json.Unmarshal(b, &fs); err != nil {
			return err
		}
		out[symbols[i]] = fs
		return nil
	})
	return out, err
}
