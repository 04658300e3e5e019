package market

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// Trending is an equity ranked by trading activity and price movement on its latest session.
type Trending struct {
	Symbol        string         `json:"symbol"`
	Name          string         `json:"name"`
	Price         shariah.Price  `json:"price"`
	Currency      string         `json:"currency"`        // of the price (the listing's trading currency)
	ChangePercent shariah.Number `json:"change_percent"`  // percent, 2 places (a JSON number; older stored items hold a numeric string)
	Change        string         `json:"change"`          // the same, signed with a percent sign: "+1.23%"
	Volume        *int64         `json:"volume"`          // null when the source has no volume
	RelVolume     *string        `json:"relative_volume"` // volume / 20-session average, null when unknown
	Score         string         `json:"score"`
	AsOf          string         `json:"as_of"`
	Source        string         `json:"source"`
	// Illustrative marks a made-up session (source illustrative): such items rank after every real one.
	Illustrative bool `json:"illustrative"`
	// AssetType is the listing's kind: always equity (RankTrending ranks nothing else); empty on items
	// stored before it existed, which TrendingList checks against the asset records.
	AssetType shariah.AssetType `json:"asset_type"`
}

// TrendingReader is what TrendingList reads: the ranked list and, for items stored before they carried
// their kind and currency, the asset records.
type TrendingReader interface {
	Trending(ctx context.Context) ([]Trending, error)
	AssetsMany(ctx context.Context, symbols []string) (map[string]shariah.Asset, error)
}

// TrendingList is the trending list as served (REST and MCP): equities only, at most limit items, each
// with its currency, the signed change string and the illustrative mark. Items stored before those
// fields existed get them here: their asset records say which are equities (an index or a fund is
// left out) and their currency.
func TrendingList(ctx context.Context, st TrendingReader, limit int) ([]Trending, error) {
	items, err := st.Trending(ctx)
	if err != nil {
		return nil, err
	}
	var legacy []string
	for _, it := range items {
		if it.AssetType == "" {
			legacy = append(legacy, it.Symbol)
		}
	}
	var assets map[string]shariah.Asset
	if len(legacy) > 0 {
		if assets, err = st.AssetsMany(ctx, legacy); err != nil {
			return nil, err
		}
	}
	out := make([]Trending, 0, min(max(limit, 0), len(items))) // a copy: the store's slice is not changed
	for _, it := range items {
		if len(out) == cap(out) {
			break
		}
		if it.AssetType == "" {
			a := assets[it.Symbol]
			it.AssetType = a.Type
			if it.Currency == "" {
				it.Currency = a.Currency
			}
		}
		if it.AssetType != shariah.Equity {
			continue
		}
		if it.Change == "" {
			it.Change = SignedPercent(it.ChangePercent.Decimal)
		}
		it.Illustrative = it.Source == shariah.SourceIllustrative
		out = append(out, it)
	}
	return out, nil
}

// TrendingKeep is how many ranked items are stored: the most a client may ask for (limit 1 to 50).
const TrendingKeep = 50

// TrendingFreshDays is how far (calendar days) before the latest session a quote's session may be and
// still trend: markets close on different days (holidays, time zones), but a stale series does not trend.
const TrendingFreshDays = 7

// RankTrending ranks the daily quotes of equities (assets says each symbol's kind; indices, funds and
// symbols without a record are left out) by activity and absolute move on their latest session, best
// first, at most TrendingKeep: score = |change %| x relative volume (volume / 20-session average) where
// both volumes are known, |change %| alone where the source has none (a close-only source). Real
// quotes (history, live) rank before every illustrative one, which is marked; each kind counts only
// the quotes whose session is within TrendingFreshDays of its own latest session (made-up sessions
// are not dated like real ones). Ties go by symbol.
func RankTrending(qs []Quote, assets map[string]shariah.Asset) []Trending {
	monthly := func(q Quote) bool { return strings.Contains(q.Description, "monthly") }
	illustrative := func(q Quote) bool { return q.Source == shariah.SourceIllustrative }
	var cands []Quote
	latest := map[bool]string{} // by illustrative
	for _, q := range qs {
		a, ok := assets[q.Symbol]
		if monthly(q) || q.ChangePercent == nil || !ok || a.Type != shariah.Equity {
			continue
		}
		if q.Currency == "" {
			q.Currency = a.Currency
		}
		cands = append(cands, q)
		if q.AsOf > latest[illustrative(q)] {
			latest[illustrative(q)] = q.AsOf
		}
	}
	fresh := map[bool]string{}
	for k, l := range latest {
		lt, err := time.Parse("2006-01-02", l)
		if err != nil {
			continue
		}
		fresh[k] = lt.AddDate(0, 0, -TrendingFreshDays).Format("2006-01-02")
	}
	type scored struct {
		t     Trending
		score decimal.Decimal
	}
	var all []scored
	for _, q := range cands {
		from, ok := fresh[illustrative(q)]
		if !ok || q.AsOf < from {
			continue
		}
		pct := q.ChangePercent.Decimal
		score := pct.Abs()
		t := Trending{Symbol: q.Symbol, Name: q.Name, Price: q.Price, Currency: q.Currency, ChangePercent: shariah.NewNumber(pct.Round(2)),
			Change: SignedPercent(pct), Volume: q.Volume, AsOf: q.AsOf, Source: q.Source, Illustrative: illustrative(q), AssetType: shariah.Equity}
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
		if all[i].t.Illustrative != all[j].t.Illustrative {
			return !all[i].t.Illustrative
		}
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
