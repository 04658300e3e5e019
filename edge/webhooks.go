package edge

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/webhooks"
)

// The calling key's user's webhook endpoints and their deliveries. Plans without webhooks (Free) are
// 403 on every route; another user's endpoint is 404, as an unknown one. The rules are the domain's
// (webhooks.Service); the handlers bind and serialise.

// hooks is the webhooks service, or 503 on a server composed without it.
func (s *Server) hooks() (*webhooks.Service, error) {
	if s.Webhooks == nil {
		return nil, shariah.Errorf(shariah.EUNAVAILABLE, "Webhooks are not configured on this server.")
	}
	return s.Webhooks, nil
}

// hookOwner is the caller as the webhook routes know it: the key's user and plan.
func hookOwner(c *fiber.Ctx) (user, plan string) {
	k := chargeOf(c).Key
	return k.UserID, k.Plan
}

// webhookParam reads a path parameter of the webhook routes, unescaped.
func webhookParam(c *fiber.Ctx, name string) string {
	v, err := url.PathUnescape(c.Params(name))
	if err != nil {
		return c.Params(name)
	}
	return v
}

// createWebhook answers POST /api/webhooks: the new endpoint with its secret, shown this once.
func (s *Server) createWebhook(c *fiber.Ctx) error {
	h, err := s.hooks()
	if err != nil {
		return err
	}
	user, plan := hookOwner(c)
	if err := h.Allowed(plan); err != nil {
		return err
	}
	var in webhooks.NewEndpoint
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	e, err := h.Create(c.UserContext(), user, plan, in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(e.Served(true))
}

// listWebhooks answers GET /api/webhooks: the user's endpoints, oldest first, and the plan's limit.
func (s *Server) listWebhooks(c *fiber.Ctx) error {
	h, err := s.hooks()
	if err != nil {
		return err
	}
	user, plan := hookOwner(c)
	eps, err := h.List(c.UserContext(), user, plan)
	if err != nil {
		return err
	}
	out := make([]webhooks.EndpointJSON, 0, len(eps))
	for _, e := range eps {
		out = append(out, e.Served(false))
	}
	return c.JSON(fiber.Map{"endpoints": out, "count": len(out), "limit": h.Limit(plan)})
}

func (s *Server) getWebhook(c *fiber.Ctx) error {
	h, err := s.hooks()
	if err != nil {
		return err
	}
	user, plan := hookOwner(c)
	e, err := h.Get(c.UserContext(), user, plan, webhookParam(c, "webhook_id"))
	if err != nil {
		return err
	}
	return c.JSON(e.Served(false))
}

func (s *Server) deleteWebhook(c *fiber.Ctx) error {
	h, err := s.hooks()
	if err != nil {
		return err
	}
	user, plan := hookOwner(c)
	id := webhookParam(c, "webhook_id")
	if err := h.Delete(c.UserContext(), user, plan, id); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"deleted": true, "id": id})
}

// rotateWebhookSecret answers POST /api/webhooks/{webhook_id}/rotate-secret: the endpoint with its new
// secret, shown this once; the old one signs nothing more.
func (s *Server) rotateWebhookSecret(c *fiber.Ctx) error {
	h, err := s.hooks()
	if err != nil {
		return err
	}
	user, plan := hookOwner(c)
	e, err := h.RotateSecret(c.UserContext(), user, plan, webhookParam(c, "webhook_id"))
	if err != nil {
		return err
	}
	return c.JSON(e.Served(true))
}

// testWebhook answers POST /api/webhooks/{webhook_id}/test: a signed test event sent now, and what the
// receiver answered (a failed attempt is still a 200 here: the request worked, the receiver did not).
func (s *Server) testWebhook(c *fiber.Ctx) error {
	h, err := s.hooks()
	if err != nil {
		return err
	}
	user, plan := hookOwner(c)
	res, err := h.Test(c.UserContext(), user, plan, webhookParam(c, "webhook_id"))
	if err != nil {
		return err
	}
	return c.JSON(res)
}

// webhookDeliveries answers GET /api/webhooks/{webhook_id}/deliveries: the latest deliveries (7 days),
// newest first, with their status, attempts, last error and next try.
func (s *Server) webhookDeliveries(c *fiber.Ctx) error {
	h, err := s.hooks()
	if err != nil {
		return err
	}
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 50, 1, 500)
	if err := v.Err(); err != nil {
		return err
	}
	user, plan := hookOwner(c)
	ds, err := h.Deliveries(c.UserContext(), user, plan, webhookParam(c, "webhook_id"), limit)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"deliveries": ds, "count": len(ds)})
}

// replayWebhookDelivery answers POST /api/webhooks/{webhook_id}/deliveries/{delivery_id}/replay.
func (s *Server) replayWebhookDelivery(c *fiber.Ctx) error {
	h, err := s.hooks()
	if err != nil {
		return err
	}
	user, plan := hookOwner(c)
	d, err := h.Replay(c.UserContext(), user, plan, webhookParam(c, "webhook_id"), webhookParam(c, "delivery_id"))
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(d)
}
