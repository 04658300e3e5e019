// Command genpack writes the illustrative prices of the default data pack
// (datapack/defaultpack/prices.csv): monthly closes 2023-07..2026-07 and daily sessions
// 2026-08-03..2026-10-30, as a deterministic random walk per symbol anchored near its real price level
// in its trading currency (London in pounds, not pence). Run from the module root: go run ./internal/tools/genpack
package main

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"time"
)

// anchor is a symbol's approximate price level at the end of the series, its yearly drift and
// volatility, and its typical daily volume.
type anchor struct {
	sym        string
	price      float64
	drift, vol float64
	volume     float64
	decimals   int
}

var anchors = []anchor{
	{"AAPL", 262, 0.12, 0.26, 52e6, 2}, {"MSFT", 515, 0.14, 0.24, 21e6, 2}, {"NVDA", 188, 0.45, 0.50, 180e6, 2},
	{"GOOGL", 268, 0.20, 0.30, 30e6, 2}, {"AMZN", 228, 0.15, 0.32, 40e6, 2}, {"TSLA", 440, 0.10, 0.60, 95e6, 2},
	{"SNOW", 245, 0.10, 0.50, 6e6, 2}, {"JNJ", 188, 0.05, 0.16, 7e6, 2}, {"XOM", 115, 0.04, 0.24, 15e6, 2},
	{"JPM", 305, 0.15, 0.24, 9e6, 2}, {"KO", 69, 0.05, 0.15, 13e6, 2}, {"PG", 152, 0.04, 0.16, 7e6, 2},
	{"MO", 60, 0.08, 0.18, 9e6, 2}, {"BRK-B", 490, 0.10, 0.18, 4e6, 2}, {"2222.SR", 24.6, -0.05, 0.18, 12e6, 2},
	{"1120.SR", 98, 0.08, 0.22, 4e6, 2}, {"7203.T", 2850, 0.05, 0.28, 2.5e7, 0}, {"6758.T", 4100, 0.15, 0.30, 9e6, 0},
	{"SAP.DE", 232, 0.12, 0.28, 1.6e6, 2}, {"SIE.DE", 238, 0.10, 0.26, 1.3e6, 2}, {"ASML.AS", 880, 0.08, 0.36, 9e5, 2},
	{"NESN.SW", 80, -0.03, 0.16, 4e6, 2}, {"NOVN.SW", 104, 0.05, 0.18, 4e6, 2}, {"AZN.L", 126.00, 0.06, 0.22, 2.2e6, 2},
	{"HSBA.L", 10.10, 0.12, 0.22, 2.5e7, 3}, {"ULVR.L", 45.00, 0.04, 0.16, 2.6e6, 2}, {"DGE.L", 18.50, -0.10, 0.24, 3.5e6, 2},
	{"0700.HK", 640, 0.15, 0.32, 1.8e7, 1}, {"9988.HK", 165, 0.20, 0.45, 6e7, 1}, {"RELIANCE.NS", 1480, 0.06, 0.22, 8e6, 1},
	{"TCS.NS", 3050, -0.05, 0.20, 2.5e6, 1}, {"1155.KL", 10.2, 0.06, 0.12, 1.2e7, 2}, {"TLKM.JK", 3150, -0.04, 0.26, 9e7, 0},
	{"SPUS", 52, 0.14, 0.20, 4e5, 2}, {"HLAL", 58, 0.13, 0.19, 1.2e5, 2}, {"UMMA", 26, 0.08, 0.18, 5e4, 2},
	{"SPSK", 18, 0.01, 0.04, 1.5e5, 2}, {"SPY", 672, 0.12, 0.17, 6e7, 2}, {"AMAGX", 98, 0.12, 0.18, 0, 2},
	{"AMANX", 72, 0.07, 0.14, 0, 2}, {"AMAPX", 9.6, 0.01, 0.03, 0, 2}, {"^GSPC", 6720, 0.12, 0.17, 4.2e9, 2},
	{"^DJI", 47200, 0.09, 0.15, 5e8, 2}, {"^NDX", 25300, 0.16, 0.22, 7e9, 2}, {"^FTSE", 9650, 0.07, 0.13, 8e8, 2},
	{"^GDAXI", 24100, 0.12, 0.17, 8e7, 2}, {"^N225", 49500, 0.14, 0.20, 1.4e8, 2}, {"^HSI", 26100, 0.12, 0.24, 2.5e9, 2},
	{"^NSEI", 25800, 0.09, 0.14, 3e8, 2}, {"^TASI.SR", 11200, -0.02, 0.15, 3e8, 2},
}

func main() {
	out, err := os.Create("datapack/defaultpack/prices.csv")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer out.Close()
	w := bufio.NewWriter(out)
	defer w.Flush()
	fmt.Fprintln(w, "symbol,date,open,high,low,close,volume,interval,source")
	var days []time.Time
	for d := time.Date(2026, 8, 3, 0, 0, 0, 0, time.UTC); !d.After(time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC)); d = d.AddDate(0, 0, 1) {
		if d.Weekday() != time.Saturday && d.Weekday() != time.Sunday {
			days = append(days, d)
		}
	}
	var months []time.Time // last weekday of each month 2023-07..2026-07
	for m := time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC); m.Before(time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)); m = m.AddDate(0, 1, 0) {
		d := m.AddDate(0, 1, -1)
		for d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			d = d.AddDate(0, 0, -1)
		}
		months = append(months, d)
	}
	for _, a := range anchors {
		h := fnv.New64a()
		h.Write([]byte(a.sym))
		rng := rand.New(rand.NewPCG(h.Sum64(), 2026))
		// Walk backwards from the anchor so the series ends near today's level.
		n := len(months) + len(days)
		closes := make([]float64, n)
		closes[n-1] = a.price
		for i := n - 1; i > 0; i-- {
			dt := 1.0 / 252
			if i <= len(months) {
				dt = 1.0 / 12
			}
			ret := a.drift*dt + a.vol*math.Sqrt(dt)*rng.NormFloat64()
			closes[i-1] = closes[i] / math.Exp(ret)
		}
		round := func(v float64) string { return fmt.Sprintf("%.*f", a.decimals, v) }
		row := func(d time.Time, prev, c float64, interval string, volScale float64) {
			spread := 0.006 * math.Sqrt(volScale) // a month's range is wider than a day's
			open := prev * (1 + 0.004*rng.NormFloat64())
			hi := math.Max(open, c) * (1 + math.Abs(spread*rng.NormFloat64()))
			lo := math.Min(open, c) * (1 - math.Abs(spread*rng.NormFloat64()))
			o, hs, ls, cs := round(open), round(hi), round(lo), round(c)
			// keep the rounded high/low bounding the rounded open/close
			vol := int64(a.volume * volScale * math.Exp(0.35*rng.NormFloat64()))
			fmt.Fprintf(w, "%s,%s,%s,%s,%s,%s,%d,%s,illustrative\n", a.sym, d.Format("2006-01-02"), o, maxS(hs, o, cs), minS(ls, o, cs), cs, vol, interval)
		}
		for i, d := range months {
			prev := closes[max(i-1, 0)]
			row(d, prev, closes[i], "1mo", 21)
		}
		for j, d := range days {
			i := len(months) + j
			row(d, closes[i-1], closes[i], "1d", 1)
		}
	}
}

func maxS(vals ...string) string {
	best, bv := vals[0], parse(vals[0])
	for _, v := range vals[1:] {
		if f := parse(v); f > bv {
			best, bv = v, f
		}
	}
	return best
}

func minS(vals ...string) string {
	best, bv := vals[0], parse(vals[0])
	for _, v := range vals[1:] {
		if f := parse(v); f < bv {
			best, bv = v, f
		}
	}
	return best
}

func parse(s string) float64 {
	var f float64
	fmt.Sscan(s, &f)
	return f
}
