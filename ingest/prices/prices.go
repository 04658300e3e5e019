// Package prices is the daily-price ingester: a public end-of-day CSV format (Stooq's by default:
// Date,Open,High,Low,Close,Volume) per symbol, updating candles, the monthly closes behind the trailing
// market-cap averages, and the latest quotes.
package prices

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/market"
)

// ParseCSV reads a daily price CSV with a header naming Date, Open, High, Low, Close and (optionally)
// Volume, in any order and case. A row that does not parse is an error naming its line: a truncated or
// foreign document is refused whole rather than half-stored.
func ParseCSV(b []byte) ([]shariah.Bar, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("no header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, c := range []string{"date", "open", "high", "low", "close"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("header %v lacks %q (not a daily price CSV)", head, c)
		}
	}
	var out []shariah.Bar
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		d, err := time.Parse("2006-01-02", get("date"))
		if err != nil {
			return nil, fmt.Errorf("line %d: date %q", line, get("date"))
		}
		var px [4]shariah.Price
		for i, c := range []string{"open", "high", "low", "close"} {
			if px[i], err = shariah.ParsePrice(get(c)); err != nil || px[i] <= 0 {
				return nil, fmt.Errorf("line %d: %s %q", line, c, get(c))
			}
		}
		var vol int64
		gaps := shariah.NoVolume // no volume column or an empty cell: unknown, not 0
		if v := get("volume"); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 {
				return nil, fmt.Errorf("line %d: volume %q", line, v)
			}
			vol, gaps = int64(f), 0
		}
		out = append(out, shariah.Bar{Date: d, Open: px[0], High: max(px[1], px[0], px[3]), Low: min(px[2], px[0], px[3]), Close: px[3], Volume: vol, Gaps: gaps})
	}
	if len(out) == 0 {
		return nil, errors.New("no rows")
	}
	return out, nil
}

// StooqSymbol maps a canonical symbol to Stooq's: US listings get ".us", London ".uk", Tokyo ".jp",
// Hong Kong ".hk", Frankfurt/Xetra ".de"; lower case.
func StooqSymbol(sym string) string {
	s := strings.ToLower(sym)
	for from, to := range map[string]string{".l": ".uk", ".t": ".jp", ".hk": ".hk", ".de": ".de"} {
		if strings.HasSuffix(s, from) {
			return strings.TrimSuffix(s, from) + to
		}
	}
	if !strings.Contains(s, ".") && !strings.HasPrefix(s, "^") {
		return strings.ReplaceAll(s, "-", ".") + ".us"
	}
	return s
}

// Store is what the price ingester reads and writes of the reference store: the daily candles, the
// quotes rebuilt from them (market.RefreshQuotes) and the data version.
type Store interface {
	market.QuoteStore
	PutSeries(ctx context.Context, s shariah.Series) error
	BumpVersion(ctx context.Context) (int64, error)
}

// Source fetches each symbol's daily prices.
type Source struct {
	HTTP        *httpx.Client
	URLTemplate string // {symbol} is replaced by the Stooq symbol, {canonical} by the canonical one
	Symbols     []string
	Ref         Store
}

// Run updates the candles and quotes of every symbol; a symbol whose document does not parse is
// skipped (nothing stored is touched) and reported.
func (s *Source) Run(ctx context.Context) (int, error) {
	var updated []string
	var errs []string
	for _, sym := range s.Symbols {
		u := strings.NewReplacer("{symbol}", StooqSymbol(sym), "{canonical}", sym).Replace(s.URLTemplate)
		resp, err := s.HTTP.Get(ctx, u)
		if err != nil {
			errs = append(errs, sym+": "+err.Error())
			continue
		}
		if resp.NotModified {
			continue
		}
		bars, err := ParseCSV(resp.Body)
		if err != nil {
			errs = append(errs, sym+": "+err.Error())
			continue
		}
		if err := s.Ref.PutSeries(ctx, shariah.Series{Symbol: sym, Interval: "1d", Source: shariah.SourceHistory, Bars: bars}); err != nil {
			return len(updated), err
		}
		updated = append(updated, sym)
	}
	if _, err := market.RefreshQuotes(ctx, s.Ref, updated); err != nil {
		return len(updated), err
	}
	if len(updated) > 0 {
		if _, err := s.Ref.BumpVersion(ctx); err != nil {
			return len(updated), err
		}
	}
	if len(errs) > 0 {
		return len(updated), fmt.Errorf("%d of %d symbols failed: %s", len(errs), len(s.Symbols), strings.Join(errs, "; "))
	}
	return len(updated), nil
}

// MostRequested refreshes, more often than the daily run, the prices and quotes of the symbols whose
// quotes were requested most over the last week (what the edge counts); symbols without a price
// document are reported like any other.
type MostRequested struct {
	Prices     *Source // fetcher, URL template and store; its own symbol list is not used
	Popularity market.Popularity
	N          int // 0: 50
	Now        func() time.Time
}

// Run fetches the most requested symbols.
func (m *MostRequested) Run(ctx context.Context) (int, error) {
	n := m.N
	if n <= 0 {
		n = 50
	}
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	syms, err := m.Popularity.MostRequested(ctx, n, 7, now())
	if err != nil || len(syms) == 0 {
		return 0, err
	}
	run := Source{HTTP: m.Prices.HTTP, URLTemplate: m.Prices.URLTemplate, Ref: m.Prices.Ref, Symbols: syms}
	return run.Run(ctx)
}
