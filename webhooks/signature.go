package webhooks

import (
	"crypto/rand"
	"encoding/hex"
)

// SignatureHeader carries a delivery's signature, shaped like the payment processor's
// (Stripe-Signature): "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>". The timestamp is
// signed with the body, so a receiver that refuses old timestamps (5 minutes, as Stripe's libraries
// do) cannot be fed a recorded delivery again; v1 names the scheme, so a later one can be added
// beside it without breaking receivers.
const SignatureHeader = "Shariah-Signature"

// Headers sent with every delivery besides the signature: the event id (the receiver's idempotency
// key: a delivery retried or replayed carries the same one), the delivery id and the attempt number.
const (
	EventIDHeader    = "Shariah-Event-Id"
	DeliveryIDHeader = "Shariah-Delivery-Id"
	AttemptHeader    = "Shariah-Attempt"
)

// SecretPrefix begins every endpoint secret (like the payment processor's whsec_): a secret pasted in
// the wrong place is recognisable.
const SecretPrefix = "whsec_"

// NewSecret returns a new endpoint secret: the prefix and 32 random bytes in hex.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return SecretPrefix + hex.EncodeToString(b)
}
