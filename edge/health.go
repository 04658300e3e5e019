package edge

import (
	"cmp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
)

// health is the liveness answer: 200 while the process serves, with the state of each dependency so an
// operator sees a degraded service at a glance. It answers within about 50 ms whatever hangs: each
// dependency is checked concurrently with its own timeout, and a check still running is reported from
// its last answer (or as unavailable once it has run past the timeout).
func (s *Server) health(c *fiber.Ctx) error {
	s.deps.probeAll()
	services := map[string]string{}
	status := "ok"
	for _, n := range s.deps.names {
		st := s.deps.state(n)
		services[n] = st
		if st != "ok" {
			status = "degraded"
		}
	}
	body := fiber.Map{
		"status":   status,
		"message":  "Shariah screening service is running.",
		"version":  shariah.APIVersion,
		"time":     s.Now().UTC().Format(time.RFC3339),
		"services": services,
	}
	if s.UsageHealth != nil {
		u := s.UsageHealth()
		body["usage_spool"] = u
		if u.Status == "full" {
			body["status"] = "degraded"
		}
	}
	return c.JSON(body)
}

// ready is the readiness answer for load balancers: 503 while this edge cannot meter (Redis
// unavailable), so traffic drains to edges that can; 200 otherwise. ClickHouse does not decide it:
// usage is spooled while it is away.
func (s *Server) ready(c *fiber.Ctx) error {
	s.deps.probeAll(DepRedis)
	st := s.deps.state(DepRedis)
	if _, ok := s.deps.states[DepRedis]; !ok {
		st = "ok" // no Redis check configured: nothing to decide on
	}
	if st != "ok" {
		c.Set(fiber.HeaderRetryAfter, "1")
		return &shariah.Error{Code: shariah.EUNAVAILABLE, Message: "Not ready: this edge cannot meter requests (Redis is " + st + ").",
			Detail: map[string]any{"ready": false, "services": map[string]string{DepRedis: st}}}
	}
	return c.JSON(fiber.Map{"ready": true, "services": fiber.Map{DepRedis: st}, "time": s.Now().UTC().Format(time.RFC3339)})
}

// benchConstant is the constant-JSON body of the bench routes (only with BenchRoutes), which load tests
// compare: bare, and behind the key check and meter.
func (s *Server) benchConstant(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// benchSized is a bare route (no key, no meter, nothing looked up) answering a constant JSON body of
// ?bytes= bytes (32 to 65,536; default 22,000, about a stored screening's size): what a response of that
// size costs the server, the kernel and the load client alone, the floor under the cached screening's
// ratio. Each size's body is made once.
func benchSized(c *fiber.Ctx) error {
	n, err := strconv.Atoi(cmp.Or(c.Query("bytes"), "22000"))
	if err != nil || n < 32 || n > 65536 {
		return shariah.Errorf(shariah.EVALIDATION, "bytes must be between 32 and 65536")
	}
	b, ok := sizedBodies.Load(n)
	if !ok {
		b, _ = sizedBodies.LoadOrStore(n, []byte(`{"status":"ok","pad":"`+strings.Repeat("x", n-24)+`"}`))
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(b.([]byte))
}

var sizedBodies sync.Map // bytes -> body
