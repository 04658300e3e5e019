package edge

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// issuedKeyBody is the one response that contains a full key: it is shown once.
type issuedKeyBody struct {
	APIKey      string `json:"api_key"`
	KeyPrefix   string `json:"key_prefix"`
	Email       string `json:"email"`
	Plan        string `json:"plan"`
	TokensLimit int64  `json:"tokens_limit"`
	CreatedAt   string `json:"created_at"`
	Replaces    string `json:"replaces,omitempty"` // prefix of the key this one replaced
	Message     string `json:"message"`
}

func (s *Server) issuedBody(k account.IssuedKey, replaces string) issuedKeyBody {
	p, _ := s.plans.Lookup(k.Record.Plan)
	return issuedKeyBody{
		APIKey: k.Key, KeyPrefix: k.Record.Prefix, Email: k.Record.Email, Plan: k.Record.Plan,
		TokensLimit: p.TokensPerMonth, CreatedAt: k.Record.CreatedAt.Format(time.RFC3339), Replaces: replaces,
		Message: "Store this key now: it is shown only once. Send it in the X-API-Key header.",
	}
}

// generateKey issues a free-trial key: POST /api/keys/generate {email}.
func (s *Server) generateKey(c *fiber.Ctx) error {
	var in struct {
		Email *string `json:"email"`
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	if in.Email == nil {
		var v shariah.Validation
		v.Add("field required", "value_error.missing", "body", "email")
		return v.Err()
	}
	k, err := s.Keys.GenerateFreeFrom(c.UserContext(), *in.Email, s.clientAddress(c))
	if de, ok := err.(*shariah.Error); ok && de.Code == shariah.ERATELIMITED {
		if d, ok := de.Detail.(map[string]any); ok {
			c.Set(fiber.HeaderRetryAfter, fmt.Sprint(d["retry_after_seconds"]))
		}
	}
	if shariah.ErrorCode(err) == shariah.EINTERNAL {
		// Keys and their limits live in Redis: its failure is an outage to retry, not a server error.
		s.deps.failed(DepRedis, err)
		c.Set(fiber.HeaderRetryAfter, "1")
		return shariah.Errorf(shariah.EUNAVAILABLE, "The key service is unavailable. Retry shortly.")
	}
	if err != nil {
		return err
	}
	s.deps.succeeded(DepRedis)
	return c.JSON(s.issuedBody(k, ""))
}

// clientAddress is the client's address (account.ClientAddress: X-Forwarded-For counts only from a
// trusted proxy).
func (s *Server) clientAddress(c *fiber.Ctx) string {
	addr, _ := netip.AddrFromSlice(c.Context().RemoteIP())
	return account.ClientAddress(addr, c.Get(fiber.HeaderXForwardedFor), s.TrustedProxies)
}

// callerKey resolves a key presented by the client to its (active) record.
func (s *Server) callerKey(c *fiber.Ctx, full string) (*account.APIKey, error) {
	k, err := account.ActiveKey(c.UserContext(), s.store, full)
	if err != nil {
		return nil, err
	}
	return &k, nil
}

// revokeKey deactivates a key by its public prefix: POST /api/keys/revoke {key_prefix, api_key?}. The
// route is exempt from the key requirement (POST /api/keys/*), but the caller must prove ownership:
// present the key itself (X-API-Key, or api_key in the body) or another active key of the same user.
func (s *Server) revokeKey(c *fiber.Ctx) error {
	var in struct {
		KeyPrefix *string `json:"key_prefix"`
		APIKey    *string `json:"api_key"`
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	if in.KeyPrefix == nil {
		if in.APIKey == nil {
			var v shariah.Validation
			v.Add("field required", "value_error.missing", "body", "key_prefix")
			return v.Err()
		}
		p := account.PublicPrefix(*in.APIKey)
		in.KeyPrefix = &p
	}
	presented := c.Get("X-API-Key")
	if presented == "" && in.APIKey != nil {
		presented = *in.APIKey
	}
	if presented == "" {
		return shariah.Errorf(shariah.EKEYREQUIRED, "Present the key to revoke, or another key of the same account, in the X-API-Key header.")
	}
	caller, err := s.callerKey(c, presented)
	if err != nil {
		return err
	}
	k, err := s.Keys.Revoke(c.UserContext(), *in.KeyPrefix, caller)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{
		"revoked":        true,
		"key_prefix":     k.Prefix,
		"active":         false,
		"deactivated_at": k.DeactivatedAt.Format(time.RFC3339),
	})
}

// planBody is a plan as listed by GET /api/keys/plans. Money is a decimal string (exact), USD.
type planBody struct {
	ID                 string  `json:"id"`
	Name               string  `json:"name"`
	TokensPerMonth     int64   `json:"tokens_per_month"` // -1 unlimited
	Unlimited          bool    `json:"unlimited"`
	PriceUSDMonth      string  `json:"price_usd_month"`
	OverageUSDPerToken *string `json:"overage_usd_per_token"` // null: no overage (hard block or unlimited)
	HardBlock          bool    `json:"hard_block"`
	// RateLimit is null for a plan without a request rate limit.
	RateLimit *account.RateLimit `json:"rate_limit"`
}

func toPlanBody(p account.Plan) planBody {
	b := planBody{ID: p.ID, Name: p.Name, TokensPerMonth: p.TokensPerMonth, Unlimited: p.Unlimited(),
		PriceUSDMonth: p.PriceUSDMonth.StringFixed(2), HardBlock: p.HardBlock}
	if p.RateLimit.Limited() {
		r := p.RateLimit
		b.RateLimit = &r
	}
	if !p.HardBlock && !p.Unlimited() {
		v := p.OverageUSDPerToken.String()
		b.OverageUSDPerToken = &v
	}
	return b
}

func (s *Server) listPlans(c *fiber.Ctx) error {
	out := []planBody{}
	for _, p := range s.plans {
		if p.Public {
			out = append(out, toPlanBody(p))
		}
	}
	return c.JSON(fiber.Map{"plans": out, "currency": "USD", "period": "calendar month (UTC)",
		"rate_limits": "Each key's metered requests are limited to its plan's rate_limit across all edges: a sustained " +
			"requests_per_second with bursts of up to burst requests. A request beyond it answers 429 RATE_LIMITED with " +
			"Retry-After, charges nothing and does not count towards the allowance. Every metered response carries " +
			"X-RateLimit-Limit (the burst), X-RateLimit-Remaining (requests allowed now) and X-RateLimit-Reset (seconds " +
			"until the burst is whole again)."})
}

func (s *Server) tokenCosts(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{
		"costs": s.Costs,
		"rules": []string{
			"Tokens are charged before the request runs; a response that is not a 2xx is refunded and X-Tokens-Charged shows the final figure.",
			"per_item routes charge per symbol in the request body, at least tokens and at most max.",
			"fresh is charged instead of tokens when force_refresh=true.",
		},
	})
}
