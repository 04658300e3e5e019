package edge

import (
	"math"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/screening"
)

// alternatives answers compliant equities of the symbol's sector (same country first, then closest
// market cap), screened under the requested ruleset.
func (s *Server) alternatives(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 5, 1, 50)
	if err := v.Err(); err != nil {
		return err
	}
	o, err := s.screenOptions(c)
	if err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	res, err := s.insights.Alternatives(c.UserContext(), a.Symbol, o, limit)
	if err != nil {
		return err
	}
	return c.JSON(res)
}

// peerPercentiles places the symbol's book ratios among its sector peers.
func (s *Server) peerPercentiles(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	res, err := s.insights.PeerPercentiles(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	return c.JSON(res)
}

// cashflow answers operating and free cash flow by fiscal year from the stored XBRL facts.
func (s *Server) cashflow(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	facts, err := s.Filings.Facts(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	res := insights.CashflowOf(facts, a.CIK)
	return c.JSON(fiber.Map{"symbol": a.Symbol, "cik": a.CIK, "available": res.Available, "reason": res.Reason, "years": res.Years,
		"trend": res.Trend, "summary": res.Summary})
}

// trajectory answers the last 8 quarters of the screening ratios and a one-line direction.
func (s *Server) trajectory(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	pts, err := s.Trajectory.Trajectory(c.UserContext(), a.Symbol, 8)
	if err != nil {
		return err
	}
	if pts == nil {
		pts = []insights.TrajectoryPoint{}
	}
	return c.JSON(fiber.Map{"symbol": a.Symbol, "quarters": pts, "summary": insights.TrajectorySummary(pts)})
}

// staleness compares the cached screening with the filings since: a material 8-K after the screening
// (or after the fundamentals it used) may have changed what the verdict rests on.
func (s *Server) staleness(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	r, err := s.Screener.Cached(c.UserContext(), a.Symbol, screening.ScreenOptions{Ruleset: c.Query("ruleset")})
	if err != nil {
		return err
	}
	all, err := s.Filings.Filings(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	return c.JSON(screening.StalenessOf(r, all, s.EventRelevance))
}

// trajectoryScope reads the scope of the index-wide trajectory routes: index or watchlist_id (the
// caller's own), quarters. The domain checks the scope's rules (TrajectoryAnalytics); here only that
// quarters is an integer.
func trajectoryScope(c *fiber.Ctx, v *shariah.Validation) insights.TrajectoryScope {
	sc := insights.TrajectoryScope{Index: c.Query("index"), WatchlistID: c.Query("watchlist_id"),
		Quarters: intQuery(c, v, "quarters", insights.DriftQuartersDefault, math.MinInt32, math.MaxInt32)}
	if ch := chargeOf(c); ch != nil {
		sc.UserID = ch.Key.UserID
	}
	return sc
}

// drift answers the companies of an index or a watchlist whose ratios drift toward or across a
// methodology's thresholds (insights.TrajectoryAnalytics.Drift).
func (s *Server) drift(c *fiber.Ctx) error {
	var v shariah.Validation
	q := insights.DriftQuery{TrajectoryScope: trajectoryScope(c, &v), Ruleset: c.Query("ruleset"), Methodology: c.Query("methodology")}
	if err := v.Err(); err != nil {
		return err
	}
	r, err := s.Trajectories.Drift(c.UserContext(), q)
	if err != nil {
		return err
	}
	return c.JSON(r)
}

// sectorMedians answers the per-quarter sector medians of an index's or a watchlist's filed ratios.
func (s *Server) sectorMedians(c *fiber.Ctx) error {
	var v shariah.Validation
	sc := trajectoryScope(c, &v)
	if err := v.Err(); err != nil {
		return err
	}
	r, err := s.Trajectories.SectorMedians(c.UserContext(), sc)
	if err != nil {
		return err
	}
	return c.JSON(r)
}
