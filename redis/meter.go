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

// Meter implements shariah.Meter with one Lua script per charge: one round trip per request.
type Meter struct {
	c         rueidis.Client
	plans     shariah.Plans
	planTable []string // ARGV[3..] of the charge script, built once
}

var _ shariah.Meter = (*Meter)(nil)

// NewMeter returns a meter charging against the plans.
func NewMeter(c rueidis.Client, plans shariah.Plans) *Meter {
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

// Charge implements shariah.Meter.
func (m *Meter) Charge(ctx context.Context, keyHash string, cost int, now time.Time) (shariah.Charge, error) {
	if cost < 0 {
		return shariah.Charge{}, fmt.Errorf("negative cost %d", cost)
	}
	p := shariah.PeriodOf(now)
	args := make([]string, 0, 2+len(m.planTable))
	args = append(args, strconv.Itoa(cost), strconv.FormatInt(meterTTL(p.End, now), 10))
	args = append(args, m.planTable...)
	keys := []string{keyRecordKey(keyHash), meterKey(keyHash, p.ID()), rateKey(keyHash)}
	vals, err := chargeScript.Exec(ctx, m.c, keys, args).ToArray()
	// A connection broken by a Redis restart fails the requests in flight on it once; the client then
	// redials. Retry those (not Redis's own errors): after a restart nothing of the lost attempt
	// remains, so a retry does not charge twice there.
	for try := 0; try < 3 && err != nil && isConnErr(err) && ctx.Err() == nil; try++ {
		vals, err = chargeScript.Exec(ctx, m.c, keys, args).ToArray()
	}
	if err != nil {
		return shariah.Charge{}, fmt.Errorf("meter: %w", err)
	}
	status, err := vals[0].AsInt64()
	if err != nil {
		return shariah.Charge{}, fmt.Errorf("meter reply: %w", err)
	}
	if status == 1 {
		return shariah.Charge{}, shariah.Errorf(shariah.EBADKEY, "Invalid API key.")
	}
	if len(vals) < 9 {
		return shariah.Charge{}, fmt.Errorf("meter reply: %d values", len(vals))
	}
	ch := shariah.Charge{Period: p}
	ch.Key.Hash = keyHash
	ch.Key.ID, _ = vals[1].ToString()
	ch.Key.Prefix, _ = vals[2].ToString()
	ch.Key.UserID, _ = vals[3].ToString()
	ch.Key.Plan, _ = vals[4].ToString()
	ch.Limit, _ = vals[5].AsInt64()
	ch.Used, _ = vals[6].AsInt64()
	charged, _ := vals[7].AsInt64()
	overage, _ := vals[8].AsInt64()
	ch.Tokens, ch.Overage = int(charged), int(overage)
	ch.Remaining = shariah.RemainingOf(ch.Limit, ch.Used)
	if len(vals) >= 13 {
		burst, _ := vals[9].AsInt64()
		rem, _ := vals[10].AsInt64()
		ch.Rate = shariah.RateState{Burst: int(burst), Remaining: int(rem)}
		ch.Rate.ResetMS, _ = vals[11].AsInt64()
		ch.Rate.RetryAfter, _ = vals[12].AsInt64()
	}
	switch status {
	case 0:
		ch.Key.Active = true
		return ch, nil
	case 2:
		return ch, shariah.Errorf(shariah.EKEYINACTIVE, "This API key has been deactivated.")
	case 3:
		ch.Key.Active = true
		return ch, &shariah.Error{
			Code:    shariah.EQUOTA,
			Message: "Monthly token quota exceeded. Upgrade your plan or wait for the next period.",
			Detail:  map[string]any{"plan": ch.Key.Plan, "tokens_limit": ch.Limit, "tokens_used": ch.Used},
		}
	case 5:
		ch.Key.Active = true
		plan, _ := m.plans.Lookup(ch.Key.Plan)
		return ch, &shariah.Error{
			Code: shariah.ERATELIMITED,
			Message: fmt.Sprintf("Too many requests: the %s plan allows %g requests per second (bursts of %d). Retry after the time in Retry-After.",
				ch.Key.Plan, plan.RateLimit.RequestsPerSecond, plan.RateLimit.Burst),
			Detail: map[string]any{"plan": ch.Key.Plan, "requests_per_second": plan.RateLimit.RequestsPerSecond, "burst": plan.RateLimit.Burst,
				"retry_after_ms": ch.Rate.RetryAfter},
		}
	default:
		return ch, fmt.Errorf("meter: key %s has plan %q, which is not configured", ch.Key.Prefix, ch.Key.Plan)
	}
}

// isConnErr reports a transport failure, as opposed to an answer from Redis.
func isConnErr(err error) bool {
	var re *rueidis.RedisError
	return !errors.As(err, &re) && !rueidis.IsRedisNil(err)
}

// Refund implements shariah.Meter.
func (m *Meter) Refund(ctx context.Context, c shariah.Charge) error {
	if c.Tokens == 0 {
		return nil
	}
	return refundScript.Exec(ctx, m.c, []string{meterKey(c.Key.Hash, c.Period.ID())},
		[]string{strconv.Itoa(c.Tokens), strconv.Itoa(c.Overage)}).Error()
}
