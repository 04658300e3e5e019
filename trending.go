package shariah

import "context"

// Trending is an asset ranked by trading activity and price movement on its latest session.
type Trending struct {
	Symbol        string  `json:"symbol"`
	Name          string  `json:"name"`
	Price         Price   `json:"price"`
	ChangePercent Number  `json:"change_percent"` // percent, 2 places (a JSON number; older stored items hold a numeric string)
	Change        string  `json:"change"`         // the same, signed with a percent sign: "+1.23%"
	Volume        int64   `json:"volume"`
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
