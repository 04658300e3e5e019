package edge_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

const whsec = "whsec_test_edge"

// fakeStripe speaks the two calls the service makes, as Stripe's API does.
func fakeStripe(t *testing.T, seenPrefix *atomic.Value) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk_test_edge" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.ParseForm()
		switch r.URL.Path {
		case "/v1/checkout/sessions":
			seenPrefix.Store(r.Form.Get("client_reference_id") + "|" + r.Form.Get("metadata[plan]"))
			w.Write([]byte(`{"id":"cs_test_42","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/cs_test_42"}`))
		case "/v1/billing_portal/sessions":
			w.Write([]byte(`{"id":"bps_1","object":"billing_portal.session","url":"https://billing.stripe.com/p/session/` + r.Form.Get("customer") + `"}`))
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (e *env) webhook(t *testing.T, payload string, at time.Time, secret string) response {
	t.Helper()
	return e.do(t, "POST", "/api/billing/webhook", payload, hdr{"Stripe-Signature": shariah.SignTimestamped(secret, []byte(payload), at)})
}

func subEvent(id, typ, status, plan string, created, periodEnd int64) string {
	return fmt.Sprintf(`{"id":%q,"object":"event","type":%q,"created":%d,"data":{"object":{"id":"sub_1","object":"subscription","customer":"cus_1",
		"status":%q,"metadata":{"plan":%q},"current_period_end":%d}}}`, id, typ, created, status, plan, periodEnd)
}

func TestUpgradeFromCheckoutToWebhookToAuthMe(t *testing.T) {
	t.Parallel()
	var seen atomic.Value
	st := fakeStripe(t, &seen)
	e := setup(t, options{stripeURL: st.URL, webhookSecret: whsec})
	free, err := e.keys.GenerateFree(t.Context(), uniqueEmail())
	if err != nil {
		t.Fatal(err)
	}
	k := key(free)

	r := e.do(t, "POST", "/api/billing/checkout", map[string]any{"plan": "starter"}, k)
	m := r.json(t)
	if r.StatusCode != 200 || m["checkout_url"] != "https://checkout.stripe.com/c/pay/cs_test_42" || seen.Load() != free.Record.Prefix+"|starter" {
		t.Fatalf("checkout: %d %s (processor saw %v)", r.StatusCode, r.body, seen.Load())
	}
	if contains(string(r.body), free.Key) {
		t.Fatal("the full key is in the checkout response")
	}
	// The portal needs a billing account first.
	if r = e.do(t, "POST", "/api/billing/portal", nil, k); r.StatusCode != 404 {
		t.Fatalf("portal before checkout: %d", r.StatusCode)
	}

	now := time.Now()
	completed := fmt.Sprintf(`{"id":"evt_checkout_1","object":"event","type":"checkout.session.completed","created":%d,"data":{"object":{"id":"cs_test_42",
		"object":"checkout.session","client_reference_id":%q,"customer":"cus_1","subscription":"sub_1","metadata":{"plan":"starter"}}}}`, now.Unix(), free.Record.Prefix)
	r = e.webhook(t, completed, now, whsec)
	if r.StatusCode != 200 || r.json(t)["outcome"] != "plan starter" {
		t.Fatalf("webhook: %d %s", r.StatusCode, r.body)
	}
	// The next request runs on the Starter allowance.
	r = e.do(t, "GET", "/api/auth/me", nil, k)
	m = r.json(t)
	if m["plan"] != "starter" || r.Header.Get("X-Tokens-Remaining") == "" {
		t.Fatalf("after the upgrade: %s", r.body)
	}
	q := e.do(t, "GET", "/api/quote/AAPL", nil, k)
	if rem := q.Header.Get("X-Tokens-Remaining"); rem == "" || rem < "2" || !strings.HasPrefix(rem, "24") {
		t.Fatalf("remaining after a quote on Starter (2,500): %s", rem)
	}
	// Replayed: 400, nothing changes.
	if r = e.webhook(t, completed, now, whsec); r.StatusCode != 400 {
		t.Fatalf("replay: %d %s", r.StatusCode, r.body)
	}
	r = e.do(t, "POST", "/api/billing/portal", map[string]any{"return_url": "https://app.example.com/account"}, k)
	if r.StatusCode != 200 || r.json(t)["portal_url"] != "https://billing.stripe.com/p/session/cus_1" {
		t.Fatalf("portal: %d %s", r.StatusCode, r.body)
	}

	// Out of order: the upgrade to Pro (t+20) arrives before an older update to Starter (t+10).
	r = e.webhook(t, subEvent("evt_up_pro", "customer.subscription.updated", "active", "pro", now.Unix()+20, now.Unix()+86400*30), now, whsec)
	if r.json(t)["outcome"] != "plan pro" {
		t.Fatalf("update to pro: %s", r.body)
	}
	r = e.webhook(t, subEvent("evt_old", "customer.subscription.updated", "active", "starter", now.Unix()+10, now.Unix()+86400*30), now, whsec)
	if !strings.HasPrefix(r.json(t)["outcome"].(string), "ignored") || e.do(t, "GET", "/api/auth/me", nil, k).json(t)["plan"] != "pro" {
		t.Fatalf("an older event rolled the plan back: %s", r.body)
	}
	// Deleted: Free at the end of the paid period, not before.
	end := now.Add(30 * 24 * time.Hour)
	r = e.webhook(t, subEvent("evt_del", "customer.subscription.deleted", "canceled", "pro", now.Unix()+30, end.Unix()), now, whsec)
	if !strings.HasPrefix(r.json(t)["outcome"].(string), "plan free from") || e.do(t, "GET", "/api/auth/me", nil, k).json(t)["plan"] != "pro" {
		t.Fatalf("deleted: %s", r.body)
	}
	e.billing.Now = func() time.Time { return end.Add(time.Minute) }
	if n, err := e.billing.ApplyDue(t.Context()); err != nil || n != 1 {
		t.Fatalf("due downgrades: %d %v", n, err)
	}
	if plan := e.do(t, "GET", "/api/auth/me", nil, k).json(t)["plan"]; plan != "free" {
		t.Fatalf("after the period end: %v", plan)
	}
}

func TestWebhookRefusesWhatItCannotTrust(t *testing.T) {
	t.Parallel()
	var seen atomic.Value
	e := setup(t, options{stripeURL: fakeStripe(t, &seen).URL, webhookSecret: whsec})
	free, _ := e.keys.GenerateFree(t.Context(), uniqueEmail())
	now := time.Now()
	ev := fmt.Sprintf(`{"id":"evt_x","object":"event","type":"checkout.session.completed","created":%d,"data":{"object":{"client_reference_id":%q,
		"customer":"cus_2","metadata":{"plan":"enterprise"}}}}`, now.Unix(), free.Record.Prefix)
	for name, r := range map[string]response{
		"wrong secret": e.webhook(t, ev, now, "whsec_other"),
		"stale":        e.webhook(t, ev, now.Add(-6*time.Minute), whsec),
		"future":       e.webhook(t, ev, now.Add(6*time.Minute), whsec),
		"tampered": e.do(t, "POST", "/api/billing/webhook", strings.Replace(ev, "enterprise", "pro", 1),
			hdr{"Stripe-Signature": shariah.SignTimestamped(whsec, []byte(ev), now)}),
		"unsigned":   e.do(t, "POST", "/api/billing/webhook", ev, nil),
		"not stripe": e.webhook(t, `{"hello":"world"}`, now, whsec),
	} {
		if r.StatusCode != 400 || r.errCode(t) != shariah.EINVALID {
			t.Errorf("%s: %d %s", name, r.StatusCode, r.body)
		}
	}
	if plan := e.do(t, "GET", "/api/auth/me", nil, key(free)).json(t)["plan"]; plan != "free" {
		t.Fatalf("a refused webhook changed the plan: %v", plan)
	}
	// Once verified, the same event id is applied once.
	if r := e.webhook(t, ev, now, whsec); r.StatusCode != 200 {
		t.Fatalf("valid: %d %s", r.StatusCode, r.body)
	}
	if r := e.webhook(t, ev, now, whsec); r.StatusCode != 400 {
		t.Fatalf("duplicate: %d", r.StatusCode)
	}
	for _, b := range []any{map[string]any{}, map[string]any{"plan": "free"}, map[string]any{"plan": "gold"}, map[string]any{"plan": "pro", "success_url": "javascript:x"}} {
		if r := e.do(t, "POST", "/api/billing/checkout", b, key(free)); r.StatusCode != 422 {
			t.Errorf("checkout %v: %d", b, r.StatusCode)
		}
	}
	if r := e.do(t, "POST", "/api/billing/checkout", map[string]any{"plan": "pro"}, nil); r.StatusCode != 401 {
		t.Errorf("checkout without a key: %d", r.StatusCode)
	}
}

func TestBillingWithoutConfigurationIs503(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanFree))
	for _, p := range []string{"/api/billing/checkout", "/api/billing/portal", "/api/billing/webhook"} {
		r := e.do(t, "POST", p, map[string]any{"plan": "pro"}, k)
		if r.StatusCode != 503 || r.errCode(t) != shariah.EUNAVAILABLE {
			t.Errorf("%s: %d %s", p, r.StatusCode, r.body)
		}
	}
}
