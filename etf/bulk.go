package etf

import (
	"context"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// BulkItem is one input of an ETF bulk screening: its look-through, or why there is none. Fields
// are in the order of the JSON the edge has always served (alphabetical).
type BulkItem struct {
	Error  string  `json:"error,omitempty"`
	Input  string  `json:"input"`
	Result *Result `json:"result,omitempty"`
	Status string  `json:"status"` // the look-through's compliance status, NOT_FOUND or NOT_SCREENABLE
	Symbol string  `json:"symbol,omitempty"`
}

// ScreenMany screens the look-through of each input under ruleset, cached ones reused
// (CachedOrScreen): NOT_FOUND for a symbol the catalog does not know, NOT_SCREENABLE with the reason
// for one that is not an ETF or has no holdings. An internal error ends the run. counts is per status.
func (e *Service) ScreenMany(ctx context.Context, cat *catalog.Catalog, inputs []string, ruleset string) ([]BulkItem, map[string]int, error) {
	var out []BulkItem
	counts := map[string]int{}
	for _, raw := range inputs {
		it := BulkItem{Input: raw}
		if res := cat.Canonical(raw); res.Symbol == "" {
			it.Status, it.Error = "NOT_FOUND", "Symbol is not in the database."
		} else {
			it.Symbol = res.Symbol
			r, err := e.CachedOrScreen(ctx, res.Symbol, ruleset)
			switch shariah.ErrorCode(err) {
			case "":
				it.Status, it.Result = r.ComplianceStatus, &r
			case shariah.EINTERNAL:
				return nil, nil, err
			default:
				it.Status, it.Error = "NOT_SCREENABLE", err.(*shariah.Error).Message
			}
		}
		counts[it.Status]++
		out = append(out, it)
	}
	return out, counts, nil
}
