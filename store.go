package shariah

import (
	"context"
	"time"
)

// KeyStore holds API key records, indexed by hash, public prefix, user and email.
type KeyStore interface {
	// CreateKey stores a new key. carryFromHash, when set, names the key whose current-period meter
	// is copied to the new key, so that replacing a key never resets a month's allowance.
	CreateKey(ctx context.Context, k APIKey, carryFromHash string, now time.Time) error
	KeyByHash(ctx context.Context, hash string) (APIKey, error)
	KeyByPrefix(ctx context.Context, prefix string) (APIKey, error)
	KeysOfUser(ctx context.Context, userID string) ([]APIKey, error)
	// Deactivate marks the key inactive; it is refused on its next request. Idempotent.
	Deactivate(ctx context.Context, hash string, at time.Time, replacedBy string) error
	SetPlan(ctx context.Context, hash, plan string) error
	// UserForEmail returns the user id of the email, creating it as newID when the email is new.
	UserForEmail(ctx context.Context, email, newID string) (string, error)
	// MeterState reads a key's meter for the period.
	MeterState(ctx context.Context, hash string, p Period) (MeterState, error)
}

// MeterState is what a key has consumed in a period.
type MeterState struct {
	Used    int64 // tokens charged, overage included
	Overage int64 // tokens charged beyond the allowance
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
