package market

import "time"

// PricesStaleAfter is how old the latest price session may be before the prices are stale.
const PricesStaleAfter = 7 * 24 * time.Hour

// PricesStatus rates the latest price session (YYYY-MM-DD): "stale" when older than PricesStaleAfter
// at now, otherwise (or when the date does not parse) "ok".
func PricesStatus(latestSession string, now time.Time) string {
	if t, err := time.Parse("2006-01-02", latestSession); err == nil && now.Sub(t) > PricesStaleAfter {
		return "stale"
	}
	return "ok"
}
