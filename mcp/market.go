package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
)

func (d Deps) marketTools() []tool {
	return []tool{
		newTool("get_quote", "Latest end-of-day quote of a symbol, or of several (symbols wins over symbol); unknown symbols map to null.",
			lookup, objectOut("quotes"), d.getQuote),
		newTool("get_trending_stocks", "The most active and moving stocks of the latest session.", lookup, objectOut("trending"), d.getTrendingStocks),
	}
}

type quoteArgs struct {
	optionalSymbol
	Symbols []string `json:"symbols" schema:"maxItems=50"`
}

func (d Deps) getQuote(ctx context.Context, in quoteArgs) (any, string, error) {
	if len(in.Symbols) == 0 && in.Symbol != "" {
		in.Symbols = []string{in.Symbol}
	}
	if len(in.Symbols) == 0 {
		var v shariah.Validation
		v.Add("give symbol or symbols", "value_error.missing", "arguments", "symbol")
		return nil, "", v.Err()
	}
	ds := []shariah.Disclaimer{}
	if d.Education != nil {
		ds = d.Education.DisclaimersFor("market_data")
	}
	out, err := market.BatchQuotes(ctx, d.Catalogs, d.Ref, in.Symbols, nil, ds)
	if err != nil {
		return nil, "", err
	}
	var lines []string
	for key, q := range out {
		if q == nil {
			lines = append(lines, key+": no quote (unknown symbol or no price data)")
			continue
		}
		line := fmt.Sprintf("%s: %s %s as of %s (%s)", q.Symbol, q.Price.String(), q.Currency, q.AsOf, q.Source)
		if unk := q.Unknown(); len(unk) > 0 {
			line += "; not in the source (null): " + strings.Join(unk, ", ")
		}
		if q.Range52WBasis == "close" {
			line += "; 52-week range of closes"
		}
		if q.MarketCapNote != "" { // a split applied to the shares, or why the market cap is held back
			line += "; " + q.MarketCapNote
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	if len(ds) > 0 {
		lines = append(lines, ds[0].Text)
	}
	return map[string]any{"quotes": out, "disclaimers": ds}, strings.Join(lines, "\n"), nil
}

type trendingArgs struct {
	Limit int `json:"limit" schema:"minimum=1,maximum=16,default=10"`
}

func (d Deps) getTrendingStocks(ctx context.Context, in trendingArgs) (any, string, error) {
	if in.Limit < 1 || in.Limit > 16 {
		var v shariah.Validation
		v.Add("must be 1 to 16", "value_error.number", "arguments", "limit")
		return nil, "", v.Err()
	}
	list, err := market.TrendingList(ctx, d.Ref, in.Limit)
	if err != nil {
		return nil, "", err
	}
	var syms []string
	for _, t := range list {
		s := t.Symbol + " " + t.Price.String() + " " + t.Currency + " " + t.Change
		if t.Illustrative {
			s += " (illustrative)"
		}
		syms = append(syms, s)
	}
	return map[string]any{"trending": list}, "Trending equities: " + strings.Join(syms, ", "), nil
}

type priceHistoryArgs struct {
	symbolArg
	Period   string `json:"period" schema:"enum=1d|5d|1mo|3mo|6mo|1y|2y|5y|10y|max,default=1y"`
	Interval string `json:"interval" schema:"enum=1m|5m|15m|1h|1d|1wk|1mo,default=1d"`
}

func (d Deps) getPriceHistory(ctx context.Context, in priceHistoryArgs) (any, string, error) {
	if err := market.ValidatePriceHistory(in.Period, in.Interval, "arguments"); err != nil {
		return nil, "", err
	}
	a, err := d.resolve(ctx, in.Symbol)
	if err != nil {
		return nil, "", err
	}
	bars, source, err := market.PriceHistory(ctx, d.Ref, a.Symbol, in.Period, in.Interval)
	if err != nil {
		return nil, "", err
	}
	out := make([]shariah.Candle, len(bars))
	for i, b := range bars {
		out[i] = b.Candle()
	}
	first, last := bars[0], bars[len(bars)-1]
	text := fmt.Sprintf("%s: %d candles from %s (close %s) to %s (close %s), source %s.", a.Symbol, len(bars),
		first.Date.Format("2006-01-02"), first.Close.String(), last.Date.Format("2006-01-02"), last.Close.String(), source)
	if last.Gaps&shariah.CloseOnly == shariah.CloseOnly {
		text += " Closes only: open, high, low and volume are not in the source (null)."
	}
	return map[string]any{"symbol": a.Symbol, "period": in.Period, "interval": in.Interval, "source": source, "candles": out}, text, nil
}

func (d Deps) priceHistoryTools() []tool {
	return []tool{newTool("get_price_history", "Daily, weekly or monthly candles of a period, counted back from the latest candle (intraday intervals are not held).",
		lookup, objectOut("symbol", "candles"), d.getPriceHistory)}
}
