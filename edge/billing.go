package edge

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/stripe"
)

// webhookTolerance bounds the age (and the lead) of a webhook's signed timestamp.
const webhookTolerance = 5 * time.Minute

func (s *Server) billingReady(needWebhook bool) error {
	if s.Billing == nil || s.Processor == nil || s.Processor.SecretKey == "" || needWebhook && s.WebhookSecret == "" {
		return shariah.Errorf(shariah.EUNAVAILABLE, "Billing is not configured on this server (SHARIAH_STRIPE_SECRET_KEY and SHARIAH_WEBHOOK_SECRET).")
	}
	return nil
}

// billingKey resolves the X-API-Key of a billing route (exempt from metering, but it names the key).
func (s *Server) billingKey(c *fiber.Ctx) (*account.APIKey, error) {
	full := c.Get("X-API-Key")
	if full == "" {
		return nil, shariah.Errorf(shariah.EKEYREQUIRED, "API key required in the X-API-Key header.")
	}
	return s.callerKey(c, full)
}

// checkout answers POST /api/billing/checkout {plan, success_url?, cancel_url?} with a hosted checkout URL.
func (s *Server) checkout(c *fiber.Ctx) error {
	if err := s.billingReady(false); err != nil {
		return err
	}
	k, err := s.billingKey(c)
	if err != nil {
		return err
	}
	var in struct {
		Plan       *string `json:"plan"`
		SuccessURL string  `json:"success_url"`
		CancelURL  string  `json:"cancel_url"`
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	var v shariah.Validation
	switch {
	case in.Plan == nil:
		v.Add("field required", "value_error.missing", "body", "plan")
	case !oneOf(*in.Plan, account.PaidPlans):
		v.Add("must be starter, pro or enterprise", "value_error.enum", "body", "plan")
	}
	for name, u := range map[string]string{"success_url": in.SuccessURL, "cancel_url": in.CancelURL} {
		if u != "" && !httpURL(u) {
			v.Add("must be an http(s) URL", "value_error.url", "body", name)
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	if in.SuccessURL == "" {
		in.SuccessURL = s.BaseURL + "/docs?checkout=success"
	}
	if in.CancelURL == "" {
		in.CancelURL = s.BaseURL + "/docs?checkout=cancelled"
	}
	sess, err := s.Processor.Checkout(c.UserContext(), k.Prefix, k.Email, *in.Plan, in.SuccessURL, in.CancelURL)
	if err != nil {
		if shariah.ErrorCode(err) != shariah.EINTERNAL {
			return err
		}
		s.log.Error("checkout session", "error", err.Error(), "key_prefix", k.Prefix)
		return shariah.Errorf(shariah.EUNAVAILABLE, "The payment processor could not open a checkout; try again shortly.")
	}
	return c.JSON(fiber.Map{"checkout_url": sess.URL, "session_id": sess.ID, "plan": *in.Plan, "key_prefix": k.Prefix, "current_plan": k.Plan})
}

// portal answers POST /api/billing/portal with the customer's billing-portal URL.
func (s *Server) portal(c *fiber.Ctx) error {
	if err := s.billingReady(false); err != nil {
		return err
	}
	k, err := s.billingKey(c)
	if err != nil {
		return err
	}
	var in struct {
		ReturnURL string `json:"return_url"`
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	if in.ReturnURL != "" && !httpURL(in.ReturnURL) {
		var v shariah.Validation
		v.Add("must be an http(s) URL", "value_error.url", "body", "return_url")
		return v.Err()
	}
	if in.ReturnURL == "" {
		in.ReturnURL = s.BaseURL + "/docs"
	}
	sub, ok, err := s.Billing.Store.Subscription(c.UserContext(), k.UserID)
	if err != nil {
		return err
	}
	if !ok || sub.Customer == "" {
		return shariah.Errorf(shariah.ENOTFOUND, "No billing account for this key yet: POST /api/billing/checkout starts one.")
	}
	sess, err := s.Processor.Portal(c.UserContext(), sub.Customer, in.ReturnURL)
	if err != nil {
		s.log.Error("portal session", "error", err.Error(), "key_prefix", k.Prefix)
		return shariah.Errorf(shariah.EUNAVAILABLE, "The payment processor could not open the billing portal; try again shortly.")
	}
	return c.JSON(fiber.Map{"portal_url": sess.URL, "plan": sub.Plan, "status": sub.Status})
}

// webhook answers POST /api/billing/webhook: a verified, first-seen event is applied; anything else
// changes nothing and is 400.
func (s *Server) webhook(c *fiber.Ctx) error {
	if err := s.billingReady(true); err != nil {
		return err
	}
	payload := c.Body()
	if err := shariah.VerifyTimestamped(s.WebhookSecret, c.Get("Stripe-Signature"), payload, s.Now(), webhookTolerance); err != nil {
		msg := "Invalid signature."
		switch {
		case errors.Is(err, shariah.ErrStaleSignature):
			msg = "Signature timestamp outside the 5-minute tolerance."
		case errors.Is(err, shariah.ErrNoSignature):
			msg = "Missing or malformed Stripe-Signature header."
		}
		return shariah.Errorf(shariah.EINVALID, "%s", msg)
	}
	ev, handled, err := stripe.ParseEvent(payload)
	if err != nil {
		return shariah.Errorf(shariah.EINVALID, "The payload is not a Stripe event.")
	}
	if !handled {
		return c.JSON(fiber.Map{"received": true, "event_id": ev.ID, "outcome": "ignored: event type not handled"})
	}
	outcome, err := s.Billing.Apply(c.UserContext(), ev)
	if err != nil {
		return err
	}
	s.log.Info("billing event", "event_id", ev.ID, "type", ev.Type, "outcome", outcome)
	return c.JSON(fiber.Map{"received": true, "event_id": ev.ID, "outcome": outcome})
}

func httpURL(u string) bool {
	return len(u) < 2048 && (len(u) > 8 && u[:8] == "https://" || len(u) > 7 && u[:7] == "http://")
}
