package edge

import (
	"fmt"
	"math"
	"strings"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// changes answers GET /api/changes?since=&symbols=A,B&watchlist=&index=&limit=: the verdict changes
// recorded after the cursor, in order, with the cursor to read on from (screening.ChangeFeed.Changes,
// MCP's get_verdict_changes reads the same). A cursor older than the log keeps is 410 CURSOR_EXPIRED.
func (s *Server) changes(c *fiber.Ctx) error {
	if s.Changes == nil {
		return shariah.Errorf(shariah.EUNAVAILABLE, "The change feed is not available here.")
	}
	var v shariah.Validation
	q := screening.ChangeQuery{Since: c.Query("since"), WatchlistID: c.Query("watchlist"), Index: c.Query("index"),
		Limit: intQuery(c, &v, "limit", screening.ChangesLimitDefault, math.MinInt32, math.MaxInt32)}
	if raw := c.Query("symbols"); raw != "" {
		q.Symbols = strings.Split(raw, ",")
	}
	if q.Limit == 0 {
		v.Add(fmt.Sprintf("value must be between 1 and %d", screening.ChangesLimitMax), "value_error.number.range", "query", "limit")
	}
	if err := v.Err(); err != nil {
		return err
	}
	if ch := chargeOf(c); ch != nil {
		q.UserID = ch.Key.UserID
	}
	page, err := s.Changes.Changes(c.UserContext(), q)
	if err != nil {
		return err
	}
	return c.JSON(page)
}
