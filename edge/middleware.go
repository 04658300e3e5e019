package edge

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// outer runs around every request, matched or not: it sets X-Request-ID (echoing a well-formed one),
// turns errors and panics into envelopes, and afterwards records metrics, the access log line and the
// usage event. It logs the route template, never the raw path: deprecated routes carry a key in it.
func (s *Server) outer(c *fiber.Ctx) error {
	start := time.Now()
	// fiber's header strings point into a buffer reused after the request; the id outlives it (usage
	// event, logs), so copy it.
	var buf [36]byte
	id := c.Request().Header.Peek("X-Request-ID")
	if !ridRE.Match(id) {
		id = appendUUID(buf[:0], uuid.Must(uuid.NewV7()))
	}
	rid := string(id)
	c.Locals(ridKey, rid)
	c.SetUserContext(s.requestContext())
	c.Response().Header.SetCanonical(hdrRequestID, id) // c.Set would canonicalise the name on every request
	if err := call(func(c *fiber.Ctx) error { return c.Next() }, c); err != nil {
		if herr := s.errorHandler(c, err); herr != nil {
			return herr
		}
	}
	status := c.Response().StatusCode()
	lat := time.Since(start)
	route := routeOf(c)
	method := strings.Clone(c.Method())
	s.metrics.observe(method, route, status, lat)
	ch := chargeOf(c)
	tokens, prefix := 0, ""
	if ch != nil {
		tokens, prefix = ch.Tokens, ch.Key.Prefix
		s.metrics.tokensOf(ch.Key.Plan).Add(float64(ch.Tokens))
		// Refusals are recorded too (a charge exists: QUOTA_EXCEEDED, RATE_LIMITED, an inactive key),
		// with 0 tokens: the usage analytics count them and the quota events read the error code.
		code, _ := c.Locals(errCodeKey).(string)
		s.Usage.Record(account.UsageEvent{
			RequestID: rid, KeyID: ch.Key.ID, UserID: ch.Key.UserID, KeyPrefix: ch.Key.Prefix,
			Method: method, Route: route, Status: status, Tokens: ch.Tokens, Overage: ch.Overage,
			Latency: lat, Time: start.UTC(), Plan: ch.Key.Plan, ErrorCode: code,
		})
	}
	if ch != nil {
		freeCharge(ch)
	}
	if s.AccessLog {
		s.log.LogAttrs(context.Background(), slog.LevelInfo, "request",
			slog.String("request_id", rid), slog.String("method", method), slog.String("route", route),
			slog.Int("status", status), slog.Float64("latency_ms", float64(lat.Microseconds())/1000),
			slog.Int("tokens", tokens), slog.String("key_prefix", prefix))
	}
	return nil
}

// charges recycles the request's charge (c.Locals holds a pointer to it: one allocation of about 300
// bytes a metered request otherwise). outer frees it after the usage event; handlers only read it
// while the request runs.
var charges = sync.Pool{New: func() any { return new(account.Charge) }}

func newCharge(v account.Charge) *account.Charge {
	ch := charges.Get().(*account.Charge)
	*ch = v
	return ch
}

func freeCharge(ch *account.Charge) {
	*ch = account.Charge{}
	charges.Put(ch)
}

// appendUUID appends u in its canonical text form (8-4-4-4-12 lowercase hex digits), as u.String()
// writes it, without a string of its own: the edge needs the id as bytes for the header and once as a
// string.
func appendUUID(dst []byte, u uuid.UUID) []byte {
	const digits = "0123456789abcdef"
	for i, b := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, digits[b>>4], digits[b&0x0f])
	}
	return dst
}

// handle wraps a route's handler: it authenticates and meters (the lease meter: mostly in memory), runs the handler, and
// refunds the charge when the response is not a success. Its errors are answered here, so the status
// is final before the refund decision.
func (s *Server) handle(rt *route) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Locals(routeKey, rt)
		if rt.Successor != "" {
			// RFC 9745 Deprecation (a date: 2026-01-01) and a Link to the replacement.
			c.Set("Deprecation", "@1767225600")
			c.Set("Link", "<"+s.BaseURL+rt.Successor+`>; rel="successor-version"`)
		}
		if rt.Auth == authNone {
			return rt.Handler(c)
		}
		key := c.Get("X-API-Key")
		if rt.Auth == authPathKey {
			key = c.Params("api_key")
		}
		if key == "" {
			return shariah.Errorf(shariah.EKEYREQUIRED, "An API key is required in the X-API-Key header. Get a free key with POST /api/keys/generate.")
		}
		if !account.WellFormedKey(key) {
			return shariah.Errorf(shariah.EBADKEY, "Invalid API key.")
		}
		items := 0
		if rt.cost.PerItem > 0 {
			// Batch routes cost per symbol; a body that does not parse is refused by the handler and refunded.
			items = account.BatchItems(c.Body())
		}
		fresh := c.Query("force_refresh") == "true"
		if rt.Fresh != nil {
			fresh = rt.Fresh(c)
		}
		cost := rt.cost.Charge(items, fresh)
		now := s.Now()
		charged, err := s.Meter.Charge(c.UserContext(), account.HashKey(key), cost, now)
		ch := newCharge(charged)
		switch shariah.ErrorCode(err) {
		case "":
		case shariah.EQUOTA:
			c.Locals(chargeKey, ch)
			s.setTokenHeaders(c, ch)
			c.Set(fiber.HeaderRetryAfter, strconv.FormatInt(ch.Period.SecondsLeft(now), 10))
			return err
		case shariah.ERATELIMITED:
			c.Locals(chargeKey, ch)
			s.setTokenHeaders(c, ch)
			c.Set(fiber.HeaderRetryAfter, strconv.FormatInt(max((ch.Rate.RetryAfter+999)/1000, 1), 10))
			return err
		case shariah.EKEYINACTIVE:
			c.Locals(chargeKey, ch)
			return err
		case shariah.EBADKEY:
			return err
		default:
			// One log line when Redis goes away and a count every few seconds, not a line per request.
			s.deps.failed(DepRedis, err)
			c.Set(fiber.HeaderRetryAfter, "1")
			return shariah.Errorf(shariah.EUNAVAILABLE, "The metering service is unavailable. Retry shortly.")
		}
		s.deps.succeeded(DepRedis)
		c.Locals(chargeKey, ch)
		s.setTokenHeaders(c, ch)
		if err := call(rt.Handler, c); err != nil {
			if herr := s.errorHandler(c, err); herr != nil {
				return herr
			}
		}
		if st := c.Response().StatusCode(); (st < 200 || st > 299) && ch.Tokens > 0 {
			// a call budget of its own: a handler's call that ran out of its budget does not forfeit
			// the refund (a leased charge is refunded in memory; an exact one takes a script call)
			if err := s.Meter.Refund(s.requestContext(), *ch); err != nil {
				s.quiet.error("refund", "refund failed", slog.String("request_id", requestID(c)), slog.String("error", err.Error()))
			} else {
				ch.Used -= int64(ch.Tokens)
				ch.Tokens, ch.Overage = 0, 0
				ch.Remaining = account.RemainingOf(ch.Limit, ch.Used)
				s.setTokenHeaders(c, ch)
			}
		}
		return nil
	}
}

// setTokenHeaders writes the metering headers of an authenticated response, and the rate-limit ones
// when the key's plan has a request rate limit. (Canonical header names, numbers formatted on the stack:
// this runs on every metered request.)
func (s *Server) setTokenHeaders(c *fiber.Ctx, ch *account.Charge) {
	h := &c.Response().Header
	var buf [20]byte
	if r := ch.Rate; r.Burst > 0 {
		h.SetCanonical(hdrRateLimit, strconv.AppendInt(buf[:0], int64(r.Burst), 10))
		h.SetCanonical(hdrRateRemaining, strconv.AppendInt(buf[:0], int64(r.Remaining), 10))
		h.SetCanonical(hdrRateReset, strconv.AppendInt(buf[:0], (r.ResetMS+999)/1000, 10))
	}
	h.SetCanonical(hdrTokensCharged, strconv.AppendInt(buf[:0], int64(ch.Tokens), 10))
	h.SetCanonical(hdrTokensRemaining, strconv.AppendInt(buf[:0], ch.Remaining, 10))
	if ch.Overage > 0 {
		h.SetCanonical(hdrTokensOverage, hdrTrue)
	} else {
		h.DelBytes(hdrTokensOverage)
	}
}

var (
	hdrRequestID       = []byte("X-Request-Id")
	hdrXCache          = []byte("X-Cache")
	hdrHit             = []byte("HIT")
	hdrRateLimit       = []byte("X-Ratelimit-Limit")
	hdrRateRemaining   = []byte("X-Ratelimit-Remaining")
	hdrRateReset       = []byte("X-Ratelimit-Reset")
	hdrTokensCharged   = []byte("X-Tokens-Charged")
	hdrTokensRemaining = []byte("X-Tokens-Remaining")
	hdrTokensOverage   = []byte("X-Tokens-Overage")
	hdrTrue            = []byte("true")
)
