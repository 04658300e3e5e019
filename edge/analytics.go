package edge

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// The usage analytics: operator routes (keys of the internal plan) over the whole fleet, and the
// caller's own per-route breakdown. Parsing and validation are the domain's (usage_analytics.go); the
// answers come from ClickHouse's aggregates through readUsage (503 with Retry-After while it is out).

// operator refuses a key that is not an operator's (403), before its parameters are looked at.
func operator(c *fiber.Ctx) error {
	if !account.CallerOf(chargeOf(c).Key).Operator {
		return shariah.Errorf(shariah.EFORBIDDEN, "Usage analytics are for operator keys (the internal plan).")
	}
	return nil
}

// routeTemplates are the route templates the edge serves (the values a route filter may take).
func (s *Server) routeTemplates() []string {
	out := make([]string, 0, len(s.routes))
	for _, r := range s.routes {
		out = append(out, r.Path)
	}
	return out
}

// rangeBody is the range every analytics answer echoes, RFC 3339 UTC.
func rangeBody(r account.UsageRange) fiber.Map {
	return fiber.Map{"from": r.From.Format(time.RFC3339), "to": r.To.Format(time.RFC3339)}
}

// analyticsUsage answers GET /api/analytics/usage: requests, tokens, errors and latency percentiles per
// hour or day, grouped by route, plan or key.
func (s *Server) analyticsUsage(c *fiber.Ctx) error {
	if err := operator(c); err != nil {
		return err
	}
	var v shariah.Validation
	q := account.ParseUsageQuery(&v, func(n string) string { return c.Query(n) }, s.Now(), s.routeTemplates(), s.plans)
	if err := v.Err(); err != nil {
		return err
	}
	var rep account.UsageReport
	if err := s.readUsage(c, func(ctx context.Context) (err error) {
		rep, err = s.UsageReader.UsageSeries(ctx, q)
		return err
	}); err != nil {
		return err
	}
	return c.JSON(rep)
}

// analyticsRoutes answers GET /api/analytics/routes: usage per route over a range, of one plan or all.
func (s *Server) analyticsRoutes(c *fiber.Ctx) error {
	if err := operator(c); err != nil {
		return err
	}
	return s.routeUsage(c, "")
}

// usageRoutes answers GET /api/auth/me/usage/routes: the caller's account's usage per route.
func (s *Server) usageRoutes(c *fiber.Ctx) error { return s.routeUsage(c, chargeOf(c).Key.UserID) }

// routeUsage answers the routes breakdown of one user, or of the fleet (userID "").
func (s *Server) routeUsage(c *fiber.Ctx, userID string) error {
	var v shariah.Validation
	r := account.ParseUsageRange(&v, c.Query("from"), c.Query("to"), s.Now())
	plan := ""
	if userID == "" {
		plan = account.ParseUsagePlan(&v, c.Query("plan"), s.plans)
	}
	if err := v.Err(); err != nil {
		return err
	}
	var routes []account.RouteUsage
	if err := s.readUsage(c, func(ctx context.Context) (err error) {
		routes, err = s.UsageReader.RouteUsage(ctx, r, plan, userID)
		return err
	}); err != nil {
		return err
	}
	body := rangeBody(r)
	body["routes"] = routes
	return c.JSON(body)
}

// analyticsTopKeys answers GET /api/analytics/top-keys?limit=N (1..100, default 10): the keys with the
// most tokens over a range, by their public prefix.
func (s *Server) analyticsTopKeys(c *fiber.Ctx) error {
	if err := operator(c); err != nil {
		return err
	}
	var v shariah.Validation
	r := account.ParseUsageRange(&v, c.Query("from"), c.Query("to"), s.Now())
	limit := intQuery(c, &v, "limit", 10, 1, 100)
	if err := v.Err(); err != nil {
		return err
	}
	var keys []account.KeyUsage
	if err := s.readUsage(c, func(ctx context.Context) (err error) {
		keys, err = s.UsageReader.TopKeys(ctx, r, limit)
		return err
	}); err != nil {
		return err
	}
	body := rangeBody(r)
	body["keys"] = keys
	return c.JSON(body)
}

// analyticsQuotaEvents answers GET /api/analytics/quota-events?limit=N (1..1000, default 100): quota
// exhaustions and overage starts, newest first.
func (s *Server) analyticsQuotaEvents(c *fiber.Ctx) error {
	if err := operator(c); err != nil {
		return err
	}
	var v shariah.Validation
	r := account.ParseUsageRange(&v, c.Query("from"), c.Query("to"), s.Now())
	limit := intQuery(c, &v, "limit", 100, 1, 1000)
	if err := v.Err(); err != nil {
		return err
	}
	var events []account.QuotaEvent
	if err := s.readUsage(c, func(ctx context.Context) (err error) {
		events, err = s.UsageReader.QuotaEvents(ctx, r, limit)
		return err
	}); err != nil {
		return err
	}
	body := rangeBody(r)
	body["events"] = events
	return c.JSON(body)
}
