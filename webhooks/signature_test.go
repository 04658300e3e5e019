package webhooks_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/webhooks"
)

func TestSignatureRule(t *testing.T) {
	t.Parallel()
	secret := webhooks.NewSecret()
	if !strings.HasPrefix(secret, "whsec_") || len(secret) != 6+64 || secret == webhooks.NewSecret() {
		t.Fatalf("secret %q", secret)
	}
	body := []byte(`{"id":"01J","type":"verdict.change"}`)
	at := time.Unix(1_790_000_000, 0)
	h := shariah.SignTimestamped(secret, body, at)
	// The documented rule, by hand: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>.
	if !strings.HasPrefix(h, "t=1790000000,v1=") || len(h) != len("t=1790000000,v1=")+64 {
		t.Fatalf("header %q", h)
	}
	if err := shariah.VerifyTimestamped(secret, h, body, at.Add(time.Minute), 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := shariah.VerifyTimestamped(secret, h, append(body, ' '), at, 5*time.Minute); !errors.Is(err, shariah.ErrBadSignature) {
		t.Errorf("altered body: %v", err)
	}
	if err := shariah.VerifyTimestamped("whsec_other", h, body, at, 5*time.Minute); !errors.Is(err, shariah.ErrBadSignature) {
		t.Errorf("other secret: %v", err)
	}
	if err := shariah.VerifyTimestamped(secret, h, body, at.Add(6*time.Minute), 5*time.Minute); !errors.Is(err, shariah.ErrStaleSignature) {
		t.Errorf("replayed after 6 minutes: %v", err)
	}
	// a receiver rolling a rotated secret out accepts a header with the old and the new signature
	both := h + "," + strings.Split(shariah.SignTimestamped("whsec_old", body, at), ",")[1]
	if err := shariah.VerifyTimestamped(secret, both, body, at, 0); err != nil {
		t.Errorf("two v1: %v", err)
	}
	for _, bad := range []string{"", "v1=abc", "t=abc,v1=00", "t=1790000000"} {
		if err := shariah.VerifyTimestamped(secret, bad, body, at, 0); !errors.Is(err, shariah.ErrNoSignature) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestBackoffCoversADay(t *testing.T) {
	t.Parallel()
	b := webhooks.DefaultBackoff()
	n := b.Retries()
	var sum time.Duration
	for i := 0; i < n; i++ {
		d := b.Delay(i)
		if i > 0 && d < b.Delay(i-1) || d > b.Max {
			t.Fatalf("delay %d: %v", i, d)
		}
		sum += d
	}
	if n != 14 || sum < 24*time.Hour || sum-b.Delay(n-1) >= 24*time.Hour || b.Delay(0) != 30*time.Second || b.Delay(13) != 4*time.Hour {
		t.Fatalf("%d retries over %v", n, sum)
	}
	short := webhooks.Backoff{First: 10 * time.Millisecond, Max: 40 * time.Millisecond, Window: 200 * time.Millisecond}
	if got := short.Retries(); got != 7 {
		t.Fatalf("short schedule: %d retries", got)
	}
}
