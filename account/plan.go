package account

import (
	"errors"
	"fmt"
	"time"

	"github.com/shopspring/decimal"
)

// Plan ids. Free, starter, pro and enterprise are the plans sold; internal is for the operator's own
// services (unlimited, never sold, issued only from the command line).
const (
	PlanFree       = "free"
	PlanStarter    = "starter"
	PlanPro        = "pro"
	PlanEnterprise = "enterprise"
	PlanInternal   = "internal"
)

// Unlimited is the TokensPerMonth of a plan without an allowance; X-Tokens-Remaining shows it as -1.
const Unlimited int64 = -1

// Plan is a token plan. Money is decimal USD; the allowance is a count of tokens per calendar month (UTC).
type Plan struct {
	ID                 string          `json:"id"`
	Name               string          `json:"name"`
	TokensPerMonth     int64           `json:"tokens_per_month"` // -1: unlimited
	PriceUSDMonth      decimal.Decimal `json:"price_usd_month"`
	OverageUSDPerToken decimal.Decimal `json:"overage_usd_per_token"` // zero when the plan has no overage
	HardBlock          bool            `json:"hard_block"`            // refuse past the allowance (429)
	Public             bool            `json:"-"`                     // listed by GET /api/keys/plans and sold by checkout
	// RateLimit bounds a key's request rate (all its metered requests, across edges); zero: none.
	RateLimit RateLimit `json:"rate_limit"`
}

// RateLimit is a plan's request rate: a sustained rate per second and a burst (the requests a key may
// make at once after being idle). A request beyond it is refused with 429 RATE_LIMITED and charges
// nothing.
type RateLimit struct {
	RequestsPerSecond float64 `json:"requests_per_second"` // 0: no rate limit
	Burst             int     `json:"burst"`
}

// Limited reports whether the plan has a rate limit.
func (r RateLimit) Limited() bool { return r.RequestsPerSecond > 0 && r.Burst > 0 }

// Unlimited reports whether the plan has no monthly allowance.
func (p Plan) Unlimited() bool { return p.TokensPerMonth < 0 }

// OverageCost is the price of n tokens beyond the allowance.
func (p Plan) OverageCost(n int64) decimal.Decimal {
	return p.OverageUSDPerToken.Mul(decimal.NewFromInt(n))
}

// Plans is the set of plans in force, in display order.
type Plans []Plan

// DefaultPlans are the plans with their default allowances and prices; config can change them.
func DefaultPlans() Plans {
	return Plans{
		{ID: PlanFree, Name: "Free", TokensPerMonth: 50, PriceUSDMonth: decimal.Zero, HardBlock: true, Public: true,
			RateLimit: RateLimit{RequestsPerSecond: 5, Burst: 20}},
		{ID: PlanStarter, Name: "Starter", TokensPerMonth: 2500, PriceUSDMonth: decimal.NewFromInt(19),
			OverageUSDPerToken: decimal.RequireFromString("0.01"), Public: true, RateLimit: RateLimit{RequestsPerSecond: 20, Burst: 60}},
		{ID: PlanPro, Name: "Pro", TokensPerMonth: 15000, PriceUSDMonth: decimal.NewFromInt(49),
			OverageUSDPerToken: decimal.RequireFromString("0.008"), Public: true, RateLimit: RateLimit{RequestsPerSecond: 100, Burst: 200}},
		{ID: PlanEnterprise, Name: "Enterprise", TokensPerMonth: Unlimited, PriceUSDMonth: decimal.NewFromInt(199), Public: true,
			RateLimit: RateLimit{RequestsPerSecond: 1000, Burst: 2000}},
		{ID: PlanInternal, Name: "Internal", TokensPerMonth: Unlimited, PriceUSDMonth: decimal.Zero},
	}
}

// WithoutRateLimits returns a copy of the plans with no request rate limits (SHARIAH_RATE_LIMITS=off:
// trusted private deployments; tests of other rules).
func (ps Plans) WithoutRateLimits() Plans {
	out := append(Plans(nil), ps...)
	for i := range out {
		out[i].RateLimit = RateLimit{}
	}
	return out
}

// Lookup returns the plan with the id.
func (ps Plans) Lookup(id string) (Plan, bool) {
	for _, p := range ps {
		if p.ID == id {
			return p, true
		}
	}
	return Plan{}, false
}

// Validate reports every problem of a plan set at once.
func (ps Plans) Validate() error {
	var errs []error
	seen := map[string]bool{}
	for _, p := range ps {
		if p.ID == "" {
			errs = append(errs, fmt.Errorf("plan with an empty id"))
		}
		if seen[p.ID] {
			errs = append(errs, fmt.Errorf("plan %q defined twice", p.ID))
		}
		seen[p.ID] = true
		if p.TokensPerMonth < Unlimited {
			errs = append(errs, fmt.Errorf("plan %q: tokens per month %d (use -1 for unlimited)", p.ID, p.TokensPerMonth))
		}
		if p.PriceUSDMonth.IsNegative() || p.OverageUSDPerToken.IsNegative() {
			errs = append(errs, fmt.Errorf("plan %q: negative price", p.ID))
		}
		if r := p.RateLimit; r.RequestsPerSecond < 0 || r.Burst < 0 || (r.RequestsPerSecond > 0) != (r.Burst > 0) {
			errs = append(errs, fmt.Errorf("plan %q: rate limit %g/s burst %d (both positive, or both 0 for none)", p.ID, r.RequestsPerSecond, r.Burst))
		}
	}
	for _, id := range []string{PlanFree, PlanStarter, PlanPro, PlanEnterprise, PlanInternal} {
		if !seen[id] {
			errs = append(errs, fmt.Errorf("plan %q missing", id))
		}
	}
	return errors.Join(errs...)
}

// Period is a metering period: a calendar month in UTC.
type Period struct {
	Start time.Time // first instant of the month
	End   time.Time // first instant of the next month (exclusive)
}

// PeriodOf returns the calendar month (UTC) that contains t.
func PeriodOf(t time.Time) Period {
	t = t.UTC()
	start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return Period{Start: start, End: start.AddDate(0, 1, 0)}
}

// ID names the period as YYYYMM, the suffix of its meter keys.
func (p Period) ID() string { return p.Start.Format("200601") }

// SecondsLeft is the whole number of seconds from t to the end of the period, at least 1; it is the
// Retry-After of a refused request.
func (p Period) SecondsLeft(t time.Time) int64 {
	s := int64(p.End.Sub(t).Seconds() + 0.999999)
	if s < 1 {
		return 1
	}
	return s
}
