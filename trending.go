package shariah

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Trending is an asset ranked by trading activity and price movement on its latest session.
type Trending struct {
	Symbol        string  `json:"symbol"`
	Name          string  `json:"name"`
	Price         Price   `json:"price"`
	ChangePercent Number  `json:"change_percent"`  // percent, 2 places (a JSON number; older stored items hold a numeric string)
	Change        string  `json:"change"`          // the same, signed with a percent sign: "+1.23%"
	Volume        *int64  `json:"volume"`          // null when the source has no volume
	RelVolume     *string `json:"relative_volume"` // volume / 20-session average, null when unknown
	Score         string  `json:"score"`
	AsOf          string  `json:"as_of"`
	Source        string  `json:"source"`
}

// TrendingList is the trending list as served (REST and MCP): at most limit items, each with the signed
// change string, filled for items stored before the field existed.
func TrendingList(ctx context.Context, st RefReader, limit int) ([]Trending, error) {
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

// TrendingKeep is how many ranked items are stored: the most a client may ask for (limit 1 to 50).
const TrendingKeep = 50

// TrendingFreshDays is how far (calendar days) before the latest session a quote's session may be and
// still trend: markets close on different days (holidays, time zones), but a stale series does not trend.
const TrendingFreshDays = 7

// RankTrending ranks daily quotes by activity and absolute move on their latest session, best first,
// at most TrendingKeep: score = |change %| x relative volume (volume / 20-session average) where both
// volumes are known, |change %| alone where the source has none (a close-only source). It ranks on what
// is known: when any quote is real (not illustrative), illustrative ones are left out, and only quotes
// whose session is within TrendingFreshDays of the latest session count. Ties go by symbol.
func RankTrending(qs []Quote) []Trending {
	monthly := func(q Quote) bool { return strings.Contains(q.Description, "monthly") }
	var cands []Quote
	real := false
	for _, q := range qs {
		if monthly(q) || q.ChangePercent == nil {
			continue
		}
		cands = append(cands, q)
		real = real || q.Source != SourceIllustrative
	}
	latest := ""
	for _, q := range cands {
		if (!real || q.Source != SourceIllustrative) && q.AsOf > latest {
			latest = q.AsOf
		}
	}
	lt, err := time.Parse("2006-01-02", latest)
	if err != nil {
		return []Trending{}
	}
	fresh := lt.AddDate(0, 0, -TrendingFreshDays).Format("2006-01-02")
	type scored struct {
		t     Trending
		score decimal.Decimal
	}
	var all []scored
	for _, q := range cands {
		if (real && q.Source == SourceIllustrative) || q.AsOf < fresh {
			continue
		}
		pct := q.ChangePercent.Decimal
		score := pct.Abs()
		t := Trending{Symbol: q.Symbol, Name: q.Name, Price: q.Price, ChangePercent: NewNumber(pct.Round(2)), Change: SignedPercent(pct),
			Volume: q.Volume, AsOf: q.AsOf, Source: q.Source}
		if q.AvgVolume != nil && q.Volume != nil && *q.AvgVolume > 0 && *q.Volume > 0 {
			rel := decimal.NewFromInt(*q.Volume).Div(decimal.NewFromInt(*q.AvgVolume)).Round(2)
			rs := rel.StringFixed(2)
			t.RelVolume = &rs
			score = score.Mul(rel)
		}
		t.Score = score.StringFixed(2)
		all = append(all, scored{t, score})
	}
	sort.SliceStable(all, func(i, j int) bool {
		if !all[i].score.Equal(all[j].score) {
			return all[i].score.GreaterThan(all[j].score)
		}
		return all[i].t.Symbol < all[j].t.Symbol
	})
	out := make([]Trending, 0, min(len(all), TrendingKeep))
	for i := 0; i < len(all) && i < TrendingKeep; i++ {
		out = append(out, all[i].t)
	}
	return out
}
