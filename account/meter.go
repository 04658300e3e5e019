package account

import (
	"context"
	"time"
)

// MeterState is what a key has consumed in a period.
type MeterState struct {
	Used    int64 // tokens charged, overage included
	Overage int64 // tokens charged beyond the allowance
	Leased  int64 // tokens granted to edges' leases and not yet reported (see redis.LeaseMeter)
}

// Charge is the outcome of metering one request.
type Charge struct {
	Key       APIKey // ID, Hash, Prefix, UserID and Plan are filled
	Period    Period
	Limit     int64 // the plan's allowance; -1 unlimited
	Used      int64 // tokens used in the period after this charge
	Tokens    int   // tokens charged by this request
	Overage   int   // of which beyond the allowance
	Remaining int64 // tokens left; -1 unlimited
	Rate      RateState
	Lease     bool // served from the edge's token lease (refunded to it), not charged by its own script call
}

// RateState is where a key stands against its plan's request rate after a request (the X-RateLimit-*
// headers). Burst is 0 when the plan has no rate limit.
type RateState struct {
	Burst      int   // X-RateLimit-Limit: requests a key may make at once
	Remaining  int   // X-RateLimit-Remaining: requests it may make now
	ResetMS    int64 // X-RateLimit-Reset (rounded up to seconds): until the burst is whole again
	RetryAfter int64 // ms until the next request is allowed (a refused request only)
}

// Meter checks and charges a request against its key's allowance in one atomic step.
type Meter interface {
	// Charge resolves the key hash to its record, refuses an unknown (EBADKEY) or deactivated
	// (EKEYINACTIVE) key, checks the plan's allowance and charges cost. On a hard-block plan past its
	// allowance it returns EQUOTA with the Charge filled (Tokens 0) so the caller can report usage.
	Charge(ctx context.Context, keyHash string, cost int, now time.Time) (Charge, error)
	// Refund gives back what a charge took (a request that did not succeed keeps no charge).
	Refund(ctx context.Context, c Charge) error
}

// MeterFlusher is a Meter that holds spending in memory (token leases): Flush settles what this process
// spent of a key, so that a read of the key's usage right after it sees every request served here.
type MeterFlusher interface {
	Flush(ctx context.Context, keyHash string) error
}

// RemainingOf is the X-Tokens-Remaining figure: -1 when unlimited, never below 0.
func RemainingOf(limit, used int64) int64 {
	if limit < 0 {
		return -1
	}
	if used >= limit {
		return 0
	}
	return limit - used
}
