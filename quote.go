package shariah

import (
	"context"
	"strings"

	"github.com/shopspring/decimal"
)

// QuoteFromStore builds a symbol's quote from its stored candles (daily, else monthly).
func QuoteFromStore(ctx context.Context, st RefStore, sym string) (Quote, bool, error) {
	s, ok, err := st.Series(ctx, sym, "1d")
	if err != nil {
		return Quote{}, false, err
	}
	if !ok {
		if s, ok, err = st.Series(ctx, sym, "1mo"); err != nil || !ok {
			return Quote{}, false, err
		}
	}
	q, ok := QuoteFromBars(sym, s.Bars, s.Source)
	if !ok {
		return q, false, nil
	}
	if s.Interval == "1mo" {
		q.Description = "from monthly closes: change is month over month"
	}
	return q, true, nil
}

// FinishQuote adds the record's name and currency, and the market cap from the latest shares
// outstanding on file.
func FinishQuote(ctx context.Context, st RefStore, q *Quote) error {
	a, ok, err := st.Asset(ctx, q.Symbol)
	if err != nil {
		return err
	}
	if ok {
		q.Name, q.Currency = a.Name, a.Currency
	}
	fs, err := st.Fundamentals(ctx, q.Symbol)
	if err != nil {
		return err
	}
	for i := len(fs) - 1; i >= 0; i-- {
		if f, ok := fs[i].Facts[SharesOutstanding]; ok {
			shares := f.Value.Decimal.IntPart()
			mc := NewNumber(f.Value.Decimal.Mul(decimal.New(int64(q.Price), -6)).Round(0))
			q.SharesOut, q.MarketCap = &shares, &mc
			q.MarketCapSource = f.Source
			break
		}
	}
	return nil
}

// RefreshQuotes rebuilds and stores the quotes of symbols from their stored candles (after a load or a
// price ingest); symbols without candles are skipped. It returns how many quotes were written.
func RefreshQuotes(ctx context.Context, st RefStore, symbols []string) (int, error) {
	n := 0
	for _, sym := range symbols {
		q, ok, err := QuoteFromStore(ctx, st, sym)
		if err != nil {
			return n, err
		}
		if !ok {
			continue
		}
		if err := FinishQuote(ctx, st, &q); err != nil {
			return n, err
		}
		if err := st.PutQuote(ctx, q); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// BatchQuotes answers several symbols at once: each input (upper-cased as given) maps to its quote, or
// to nil when it is malformed, unknown or has no price data. count, when set, sees each known symbol
// (the quote-request counter). Each quote carries disclaimers (the market_data disclaimer, as a single
// quote does).
func BatchQuotes(ctx context.Context, cats *CatalogCache, st RefStore, syms []string, count func(sym string), disclaimers []Disclaimer) (map[string]*Quote, error) {
	out := make(map[string]*Quote, len(syms))
	canon := map[string]string{}
	var want []string
	for _, raw := range syms {
		key := strings.ToUpper(strings.TrimSpace(raw))
		out[key] = nil
		sym, err := cats.Resolve(ctx, raw)
		if err != nil {
			return nil, err
		}
		if sym == "" {
			continue
		}
		canon[key] = sym
		want = append(want, sym)
		if count != nil {
			count(sym)
		}
	}
	qs, err := st.Quotes(ctx, want)
	if err != nil {
		return nil, err
	}
	for key, sym := range canon {
		if q, ok := qs[sym]; ok {
			q.Disclaimers = disclaimers
			out[key] = &q
		}
	}
	return out, nil
}

// TrendingList is the trending list as served (REST and MCP): at most limit items, each with the signed
// change string, filled for items stored before the field existed.
func TrendingList(ctx context.Context, st RefStore, limit int) ([]Trending, error) {
	items, err := st.Trending(ctx)
	if err != nil {
		return nil, err
	}
	items = items[:min(max(limit, 0), len(items))]
	out := make([]Trending, len(items)) // a copy: the store's slice is not changed
	for i, it := range items {
		if it.Change == "" {
			it.Change = SignedPercent(it.ChangePercent.Decimal)
		}
		out[i] = it
	}
	return out, nil
}
