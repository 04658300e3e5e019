package shariah

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// The timestamped signature scheme of the payment processor's webhooks (Stripe-Signature), which this
// service's own webhooks use too (Shariah-Signature): a header "t=<unix seconds>,v1=<hex
// HMAC-SHA256(secret, "<t>.<body>")>", possibly with several v1 (a secret being rolled). The timestamp
// is signed with the body, so a receiver refusing old timestamps cannot be fed a recorded message again.
// One implementation, for the payment processor's events we receive and the deliveries we send.

// Errors of VerifyTimestamped.
var (
	ErrNoSignature    = errors.New("no signature header, or no t= and v1= in it")
	ErrBadSignature   = errors.New("no v1 signature matches")
	ErrStaleSignature = errors.New("signature timestamp outside the tolerance")
)

// SignTimestamped returns the signature header of body at t.
func SignTimestamped(secret string, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(timestampedMAC(secret, ts, body))
}

func timestampedMAC(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// VerifyTimestamped checks a signature header over the raw body: some v1 equals the HMAC of
// "<t>.<body>" under the secret (each compared in constant time), and t is within tolerance of now, in
// the past or the future (tolerance 0: not checked).
func VerifyTimestamped(secret, header string, body []byte, now time.Time, tolerance time.Duration) error {
	ts := ""
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || sec < 0 || len(sigs) == 0 {
		return ErrNoSignature
	}
	want := timestampedMAC(secret, ts, body)
	match := false
	for _, s := range sigs {
		if hmac.Equal(s, want) { // every candidate is checked
			match = true
		}
	}
	if !match {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); tolerance > 0 && (d > tolerance || d < -tolerance) {
		return ErrStaleSignature
	}
	return nil
}
