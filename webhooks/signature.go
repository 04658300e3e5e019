package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
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

// Sign returns the signature header of body at t.
func Sign(secret string, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + mac(secret, ts, body)
}

func mac(secret, ts string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Signature errors (Verify).
var (
	ErrNoSignature  = errors.New("no " + SignatureHeader + " header, or no t= and v1= in it")
	ErrBadSignature = errors.New("no v1 signature matches")
	ErrTooOld       = errors.New("signature timestamp outside the tolerance")
)

// Verify is the receiver's check, as the README documents it: some v1 in the header is the HMAC of
// "<t>.<body>" under the secret, and t is within tolerance of now (0: not checked). The tests verify
// every delivery with it; receivers in other languages do the same in a few lines.
func Verify(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrNoSignature
	}
	want := mac(secret, ts, body)
	ok := false
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			ok = true
		}
	}
	if !ok {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); tolerance > 0 && (d > tolerance || d < -tolerance) {
		return ErrTooOld
	}
	return nil
}
