package market

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/shariah-screen/shariah"
)

// History periods and intervals (the REST route's and the MCP tool's).
var (
	HistoryPeriods   = []string{"1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "max"}
	HistoryIntervals = []string{"1m", "5m", "15m", "1h", "1d", "1wk", "1mo"}
)

func inList(v string, set []string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// ValidatePriceHistory checks a period and an interval (reported under loc: "query" or "arguments"). The
// service holds daily and monthly history, so intraday intervals are refused rather than made up.
func ValidatePriceHistory(period, interval, loc string) error {
	var v shariah.Validation
	if !inList(period, HistoryPeriods) {
		v.Add("must be one of "+strings.Join(HistoryPeriods, ", "), "value_error.enum", loc, "period")
	}
	switch {
	case !inList(interval, HistoryIntervals):
		v.Add("must be one of "+strings.Join(HistoryIntervals, ", "), "value_error.enum", loc, "interval")
	case interval == "1m" || interval == "5m" || interval == "15m" || interval == "1h":
		v.Add("intraday candles are not available: the service holds daily and monthly history (use 1d, 1wk or 1mo)", "value_error.unavailable", loc, "interval")
	}
	return v.Err()
}

// SeriesReader is what PriceHistory reads: a symbol's stored candles.
type SeriesReader interface {
	Series(ctx context.Context, symbol, interval string) (shariah.Series, bool, error)
}

// PriceHistory returns a symbol's candles of the period (counted back from the latest candle: history
// ends where the data ends) at the interval, and their source. A symbol with monthly history only is
// served that rather than nothing.
func PriceHistory(ctx context.Context, st SeriesReader, symbol, period, interval string) ([]shariah.Bar, string, error) {
	stored := "1d"
	if interval == "1mo" {
		stored = "1mo"
	}
	se, ok, err := st.Series(ctx, symbol, stored)
	if err != nil {
		return nil, "", err
	}
	if !ok && stored == "1d" {
		if se, ok, err = st.Series(ctx, symbol, "1mo"); err != nil {
			return nil, "", err
		}
	}
	if !ok || len(se.Bars) == 0 {
		return nil, "", shariah.Errorf(shariah.ENOTFOUND, "No price data for %s.", symbol)
	}
	bars := windowBars(se.Bars, period)
	if interval == "1wk" && se.Interval == "1d" {
		bars = shariah.WeeklyFromDaily(bars)
	}
	return bars, se.Source, nil
}

// windowBars keeps the bars of the period, counted back from the last bar.
func windowBars(bars []shariah.Bar, period string) []shariah.Bar {
	last := bars[len(bars)-1].Date
	var from time.Time
	switch period {
	case "1d":
		return bars[len(bars)-1:]
	case "5d":
		return bars[max(0, len(bars)-5):]
	case "1mo":
		from = last.AddDate(0, -1, 0)
	case "3mo":
		from = last.AddDate(0, -3, 0)
	case "6mo":
		from = last.AddDate(0, -6, 0)
	case "1y":
		from = last.AddDate(-1, 0, 0)
	case "2y":
		from = last.AddDate(-2, 0, 0)
	case "5y":
		from = last.AddDate(-5, 0, 0)
	case "10y":
		from = last.AddDate(-10, 0, 0)
	default:
		return bars
	}
	i := sort.Search(len(bars), func(i int) bool { return bars[i].Date.After(from) })
	return bars[i:]
}
