package screening

import (
	"context"
	"encoding/json"
	"time"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// WatchlistItem is a symbol of a watchlist with its latest compliance status.
type WatchlistItem struct {
	Symbol           string     `json:"symbol"`
	Name             string     `json:"name"`
	ComplianceStatus string     `json:"compliance_status"`
	IsCompliant      *bool      `json:"is_compliant"`
	ScreenedAt       *time.Time `json:"screened_at"`
	Illustrative     bool       `json:"illustrative"`
}

// WatchlistWithStatuses is a watchlist with each symbol's latest compliance status.
type WatchlistWithStatuses struct {
	account.Watchlist
	Items []WatchlistItem `json:"items"`
}

// MarshalJSON writes the watchlist's fields (count included) and its items; without it the embedded
// account.Watchlist's MarshalJSON would write the watchlist alone.
func (w WatchlistWithStatuses) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		account.WatchlistJSON
		Items []WatchlistItem `json:"items"`
	}{w.Watchlist.Served(), w.Items})
}

// WatchlistStatuses adds each symbol's latest compliance status (the cached screening, computed on a
// miss, under the default ruleset): NOT_SCREENABLE for an ETF, fund or index, NOT_FOUND for a symbol
// removed from the database since it was added. Any other failure is returned.
func (s *Screener) WatchlistStatuses(ctx context.Context, w account.Watchlist) (WatchlistWithStatuses, error) {
	out := WatchlistWithStatuses{Watchlist: w, Items: make([]WatchlistItem, 0, len(w.Symbols))}
	for _, sym := range w.Symbols {
		it := WatchlistItem{Symbol: sym}
		r, _, err := s.Screen(ctx, sym, ScreenOptions{})
		switch code := shariah.ErrorCode(err); code {
		case "":
			at := r.ScreenedAt
			it.Name, it.ComplianceStatus, it.IsCompliant, it.ScreenedAt, it.Illustrative = r.Name, r.ComplianceStatus, r.IsCompliant, &at, r.DataQuality.Illustrative
		case shariah.EVALIDATION:
			it.ComplianceStatus = "NOT_SCREENABLE" // an ETF, fund or index: see POST /api/etf/{symbol}/screen
		case shariah.ENOTFOUND:
			it.ComplianceStatus = "NOT_FOUND"
		default:
			return out, err
		}
		out.Items = append(out.Items, it)
	}
	return out, nil
}
