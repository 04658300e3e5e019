package webhooks_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/webhooks"
)

// readmeVerify is the receiver's check exactly as the README shows it (notes/hooks29.md): a receiver
// written from the documentation accepts what the service sends.
func readmeVerify(secret, header string, body []byte) bool {
	var t, sig string
	for _, kv := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(kv, "=")
		if k == "t" {
			t = v
		} else if k == "v1" {
			sig = v
		}
	}
	sec, err := strconv.ParseInt(t, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(t + "." + string(body)))
	return hmac.Equal([]byte(sig), []byte(hex.EncodeToString(m.Sum(nil))))
}

func TestTheREADMEVerificationAcceptsWhatIsSent(t *testing.T) {
	t.Parallel()
	secret, body := webhooks.NewSecret(), []byte(`{"id":"01J","type":"verdict.change","data":{}}`)
	h := shariah.SignTimestamped(secret, body, time.Now())
	if !readmeVerify(secret, h, body) {
		t.Fatal("the README's check refuses a signed delivery")
	}
	if readmeVerify(secret, h, []byte(`{"id":"01K"}`)) || readmeVerify("whsec_x", h, body) ||
		readmeVerify(secret, shariah.SignTimestamped(secret, body, time.Now().Add(-6*time.Minute)), body) {
		t.Fatal("the README's check accepts a tampered, foreign or old delivery")
	}
}
