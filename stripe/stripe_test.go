package stripe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

func TestParseEvent(t *testing.T) {
	t.Parallel()
	ev, ok, err := ParseEvent([]byte(`{"id":"evt_c","type":"checkout.session.completed","created":1790000000,"data":{"object":{"id":"cs_1",
		"client_reference_id":"shr_AbCdEfGh","customer":"cus_9","subscription":{"id":"sub_7","object":"subscription"},"metadata":{"plan":"starter"}}}}`))
	if err != nil || !ok || ev.Type != account.EventCheckoutCompleted || ev.KeyPrefix != "shr_AbCdEfGh" || ev.Plan != "starter" ||
		ev.Customer != "cus_9" || ev.Subscription != "sub_7" || ev.Created.Unix() != 1790000000 {
		t.Fatalf("checkout: %+v %v %v", ev, ok, err)
	}
	ev, ok, _ = ParseEvent([]byte(`{"id":"evt_d","type":"customer.subscription.deleted","created":1790000100,"data":{"object":{"id":"sub_7",
		"customer":"cus_9","status":"canceled","metadata":{"plan":"starter"},"items":{"data":[{"current_period_end":1792000000}]}}}}`))
	if !ok || ev.Type != account.EventSubscriptionDeleted || ev.PeriodEnd.Unix() != 1792000000 || ev.Status != "canceled" {
		t.Fatalf("deleted: %+v", ev)
	}
	if _, ok, err := ParseEvent([]byte(`{"id":"evt_i","type":"invoice.paid","data":{"object":{}}}`)); ok || err != nil {
		t.Fatalf("unhandled type: %v %v", ok, err)
	}
	for _, bad := range []string{`{`, `{"type":"x"}`, `[]`} {
		if _, _, err := ParseEvent([]byte(bad)); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

func TestCheckoutSpeaksTheStripeAPI(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/checkout/sessions" || r.Header.Get("Authorization") != "Bearer sk_test_x" ||
			r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":{"message":"Invalid API Key provided"}}`))
			return
		}
		r.ParseForm()
		if r.Form.Get("client_reference_id") != "shr_AbCdEfGh" || r.Form.Get("metadata[plan]") != "pro" ||
			r.Form.Get("line_items[0][price]") != "price_pro" || r.Form.Get("mode") != "subscription" ||
			r.Form.Get("subscription_data[metadata][plan]") != "pro" {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"message":"bad form"}}`))
			return
		}
		w.Write([]byte(`{"id":"cs_test_1","object":"checkout.session","url":"https://checkout.stripe.com/c/pay/cs_test_1"}`))
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, SecretKey: "sk_test_x", Prices: map[string]string{"pro": "price_pro"}}
	s, err := c.Checkout(context.Background(), "shr_AbCdEfGh", "a@example.com", "pro", "https://x/ok", "https://x/no")
	if err != nil || s.ID != "cs_test_1" || s.URL == "" {
		t.Fatalf("checkout: %+v %v", s, err)
	}
	c.SecretKey = "sk_wrong"
	if _, err := c.Checkout(context.Background(), "shr_AbCdEfGh", "", "pro", "https://x/ok", "https://x/no"); err == nil {
		t.Fatal("a refused key gave a session")
	}
	if _, err := c.Checkout(context.Background(), "shr_AbCdEfGh", "", "starter", "https://x/ok", "https://x/no"); shariah.ErrorCode(err) != shariah.EUNAVAILABLE {
		t.Fatalf("no price for the plan: %v", err)
	}
}
