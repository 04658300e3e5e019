package edge

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// accountKey returns the full record of the calling key (authenticated by the meter).
func (s *Server) accountKey(c *fiber.Ctx) (account.APIKey, error) {
	ch := chargeOf(c)
	return s.store.KeyByHash(c.UserContext(), ch.Key.Hash)
}

// me answers GET /api/auth/me (and the deprecated GET /api/keys/{api_key}/usage).
func (s *Server) me(c *fiber.Ctx) error {
	k, err := s.accountKey(c)
	if err != nil {
		return err
	}
	p, _ := s.plans.Lookup(k.Plan)
	period := account.PeriodOf(s.Now())
	if f, ok := s.Meter.(account.MeterFlusher); ok {
		// this edge's unsettled spending first, so the caller sees its own requests counted (if Redis
		// is out, the read below fails too; a failed flush leaves the spending to the next tick)
		_ = f.Flush(c.UserContext(), k.Hash)
	}
	st, err := s.store.MeterState(c.UserContext(), k.Hash, period)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{
		"key_prefix": k.Prefix,
		"email":      k.Email,
		"plan":       k.Plan,
		"plan_name":  p.Name,
		"active":     k.Active,
		"created_at": k.CreatedAt.Format(time.RFC3339),
		"quota":      account.QuotaOf(p, st, period),
		"overage":    st.Overage > 0,
	})
}

// usageDaily answers GET /api/auth/me/usage/daily?days=N (1..90, default 30): one row per UTC day with
// requests, tokens and errors of the calling key's user, from ClickHouse.
func (s *Server) usageDaily(c *fiber.Ctx) error {
	var v shariah.Validation
	days := intQuery(c, &v, "days", 30, 1, 90)
	if err := v.Err(); err != nil {
		return err
	}
	ch := chargeOf(c)
	user := ch.Key.UserID // read here: the query may outlive the request (readUsage), the charge may not
	since := s.Now().UTC().AddDate(0, 0, -(days - 1))
	var rows []account.DailyUsage
	err := s.readUsage(c, func(ctx context.Context) (err error) {
		rows, err = s.UsageReader.DailyUsage(ctx, user, since)
		return err
	})
	if err != nil {
		return err
	}
	var req, tok int64
	for _, r := range rows {
		req += r.Requests
		tok += r.Tokens
	}
	return c.JSON(fiber.Map{
		"key_prefix": ch.Key.Prefix,
		"days":       days,
		"since":      since.Format("2006-01-02"),
		"usage":      rows,
		"totals":     fiber.Map{"requests": req, "tokens": tok},
	})
}

// usageReadTimeout bounds a usage query: a hung ClickHouse answers 503 within it, not a request held
// for its driver's 30 s read timeout or 5 s dial timeout (the 3 s query bound the README states).
const usageReadTimeout = 3 * time.Second

// readUsage runs a usage query, answering 503 SERVICE_UNAVAILABLE with Retry-After while ClickHouse is
// unavailable (known from health checks or an earlier failed query, or found by this one).
func (s *Server) readUsage(c *fiber.Ctx, q func(context.Context) error) error {
	unavailable := func() error {
		c.Set(fiber.HeaderRetryAfter, "5")
		return shariah.Errorf(shariah.EUNAVAILABLE, "Usage history is temporarily unavailable; usage is still being recorded. Retry shortly.")
	}
	if s.deps.isDown(DepClickHouse) {
		// Known down: a fresh check (waited for briefly) decides, so the first request after a
		// recovery is served.
		if s.deps.probeAll(DepClickHouse); s.deps.state(DepClickHouse) != "ok" {
			return unavailable()
		}
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), usageReadTimeout)
	defer cancel()
	// The driver does not hold every step to the context: a new connection's handshake waits its own
	// dial timeout (5 s) on a hung server. The query runs aside and the request stops waiting at the
	// deadline; an abandoned query ends by itself within the driver's timeouts.
	res := make(chan error, 1)
	go func() { res <- q(ctx) }()
	var err error
	select {
	case err = <-res:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		s.deps.failed(DepClickHouse, err)
		return unavailable()
	}
	s.deps.succeeded(DepClickHouse)
	return nil
}

// usageRecent answers GET /api/auth/me/usage/recent?limit=N (1..500, default 50), newest first.
func (s *Server) usageRecent(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 50, 1, 500)
	if err := v.Err(); err != nil {
		return err
	}
	ch := chargeOf(c)
	user := ch.Key.UserID // read here: the query may outlive the request (readUsage), the charge may not
	var rows []account.RecentRequest
	err := s.readUsage(c, func(ctx context.Context) (err error) {
		rows, err = s.UsageReader.RecentRequests(ctx, user, limit)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"key_prefix": ch.Key.Prefix, "limit": limit, "requests": rows})
}

// regenerate deactivates the calling key and returns its replacement (shown once).
func (s *Server) regenerate(c *fiber.Ctx) error {
	old, err := s.accountKey(c)
	if err != nil {
		return err
	}
	k, err := s.Keys.Regenerate(c.UserContext(), old)
	if err != nil {
		return err
	}
	return c.JSON(s.issuedBody(k, old.Prefix))
}
