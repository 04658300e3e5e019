package edge

import (
	"context"
	"sort"
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
)

// health is the liveness answer: 200 while the process serves, with the state of each dependency so an
// operator sees a degraded service at a glance.
func (s *Server) health(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), 500*time.Millisecond)
	defer cancel()
	names := make([]string, 0, len(s.Checks))
	for n := range s.Checks {
		names = append(names, n)
	}
	sort.Strings(names)
	services := map[string]string{}
	status := "ok"
	for _, n := range names {
		if err := s.Checks[n](ctx); err != nil {
			services[n] = "unavailable"
			status = "degraded"
		} else {
			services[n] = "ok"
		}
	}
	return c.JSON(fiber.Map{
		"status":   status,
		"message":  "Shariah screening service is running.",
		"version":  shariah.APIVersion,
		"time":     s.Now().UTC().Format(time.RFC3339),
		"services": services,
	})
}

// benchConstant is the constant-JSON body of the bench routes (only with BenchRoutes), which load tests
// compare: bare, and behind the key check and meter.
func (s *Server) benchConstant(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}
