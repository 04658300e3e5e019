package market

import (
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// TestQuoteOfCloseOnlyBars: a quote built from close-only bars has null open, day high, day low,
// volume and average volume, and a 52-week range of closes; one bar without high and low in the year
// makes the whole range one of closes; the average volume is over the sessions that have one.
func TestQuoteOfCloseOnlyBars(t *testing.T) {
	t.Parallel()
	d := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC)
	var closeOnly, mixed []shariah.Bar
	for i := range 30 {
		c := shariah.Price((100 + (i*7)%11) * shariah.PriceScale)
		closeOnly = append(closeOnly, shariah.CloseOnlyBar(d.AddDate(0, 0, i), c))
		b := shariah.Bar{Date: d.AddDate(0, 0, i), Open: c, High: c + 5*shariah.PriceScale, Low: c - 5*shariah.PriceScale, Close: c, Volume: int64(1000 * (i + 1))}
		if i == 3 {
			b.Gaps = shariah.NoHighLow // one session without a range
		}
		if i >= 25 && i < 29 {
			b.Gaps |= shariah.NoVolume // four sessions without a volume
		}
		mixed = append(mixed, b.Normalized())
	}
	q, ok := QuoteFromBars("X", closeOnly, shariah.SourceHistory)
	if !ok || q.Open != nil || q.DayHigh != nil || q.DayLow != nil || q.Volume != nil || q.AvgVolume != nil || q.Range52WBasis != "close" ||
		q.High52W != 110*shariah.PriceScale || q.Low52W != 100*shariah.PriceScale || q.ChangePercent == nil {
		t.Fatalf("close-only quote %+v", q)
	}
	if got := fmt.Sprint(q.Unknown()); got != "[open day_high day_low volume avg_volume]" {
		t.Fatalf("unknown %s", got)
	}
	m, _ := QuoteFromBars("Y", mixed, shariah.SourceHistory)
	// sessions 9..28 before the last; 25..28 have no volume: the mean of sessions 9..24 (volumes 10000..25000)
	if m.Open == nil || m.Volume == nil || *m.Volume != 30000 || m.AvgVolume == nil || *m.AvgVolume != 17500 ||
		m.Range52WBasis != "close" || m.High52W != 110*shariah.PriceScale || len(m.Unknown()) != 0 {
		t.Fatalf("mixed quote %+v", m)
	}
}

// TestAggregatesKeepGaps: a week or month has no high and low when any day lacks them, no volume when
// any day lacks it, and no open when its first day lacks one.
func TestAggregatesKeepGaps(t *testing.T) {
	t.Parallel()
	d := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC) // a Monday
	full := func(i int) shariah.Bar {
		return shariah.Bar{Date: d.AddDate(0, 0, i), Open: 10 * shariah.PriceScale, High: 12 * shariah.PriceScale, Low: 9 * shariah.PriceScale, Close: 11 * shariah.PriceScale, Volume: 100}
	}
	days := []shariah.Bar{full(0), full(1), full(7), shariah.CloseOnlyBar(d.AddDate(0, 0, 8), 20*shariah.PriceScale), shariah.CloseOnlyBar(d.AddDate(0, 0, 14), 30*shariah.PriceScale), full(15)}
	w := shariah.WeeklyFromDaily(days)
	if len(w) != 3 {
		t.Fatalf("weeks %v", w)
	}
	if c := w[0].Candle(); c.Open == nil || c.High == nil || *c.High != 12*shariah.PriceScale || c.Volume == nil || *c.Volume != 200 {
		t.Errorf("full week %+v", c)
	}
	if c := w[1].Candle(); c.Open == nil || c.High != nil || c.Low != nil || c.Volume != nil || c.Close != 20*shariah.PriceScale {
		t.Errorf("week with a close-only day %+v", c)
	}
	if c := w[2].Candle(); c.Open != nil || c.High != nil || c.Volume != nil || c.Close != 11*shariah.PriceScale {
		t.Errorf("week opening close-only %+v", c)
	}
	if m := shariah.MonthlyFromDaily(days); len(m) != 1 || m[0].Gaps != shariah.NoHighLow|shariah.NoVolume || m[0].Open != 10*shariah.PriceScale {
		t.Errorf("month %+v", m)
	}
}

// TestRankTrending: equities only (an index and a fund with the best scores are left out, and a symbol
// without a record); real quotes rank before illustrative ones, which are marked; a session more than
// TrendingFreshDays before the latest of its kind does not trend; volume counts only where both volumes
// are known; each item carries its currency (the quote's, else the record's).
func TestRankTrending(t *testing.T) {
	t.Parallel()
	pct := func(s string) *shariah.Number { n := shariah.NewNumber(decimal.RequireFromString(s)); return &n }
	vol := func(v int64) *int64 { return &v }
	qs := []Quote{
		{Symbol: "ILL", Source: shariah.SourceIllustrative, AsOf: "2026-10-30", ChangePercent: pct("9"), Currency: "GBP"},
		{Symbol: "ILLOLD", Source: shariah.SourceIllustrative, AsOf: "2026-10-01", ChangePercent: pct("9")},
		{Symbol: "VOL", Source: shariah.SourceHistory, AsOf: "2025-12-31", ChangePercent: pct("1"), Volume: vol(300), AvgVolume: vol(100), Currency: "USD"},
		{Symbol: "CLS", Source: shariah.SourceHistory, AsOf: "2025-12-30", ChangePercent: pct("-2.5")},
		{Symbol: "OLD", Source: shariah.SourceHistory, AsOf: "2025-12-20", ChangePercent: pct("8")},
		{Symbol: "MON", Source: shariah.SourceHistory, AsOf: "2025-12-31", ChangePercent: pct("7"), Description: "from monthly closes: change is month over month"},
		{Symbol: "NOC", Source: shariah.SourceHistory, AsOf: "2025-12-31"},
		{Symbol: "^DJI", Source: shariah.SourceHistory, AsOf: "2025-12-31", ChangePercent: pct("5"), Volume: vol(900), AvgVolume: vol(100)},
		{Symbol: "SPUS", Source: shariah.SourceHistory, AsOf: "2025-12-31", ChangePercent: pct("6")},
		{Symbol: "NOREC", Source: shariah.SourceHistory, AsOf: "2025-12-31", ChangePercent: pct("6")},
	}
	assets := map[string]shariah.Asset{"^DJI": {Type: shariah.Index, Currency: "USD"}, "SPUS": {Type: shariah.ETF, Currency: "USD"}}
	for _, s := range []string{"ILL", "ILLOLD", "VOL", "CLS", "OLD", "MON", "NOC"} {
		assets[s] = shariah.Asset{Symbol: s, Type: shariah.Equity, Currency: "EUR"}
	}
	got := RankTrending(qs, assets)
	if len(got) != 3 || got[0].Symbol != "VOL" || got[0].Score != "3.00" || *got[0].RelVolume != "3.00" || got[0].Currency != "USD" ||
		got[1].Symbol != "CLS" || got[1].Score != "2.50" || got[1].Volume != nil || got[1].RelVolume != nil || got[1].Currency != "EUR" ||
		got[2].Symbol != "ILL" || !got[2].Illustrative || got[2].Currency != "GBP" {
		t.Fatalf("ranked %+v", got)
	}
	for _, it := range got {
		if it.AssetType != shariah.Equity || it.Illustrative != (it.Source == shariah.SourceIllustrative) {
			t.Fatalf("item %+v", it)
		}
	}
	if only := RankTrending(qs[:1], assets); len(only) != 1 || only[0].Symbol != "ILL" || !only[0].Illustrative {
		t.Fatalf("illustrative only %+v", only)
	}
	if none := RankTrending(nil, nil); none == nil || len(none) != 0 {
		t.Fatalf("none %+v", none)
	}
}
