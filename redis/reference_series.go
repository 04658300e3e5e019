package redis

// The reference store (reference.go): candles of a symbol by interval, with the source of each interval.

import (
	"context"
	"fmt"
	"sort"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
)

// PutSeries merges candles; daily candles also refresh the monthly series. Real candles replace an
// illustrative series.
func (s *RefStore) PutSeries(ctx context.Context, se shariah.Series) error {
	if se.Interval != "1d" && se.Interval != "1mo" {
		return fmt.Errorf("series interval %q", se.Interval)
	}
	key := barsKey(se.Symbol)
	vals, err := s.c.Do(ctx, s.c.B().Hmget().Key(key).Field("1d", "1mo", srcField("1d"), srcField("1mo")).Build()).ToArray()
	if err != nil {
		return err
	}
	field := func(i int) []byte {
		b, _ := vals[i].AsBytes()
		return b
	}
	src := func(i int) string {
		v, _ := vals[i].ToString()
		return v
	}
	daily, err := decodeBars(field(0))
	if err != nil {
		return fmt.Errorf("%s daily: %w", se.Symbol, err)
	}
	monthly, err := decodeBars(field(1))
	if err != nil {
		return fmt.Errorf("%s monthly: %w", se.Symbol, err)
	}
	dSrc, mSrc := src(2), src(3)
	weaker := func(a, b string) string {
		if a == "" {
			return b
		}
		if a == shariah.SourceIllustrative || b == shariah.SourceIllustrative {
			return shariah.SourceIllustrative
		}
		return b
	}
	// Illustrative candles only stand in until real ones arrive: real (history, live) candles replace an
	// illustrative series instead of merging into it, and illustrative candles are not merged into a
	// real series.
	if se.Source == shariah.SourceIllustrative && ((se.Interval == "1d" && dSrc != "" && dSrc != shariah.SourceIllustrative) ||
		(se.Interval == "1mo" && mSrc != "" && mSrc != shariah.SourceIllustrative)) {
		return nil
	}
	if se.Source != shariah.SourceIllustrative {
		if dSrc == shariah.SourceIllustrative {
			daily, dSrc = nil, ""
		}
		if mSrc == shariah.SourceIllustrative {
			monthly, mSrc = nil, ""
		}
	}
	cmd := s.c.B().Hset().Key(key).FieldValue()
	if se.Interval == "1d" {
		daily = mergeBars(daily, se.Bars)
		dSrc = weaker(dSrc, se.Source)
		monthly = mergeBars(monthly, shariah.MonthlyFromDaily(daily))
		mSrc = weaker(mSrc, se.Source)
		cmd = cmd.FieldValue("1d", rueidis.BinaryString(encodeBars(daily))).FieldValue(srcField("1d"), dSrc)
	} else {
		monthly = mergeBars(monthly, se.Bars)
		mSrc = weaker(mSrc, se.Source)
	}
	cmd = cmd.FieldValue("1mo", rueidis.BinaryString(encodeBars(monthly))).FieldValue(srcField("1mo"), mSrc)
	return s.doAll(ctx, rueidis.Commands{cmd.Build(), s.c.B().Sadd().Key(seriesSetKey()).Member(se.Symbol).Build()})
}

// Series reads a symbol's candles of an interval ("1d" or "1mo").
func (s *RefStore) Series(ctx context.Context, symbol, interval string) (shariah.Series, bool, error) {
	var vals []rueidis.RedisMessage
	var err error
	if s.cacheTTL > 0 {
		vals, err = s.c.DoCache(ctx, s.c.B().Hmget().Key(barsKey(symbol)).Field(interval, srcField(interval)).Cache(), s.cacheTTL).ToArray()
	} else {
		vals, err = s.c.Do(ctx, s.c.B().Hmget().Key(barsKey(symbol)).Field(interval, srcField(interval)).Build()).ToArray()
	}
	if err != nil {
		return shariah.Series{}, false, err
	}
	raw, err := vals[0].AsBytes()
	if rueidis.IsRedisNil(err) || len(raw) == 0 {
		return shariah.Series{}, false, nil
	}
	if err != nil {
		return shariah.Series{}, false, err
	}
	bars, err := decodeBars(raw)
	if err != nil {
		return shariah.Series{}, false, fmt.Errorf("%s %s: %w", symbol, interval, err)
	}
	src, _ := vals[1].ToString()
	return shariah.Series{Symbol: symbol, Interval: interval, Source: src, Bars: bars}, true, nil
}

// SeriesSymbols lists the symbols that have candles.
func (s *RefStore) SeriesSymbols(ctx context.Context) ([]string, error) {
	syms, err := s.c.Do(ctx, s.c.B().Smembers().Key(seriesSetKey()).Build()).AsStrSlice()
	sort.Strings(syms)
	return syms, err
}
