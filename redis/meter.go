package redis

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

//go:embed lua/meter_charge.lua
var chargeSrc string

//go:embed lua/meter_refund.lua
var refundSrc string

// rueidis runs each script with EVALSHA and falls back to EVAL on NOSCRIPT, so an emptied script cache
// (Redis restart, SCRIPT FLUSH, failover) never surfaces as an error.
var (
	chargeScript = rueidis.NewLuaScript(chargeSrc)
	refundScript = rueidis.NewLuaScript(refundSrc)
)

// Meter implements account.Meter with one Lua script per charge: one round trip per request.
type Meter struct {
	c         rueidis.Client
	plans     account.Plans
	planTable []string // ARGV[3..] of the charge script, built once
}

var _ account.Meter = (*Meter)(nil)

// NewMeter returns a meter charging against the plans.
func NewMeter(c rueidis.Client, plans account.Plans) *Meter {
	m := &Meter{c: c, plans: plans}
	for _, p := range plans {
		hard := "0"
		if p.HardBlock {
			hard = "1"
		}
		m.planTable = append(m.planTable, p.ID, strconv.FormatInt(p.TokensPerMonth, 10), hard,
			strconv.FormatFloat(p.RateLimit.RequestsPerSecond, 'f', -1, 64), strconv.Itoa(p.RateLimit.Burst))
	}
	return m
}

// Charge implements account.Meter: one script call per request, no lease.
func (m *Meter) Charge(ctx context.Context, keyHash string, cost int, now time.Time) (account.Charge, error) {
	if cost < 0 {
		return account.Charge{}, fmt.Errorf("negative cost %d", cost)
	}
	r, err := m.run(ctx, keyHash, account.PeriodOf(now), now, meterCall{charge: true, cost: cost})
	if err != nil {
		return account.Charge{}, err
	}
	r.ch.Remaining = account.RemainingOf(r.ch.Limit, r.ch.Used+r.leased)
	return r.ch, m.statusErr(r.status, &r.ch)
}

// meterCall is one run of the charge script: a request to charge, and for a leasing edge what it
// reports, gives back and asks for.
type meterCall struct {
	charge      bool // a request (false: settle and top up a lease only)
	cost        int
	edge        string // "" : the exact path
	spent       int64  // tokens spent from the lease since the last settle
	back        int64  // tokens given back
	backOver    int64  // of which past the allowance (kept by the edge, not sent: a failed call restores them)
	backCredits int64  // request credits given back
	want        int64  // tokens asked for
	wantCredits int64  // request credits asked for
	minLease    int64
	leaseTTL    time.Duration
}

// meterReply is what the script answered.
type meterReply struct {
	status  int64
	ch      account.Charge // Key, Period, Limit, Used, Tokens, Overage and Rate filled; Remaining is not
	grant   int64          // lease tokens granted
	overage bool           // the granted tokens lie past the allowance
	credits int64          // request credits granted; -1 when the plan has no rate limit
	leased  int64          // every edge's outstanding lease tokens
	lost    bool           // Redis held no lease of the edge's (writes lost): the edge drops what it holds
}

func (c meterCall) args(p account.Period, now time.Time, planTable []string) []string {
	mode := "0"
	if c.charge {
		mode = "1"
	}
	i := strconv.FormatInt
	args := make([]string, 0, 11+len(planTable))
	args = append(args, strconv.Itoa(c.cost), i(meterTTL(p.End, now), 10), mode, c.edge, i(c.spent, 10), i(c.back, 10),
		i(c.backCredits, 10), i(c.want, 10), i(c.wantCredits, 10), i(c.minLease, 10), i(c.leaseTTL.Milliseconds(), 10))
	return append(args, planTable...)
}

// run executes the script once (retrying a transport failure, as below) and reads its reply.
func (m *Meter) run(ctx context.Context, keyHash string, p account.Period, now time.Time, call meterCall) (meterReply, error) {
	keys := []string{keyRecordKey(keyHash), meterKey(keyHash, p.ID()), rateKey(keyHash)}
	args := call.args(p, now, m.planTable)
	vals, err := chargeScript.Exec(ctx, m.c, keys, args).ToArray()
	// A connection broken by a Redis restart fails the requests in flight on it once; the client then
	// redials. Retry those (not Redis's own errors): after a restart nothing of the lost attempt
	// remains, so a retry does not charge twice there.
	for try := 0; try < 3 && err != nil && isConnErr(err) && ctx.Err() == nil; try++ {
		vals, err = chargeScript.Exec(ctx, m.c, keys, args).ToArray()
	}
	if err != nil {
		return meterReply{}, fmt.Errorf("meter: %w", err)
	}
	return readReply(vals, keyHash, p)
}

func readReply(vals []rueidis.RedisMessage, keyHash string, p account.Period) (meterReply, error) {
	var r meterReply
	var err error
	if len(vals) == 0 {
		return r, errors.New("meter reply: empty")
	}
	if r.status, err = vals[0].AsInt64(); err != nil {
		return r, fmt.Errorf("meter reply: %w", err)
	}
	if r.status == 1 {
		return r, nil
	}
	if len(vals) < 18 {
		return r, fmt.Errorf("meter reply: %d values", len(vals))
	}
	n := make([]int64, len(vals))
	for i := 5; i < len(vals); i++ {
		n[i], _ = vals[i].AsInt64()
	}
	ch := account.Charge{Period: p}
	ch.Key.Hash = keyHash
	ch.Key.ID, _ = vals[1].ToString()
	ch.Key.Prefix, _ = vals[2].ToString()
	ch.Key.UserID, _ = vals[3].ToString()
	ch.Key.Plan, _ = vals[4].ToString()
	ch.Key.Active = r.status != 2
	ch.Limit, ch.Used, ch.Tokens, ch.Overage = n[5], n[6], int(n[7]), int(n[8])
	ch.Rate = account.RateState{Burst: int(n[9]), Remaining: int(max(n[10], 0)), ResetMS: n[11], RetryAfter: n[12]}
	r.ch = ch
	r.grant, r.overage, r.credits, r.leased, r.lost = n[13], n[14] == 1, n[15], n[16], n[17] == 1
	return r, nil
}

// statusErr is the error of a script status (nil for a charge).
func (m *Meter) statusErr(status int64, ch *account.Charge) error {
	switch status {
	case 0:
		return nil
	case 1:
		return shariah.Errorf(shariah.EBADKEY, "Invalid API key.")
	case 2:
		return shariah.Errorf(shariah.EKEYINACTIVE, "This API key has been deactivated.")
	case 3:
		return &shariah.Error{
			Code:    shariah.EQUOTA,
			Message: "Monthly token quota exceeded. Upgrade your plan or wait for the next period.",
			Detail:  map[string]any{"plan": ch.Key.Plan, "tokens_limit": ch.Limit, "tokens_used": ch.Used},
		}
	case 5:
		plan, _ := m.plans.Lookup(ch.Key.Plan)
		return &shariah.Error{
			Code: shariah.ERATELIMITED,
			Message: fmt.Sprintf("Too many requests: the %s plan allows %g requests per second (bursts of %d). Retry after the time in Retry-After.",
				ch.Key.Plan, plan.RateLimit.RequestsPerSecond, plan.RateLimit.Burst),
			Detail: map[string]any{"plan": ch.Key.Plan, "requests_per_second": plan.RateLimit.RequestsPerSecond, "burst": plan.RateLimit.Burst,
				"retry_after_ms": ch.Rate.RetryAfter},
		}
	default:
		return fmt.Errorf("meter: key %s has plan %q, which is not configured", ch.Key.Prefix, ch.Key.Plan)
	}
}

// isConnErr reports a transport failure, as opposed to an answer from Redis.
func isConnErr(err error) bool {
	var re *rueidis.RedisError
	return !errors.As(err, &re) && !rueidis.IsRedisNil(err)
}

// Refund implements account.Meter.
func (m *Meter) Refund(ctx context.Context, c account.Charge) error {
	if c.Tokens == 0 {
		return nil
	}
	limit := int64(-1)
	if p, ok := m.plans.Lookup(c.Key.Plan); ok && !p.HardBlock && !p.Unlimited() {
		limit = p.TokensPerMonth
	}
	return refundScript.Exec(ctx, m.c, []string{meterKey(c.Key.Hash, c.Period.ID())},
		[]string{strconv.Itoa(c.Tokens), strconv.FormatInt(limit, 10)}).Error()
}
