package datapack

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
)

// SP500SnapshotDate is the day of the staged S&P 500 price/market-cap snapshot
// (fundamentals/sp500-financials-datasets: refreshed daily from Yahoo Finance; the staged copy is of
// the source's commit of 2026-08-22).
const SP500SnapshotDate = "2026-08-22"

// AlignShares puts every period's shares outstanding of the pack on the basis of its closes, before any
// market cap is made from them. The shared closes are split-adjusted as retrieved (every split up to
// the retrieval is carried back through the series: BKNG's 2025 closes already reflect its 25-for-1 of
// 2026), so a cover-page count dated before a split is multiplied by the split's ratio. The splits, in
// order of authority:
//
//  1. the price source's split history (the staged price matrices have none);
//  2. the pack's Splits: the companyfacts-derived split history and the filings' split-ratio facts;
//  3. a day-over-day close ratio that matches a split factor (an unadjusted series): the closes before
//     it are divided by the ratio, and the split is named "inferred from a close ratio jump";
//  4. for a company no split history covers (histories), a market snapshot whose share count (market
//     cap / price, on the closes' basis) is a split factor times the cover count: a split "inferred
//     from the market snapshot" between the cover date and the snapshot.
//
// A count whose date falls inside a split's window (the data cannot say which side it is on), or that
// differs from the company's later counts by a split factor no split explains, is held back: the
// period's shares become unmeasured (Missing, beginning market.SplitUnplaced) and a problem says why;
// a market cap from it would be suspect. Each adjusted count says in its Note what was done.
func AlignShares(p *Pack, histories map[string]bool, snaps map[string]MarketSnapshot, snapDate string) {
	bySym := map[string][]int{}
	for i, f := range p.Fundamentals {
		if _, ok := f.Facts[shariah.SharesOutstanding]; ok {
			bySym[f.Symbol] = append(bySym[f.Symbol], i)
		}
	}
	if len(bySym) == 0 {
		return
	}
	daily, monthly := map[string]int{}, map[string]int{}
	for i, s := range p.Series {
		switch s.Interval {
		case "1d":
			daily[s.Symbol] = i
		case "1mo":
			monthly[s.Symbol] = i
		}
	}
	splits := map[string][]market.Split{}
	for _, s := range p.Splits {
		splits[s.Symbol] = append(splits[s.Symbol], s)
	}
	for sym, ss := range splits {
		splits[sym] = mergeSplits(ss)
	}
	syms := make([]string, 0, len(bySym))
	for sym := range bySym {
		syms = append(syms, sym)
	}
	sort.Strings(syms)
	for _, sym := range syms {
		if di, ok := daily[sym]; ok {
			if s, ok := adjustJumps(p, di, monthly); ok {
				splits[sym] = append(splits[sym], s...)
				p.Splits = append(p.Splits, s...)
			}
		}
		if !histories[sym] && !splitAfterShares(p, bySym[sym], splits[sym]) {
			if s, ok := snapshotSplit(p, sym, bySym[sym], splits[sym], daily, snaps, snapDate); ok {
				splits[sym] = append(splits[sym], s)
				p.Splits = append(p.Splits, s)
			}
		}
		for _, i := range bySym[sym] {
			alignPeriod(p, &p.Fundamentals[i], splits[sym])
		}
		checkShareBasis(p, bySym[sym])
	}
}

// splitAfterShares reports whether a known split is dated after the company's earliest share count:
// the counts are then placed by it, and a snapshot is not read for another.
func splitAfterShares(p *Pack, idx []int, splits []market.Split) bool {
	first := ""
	for _, i := range idx {
		f := p.Fundamentals[i]
		if at := sharesDate(f, f.Facts[shariah.SharesOutstanding]); first == "" || at < first {
			first = at
		}
	}
	for _, s := range splits {
		if s.On > first {
			return true
		}
	}
	return false
}

// mergeSplits makes one split of the reports of one split: splits of the same ratio whose dates are
// within 180 days of each other (a filing's split facts dated at the announcement and at the effective
// day; the same split in two sources) become one, its window spanning both.
func mergeSplits(ss []market.Split) []market.Split {
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].On < ss[j].On })
	var out []market.Split
	for _, s := range ss {
		if n := len(out); n > 0 {
			last := &out[n-1]
			a, errA := time.Parse("2006-01-02", last.On)
			b, errB := time.Parse("2006-01-02", s.On)
			if errA == nil && errB == nil && last.Ratio.Equal(s.Ratio) && b.Sub(a) <= 180*24*time.Hour {
				lo := windowStart(*last)
				if w := windowStart(s); w < lo {
					lo = w
				}
				last.After, last.On = lo, s.On
				if !strings.Contains(last.Source, s.Source) {
					last.Source += "; " + s.Source
				}
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// windowStart is the exclusive start of a split's window: After, or the day before an exact date.
func windowStart(s market.Split) string {
	if s.After != "" {
		return s.After
	}
	if d, err := time.Parse("2006-01-02", s.On); err == nil {
		return d.AddDate(0, 0, -1).Format("2006-01-02")
	}
	return s.On
}

// sharesDate is the date a share count is as of: the cover page's date, else the filing date, else
// the period end.
func sharesDate(f shariah.Fundamentals, fact shariah.Fact) string {
	switch {
	case fact.AsOf != "":
		return fact.AsOf
	case fact.Filed != "":
		return fact.Filed
	}
	return f.PeriodEnd
}

// alignPeriod puts one period's share count on the closes' basis, or holds it back.
func alignPeriod(p *Pack, f *shariah.Fundamentals, splits []market.Split) {
	fact := f.Facts[shariah.SharesOutstanding]
	at := sharesDate(*f, fact)
	factor, applied, unplaced := market.SplitBasis(splits, at)
	if len(unplaced) > 0 {
		s := unplaced[0]
		why := fmt.Sprintf("%sthe cover count %s (as of %s) cannot be put on the closes' basis: the %s split %s (%s) may be before or after it",
			market.SplitUnplaced, fact.Value.Decimal.String(), at, s.Name(), s.When(), s.Source)
		holdBackShares(p, f, why)
		return
	}
	if len(applied) == 0 || factor.Equal(decimal.NewFromInt(1)) {
		return
	}
	var names []string
	for _, s := range applied {
		names = append(names, fmt.Sprintf("the %s split %s (%s)", s.Name(), s.When(), s.Source))
	}
	note := fmt.Sprintf("on the closes' basis: the cover count %s (as of %s) x %s for %s",
		fact.Value.Decimal.String(), at, factor.String(), strings.Join(names, " and "))
	fact.Value = shariah.NewNumber(fact.Value.Decimal.Mul(factor).Round(0))
	if len(fact.Classes) > 0 {
		classes := make([]shariah.ShareClass, len(fact.Classes))
		for i, c := range fact.Classes {
			classes[i] = shariah.ShareClass{Class: c.Class, Shares: shariah.NewNumber(c.Shares.Decimal.Mul(factor).Round(0))}
		}
		fact.Classes = classes
	}
	if fact.Note != "" {
		note = fact.Note + "; " + note
	}
	fact.Note = note
	f.Facts[shariah.SharesOutstanding] = fact
}

// holdBackShares makes a period's shares unmeasured with the reason, and logs it.
func holdBackShares(p *Pack, f *shariah.Fundamentals, why string) {
	delete(f.Facts, shariah.SharesOutstanding)
	if f.Missing == nil {
		f.Missing = map[shariah.Field]string{}
	}
	f.Missing[shariah.SharesOutstanding] = why
	p.Problemf("shares_outstanding", 0, "%s %s %s: %s", f.Symbol, f.PeriodEnd, f.Period, why)
}

// checkShareBasis walks a company's share counts (already on the closes' basis) from the latest back:
// a count that differs from the next later one kept by a split factor is on another basis that no
// split the data can place explains, and is held back.
func checkShareBasis(p *Pack, idx []int) {
	order := append([]int(nil), idx...)
	sort.SliceStable(order, func(a, b int) bool {
		fa, fb := p.Fundamentals[order[a]], p.Fundamentals[order[b]]
		return fa.PeriodEnd > fb.PeriodEnd
	})
	var ref *shariah.Fundamentals
	for _, i := range order {
		f := &p.Fundamentals[i]
		fact, ok := f.Facts[shariah.SharesOutstanding]
		if !ok {
			continue
		}
		if ref == nil {
			ref = f
			continue
		}
		later := ref.Facts[shariah.SharesOutstanding]
		r, _ := later.Value.Decimal.Div(fact.Value.Decimal).Float64()
		if k, ok := market.MatchSplitFactor(r); ok {
			why := fmt.Sprintf("%sthe cover count %s (as of %s) is about %s times the later count %s (period ending %s), as if across a split, and no split the data can place between them explains it",
				market.SplitUnplaced, fact.Value.Decimal.String(), sharesDate(*f, fact), decimal.NewFromInt(1).DivRound(k, 4).String(),
				later.Value.Decimal.String(), ref.PeriodEnd)
			holdBackShares(p, f, why)
			continue
		}
		ref = f
	}
}

// adjustJumps finds day-over-day close ratios of a daily series that match a split factor (a series
// not adjusted for a split), divides the closes before each by the split's ratio, rebuilds the
// monthly series from the daily one, and returns the splits, named as inferred. A jump that reverts
// the next day is a bad print, not a split.
func adjustJumps(p *Pack, di int, monthly map[string]int) ([]market.Split, bool) {
	s := &p.Series[di]
	bars := s.Bars
	var out []market.Split
	for i := 1; i < len(bars); i++ {
		prev, cur := bars[i-1].Close, bars[i].Close
		if prev <= 0 || cur <= 0 {
			continue
		}
		r := float64(cur) / float64(prev)
		if r > 0.55 && r < 1.8 {
			continue
		}
		k, ok := market.MatchSplitFactor(r)
		if !ok {
			continue
		}
		if i+1 < len(bars) && bars[i+1].Close > 0 {
			if back, ok := market.MatchSplitFactor(float64(bars[i+1].Close) / float64(cur)); ok && back.Mul(k).Sub(decimal.NewFromInt(1)).Abs().LessThan(decimal.NewFromFloat(0.01)) {
				i++ // the print and its reversal
				continue
			}
		}
		ratio := decimal.NewFromInt(1).DivRound(k, 8) // the price falls to 1/ratio
		if ratio.GreaterThan(decimal.NewFromInt(1)) {
			ratio = ratio.Round(0)
		}
		sp := market.Split{Symbol: s.Symbol, After: bars[i-1].Date.Format("2006-01-02"), On: bars[i].Date.Format("2006-01-02"), Ratio: ratio,
			Source: fmt.Sprintf("inferred from a close ratio jump (%s to %s; the price source has no split history): the closes before it divided by %s",
				bars[i-1].Close.String(), bars[i].Close.String(), ratio.String())}
		for j := 0; j < i; j++ {
			scaleBar(&bars[j], ratio)
		}
		out = append(out, sp)
		p.Notes = append(p.Notes, fmt.Sprintf("%s: %s split %s", s.Symbol, sp.Name(), sp.Source))
	}
	if len(out) == 0 {
		return nil, false
	}
	if mi, ok := monthly[s.Symbol]; ok {
		p.Series[mi].Bars = shariah.MonthlyFromDaily(bars)
	}
	return out, true
}

// scaleBar divides a bar's prices by a split's ratio (the volume is left as it is).
func scaleBar(b *shariah.Bar, ratio decimal.Decimal) {
	div := func(v shariah.Price) shariah.Price {
		return shariah.Price(decimal.NewFromInt(int64(v)).Div(ratio).Round(0).IntPart())
	}
	b.Open, b.High, b.Low, b.Close = div(b.Open), div(b.High), div(b.Low), div(b.Close)
}

// snapshotSplit infers a split from a market snapshot for a company no split history covers: the
// snapshot's share count (market cap / price) is a split factor times the cover counts dated before
// the snapshot, and the snapshot's price is on the closes' basis (it is not itself a split factor
// away from the last close).
func snapshotSplit(p *Pack, sym string, idx []int, known []market.Split, daily map[string]int, snaps map[string]MarketSnapshot, snapDate string) (market.Split, bool) {
	snap, ok := snaps[sym]
	di, hasDaily := daily[sym]
	if !ok || !hasDaily || snap.Price <= 0 || !snap.MarketCap.IsPositive() || len(p.Series[di].Bars) == 0 {
		return market.Split{}, false
	}
	last := p.Series[di].Bars[len(p.Series[di].Bars)-1]
	if r := float64(snap.Price) / float64(last.Close); last.Close <= 0 || r < 0.55 || r > 1.8 {
		if _, ok := market.MatchSplitFactor(float64(snap.Price) / float64(last.Close)); ok {
			p.Notes = append(p.Notes, fmt.Sprintf("%s: the market snapshot's price %s is a split factor away from the last close %s (%s): no split inferred from it",
				sym, snap.Price.String(), last.Close.String(), last.Date.Format("2006-01-02")))
		}
		return market.Split{}, false
	}
	implied := snap.MarketCap.Decimal.Div(decimal.New(int64(snap.Price), -6))
	var k decimal.Decimal
	var after, before string // the latest matched count's date, the earliest later unmatched one's
	type dated struct {
		at      string
		matched bool
	}
	var pts []dated
	for _, i := range idx {
		f := p.Fundamentals[i]
		fact := f.Facts[shariah.SharesOutstanding]
		at := sharesDate(f, fact)
		if at >= snapDate || !fact.Value.IsPositive() {
			continue
		}
		factor, _, _ := market.SplitBasis(known, at)
		r, _ := implied.Div(fact.Value.Decimal.Mul(factor)).Float64()
		m, ok := market.MatchSplitFactor(r)
		if ok && (k.IsZero() || m.Equal(k)) {
			k = m
		}
		pts = append(pts, dated{at, ok && m.Equal(k)})
	}
	if k.IsZero() {
		return market.Split{}, false
	}
	sort.Slice(pts, func(a, b int) bool { return pts[a].at < pts[b].at })
	for _, d := range pts {
		if d.matched {
			if before != "" {
				return market.Split{}, false // counts on both bases interleave: left to checkShareBasis
			}
			after = d.at
		} else if after != "" && before == "" {
			before = d.at
		}
	}
	on := snapDate
	if before != "" {
		on = before
	}
	return market.Split{Symbol: sym, After: after, On: on, Ratio: k,
		Source: fmt.Sprintf("inferred from the market snapshot of %s: market cap %s / price %s = %s shares, %s times the cover count; its price is on the closes' basis (last close %s on %s)",
			snapDate, snap.MarketCap.Decimal.String(), snap.Price.String(), implied.Round(0).String(), k.String(), last.Close.String(), last.Date.Format("2006-01-02"))}, true
}
