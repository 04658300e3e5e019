package market

import (
	"fmt"
	"testing"
	"time"

	"github.com/shariah-screen/shariah"
)

func TestRatioPercent(t *testing.T) {
	t.Parallel()
	if RatioPercent(-154, 26354) != "-0.58" || RatioPercent(1, 3) != "33.33" || RatioPercent(2, 3) != "66.67" || RatioPercent(0, 5) != "0.00" {
		t.Fatal("RatioPercent")
	}
}

// TestQuoteVariants: the quote's body variant names its disclaimers.
func TestQuoteVariants(t *testing.T) {
	t.Parallel()
	if NewQuoteBodies(nil).Variant() == NewQuoteBodies([]shariah.Disclaimer{{ID: "market_data", Text: "x"}}).Variant() {
		t.Fatal("variants")
	}
}

func TestQuoteAndAggregates(t *testing.T) {
	t.Parallel()
	var bars []shariah.Bar
	d := time.Date(2025, 1, 27, 0, 0, 0, 0, time.UTC)
	for i := range 10 { // 2025-01-27 .. 2025-02-05 incl. weekends: fine for the arithmetic
		p := shariah.Price((100 + i) * shariah.PriceScale)
		bars = append(bars, shariah.Bar{Date: d.AddDate(0, 0, i), Open: p, High: p + shariah.PriceScale, Low: p - shariah.PriceScale, Close: p, Volume: int64(1000 * (i + 1))})
	}
	q, ok := QuoteFromBars("X", bars, shariah.SourceHistory)
	if !ok || q.Price.String() != "109.00" || q.Change.String() != "1.00" || q.ChangePercent.StringFixed(2) != "0.93" || q.AvgVolume == nil || *q.AvgVolume != 5000 || q.Range52WBasis != "high_low" ||
		q.High52W.String() != "110.00" || q.Low52W.String() != "99.00" || q.AsOf != "2025-02-05" {
		t.Fatalf("quote %+v", q)
	}
	m := shariah.MonthlyFromDaily(bars)
	if len(m) != 2 || m[0].Close.String() != "104.00" || m[0].Open.String() != "100.00" || m[0].High.String() != "105.00" || m[0].Volume != 15000 {
		t.Fatalf("monthly %s", fmt.Sprint(m))
	}
	w := shariah.WeeklyFromDaily(bars)
	if len(w) != 2 || w[0].Close != bars[6].Close || w[1].Close != bars[9].Close { // Mon 27 Jan..Sun 2 Feb, then 3..5 Feb
		t.Fatalf("weekly %d", len(w))
	}
}
