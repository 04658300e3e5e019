package shariah_test

import (
	"errors"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
)

// The payment processor's form of the scheme (Stripe-Signature); webhooks/signature_test.go holds the
// deliveries' own cases (several v1 while a secret rolls, tolerance 0).
func TestVerifyTimestamped(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_790_000_000, 0)
	body := []byte(`{"id":"evt_1","type":"checkout.session.completed"}`)
	good := shariah.SignTimestamped("whsec_a", body, now)
	cases := []struct {
		name    string
		payload []byte
		header  string
		secret  string
		at      time.Time
		want    error
	}{
		{"valid", body, good, "whsec_a", now, nil},
		{"valid 4m59s later", body, good, "whsec_a", now.Add(4*time.Minute + 59*time.Second), nil},
		{"one of several v1 matches", body, good + ",v1=" + "00ff", "whsec_a", now, nil},
		{"wrong secret", body, good, "whsec_b", now, shariah.ErrBadSignature},
		{"tampered body", []byte(`{"id":"evt_1","type":"checkout.session.completed "}`), good, "whsec_a", now, shariah.ErrBadSignature},
		{"stale", body, good, "whsec_a", now.Add(5*time.Minute + time.Second), shariah.ErrStaleSignature},
		{"future", body, good, "whsec_a", now.Add(-5*time.Minute - time.Second), shariah.ErrStaleSignature},
		{"no header", body, "", "whsec_a", now, shariah.ErrNoSignature},
		{"no v1", body, "t=1790000000", "whsec_a", now, shariah.ErrNoSignature},
		{"v0 only", body, "t=1790000000,v0=abcd", "whsec_a", now, shariah.ErrNoSignature},
	}
	for _, c := range cases {
		if err := shariah.VerifyTimestamped(c.secret, c.header, c.payload, c.at, 5*time.Minute); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
