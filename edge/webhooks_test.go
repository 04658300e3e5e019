package edge_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/webhooks"
)

// fieldErrors returns the loc paths ("body.url", "body.symbols.1") of a 422's field errors.
func fieldErrors(t *testing.T, r response) []string {
	t.Helper()
	if r.StatusCode != 422 {
		t.Fatalf("%d %s, want 422", r.StatusCode, r.body)
	}
	var out []string
	for _, e := range r.json(t)["detail"].(map[string]any)["errors"].([]any) {
		var parts []string
		for _, p := range e.(map[string]any)["loc"].([]any) {
			parts = append(parts, fmt.Sprint(p))
		}
		out = append(out, strings.Join(parts, "."))
	}
	return out
}

// TestWebhookRoutes: the REST surface of webhooks: plans (Free none, Starter three), every bad input a
// 422 naming its field, owner scoping (404 for another user), the secret shown only at creation and
// rotation, a signed test event verified by a real receiver with the documented rule, the deliveries
// list and replay, delete.
func TestWebhookRoutes(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, b)
		mu.Unlock()
		w.WriteHeader(204)
	}))
	defer rcv.Close()
	last := func() (*http.Request, []byte) {
		mu.Lock()
		defer mu.Unlock()
		return got[len(got)-1], bodies[len(bodies)-1]
	}

	free := key(e.newKey(t, account.PlanFree))
	for _, c := range []struct{ m, p string }{{"GET", "/api/webhooks"}, {"POST", "/api/webhooks"}, {"GET", "/api/webhooks/0190a0c0-0000-7000-8000-000000000000"}} {
		if r := e.do(t, c.m, c.p, map[string]any{"url": rcv.URL}, free); r.StatusCode != 403 || r.errCode(t) != "FORBIDDEN" || r.Header.Get("X-Tokens-Charged") != "0" {
			t.Fatalf("free %s %s: %d %s charged %s", c.m, c.p, r.StatusCode, r.body, r.Header.Get("X-Tokens-Charged"))
		}
	}

	alice := key(e.newKey(t, account.PlanPro))
	bob := key(e.newKey(t, account.PlanPro))
	r := e.do(t, "POST", "/api/watchlists", map[string]any{"name": "Mine", "symbols": []string{"AAPL"}}, bob)
	bobsList := r.json(t)["id"].(string)
	for _, c := range []struct {
		body map[string]any
		loc  string
	}{
		{map[string]any{}, "body.url"},
		{map[string]any{"url": "http://hooks.example.com/x"}, "body.url"},
		{map[string]any{"url": "https://127.0.0.2/x"}, "body.url"}, // loopback, outside the allowed 127.0.0.1/32
		{map[string]any{"url": "https://10.0.0.1/x"}, "body.url"},
		{map[string]any{"url": "https://169.254.169.254/latest/meta-data/"}, "body.url"},
		{map[string]any{"url": "https://[::1]/x"}, "body.url"},
		{map[string]any{"url": rcv.URL, "watchlist_id": "0190a0c0-0000-7000-8000-000000000000"}, "body.watchlist_id"},
		{map[string]any{"url": rcv.URL, "watchlist_id": bobsList}, "body.watchlist_id"},
		{map[string]any{"url": rcv.URL, "index": "NOPE500"}, "body.index"},
		{map[string]any{"url": rcv.URL, "symbols": []string{"AAPL", "ZZZZQQ"}}, "body.symbols.1"},
		{map[string]any{"url": rcv.URL, "event_kinds": []string{"verdict.changed", "price.moved"}}, "body.event_kinds.1"},
	} {
		locs := fieldErrors(t, e.do(t, "POST", "/api/webhooks", c.body, alice))
		if len(locs) != 1 || locs[0] != c.loc {
			t.Errorf("%v: errors at %v, want %s", c.body, locs, c.loc)
		}
	}

	r = e.do(t, "POST", "/api/webhooks", map[string]any{"url": rcv.URL + "/in", "index": "sp500", "symbols": []string{"msft"},
		"event_kinds": []string{"verdict.changed"}}, alice)
	if r.StatusCode != 201 || r.Header.Get("X-Tokens-Charged") != "2" {
		t.Fatalf("create: %d %s", r.StatusCode, r.body)
	}
	ep := r.json(t)
	id, secret := ep["id"].(string), ep["secret"].(string)
	if !strings.HasPrefix(secret, "whsec_") || ep["enabled"] != true || ep["filter"].(map[string]any)["index"] != "SP500" ||
		ep["filter"].(map[string]any)["symbols"].([]any)[0] != "MSFT" {
		t.Fatalf("created: %v", ep)
	}
	if r = e.do(t, "GET", "/api/webhooks", nil, alice); r.json(t)["count"] != 1.0 || r.json(t)["limit"] != 10.0 || strings.Contains(string(r.body), secret) {
		t.Fatalf("list: %s", r.body)
	}
	if r = e.do(t, "GET", "/api/webhooks/"+id, nil, alice); r.StatusCode != 200 || strings.Contains(string(r.body), "secret") {
		t.Fatalf("show: %d %s", r.StatusCode, r.body)
	}
	for _, c := range []struct{ m, p string }{{"GET", ""}, {"DELETE", ""}, {"POST", "/rotate-secret"}, {"POST", "/test"}, {"GET", "/deliveries"}} {
		if r = e.do(t, c.m, "/api/webhooks/"+id+c.p, nil, bob); r.StatusCode != 404 {
			t.Fatalf("bob %s %s: %d", c.m, c.p, r.StatusCode)
		}
	}
	if r = e.do(t, "GET", "/api/webhooks", nil, bob); r.json(t)["count"] != 0.0 {
		t.Fatalf("bob's list: %s", r.body)
	}

	// a signed test event, verified by the receiver with the documented rule
	r = e.do(t, "POST", "/api/webhooks/"+id+"/test", nil, alice)
	if r.StatusCode != 200 || r.json(t)["status"] != 204.0 {
		t.Fatalf("test: %d %s", r.StatusCode, r.body)
	}
	req, body := last()
	if err := webhooks.Verify(secret, req.Header.Get(webhooks.SignatureHeader), body, time.Now(), 5*time.Minute); err != nil {
		t.Fatalf("test event signature: %v", err)
	}
	if !strings.Contains(string(body), `"type":"webhook.test"`) || req.Header.Get(webhooks.EventIDHeader) == "" {
		t.Fatalf("test event %s", body)
	}

	// rotation: the new secret signs, the old one does not
	r = e.do(t, "POST", "/api/webhooks/"+id+"/rotate-secret", nil, alice)
	rotated := r.json(t)["secret"].(string)
	if r.StatusCode != 200 || rotated == secret {
		t.Fatalf("rotate: %s", r.body)
	}
	e.do(t, "POST", "/api/webhooks/"+id+"/test", nil, alice)
	req, body = last()
	if webhooks.Verify(rotated, req.Header.Get(webhooks.SignatureHeader), body, time.Now(), 0) != nil ||
		webhooks.Verify(secret, req.Header.Get(webhooks.SignatureHeader), body, time.Now(), 0) == nil {
		t.Fatal("after rotation the signature is not the new secret's alone")
	}

	// deliveries and replay (no worker here: a replayed delivery stays pending, and a second replay is 409)
	r = e.do(t, "GET", "/api/webhooks/"+id+"/deliveries?limit=10", nil, alice)
	ds := r.json(t)["deliveries"].([]any)
	if r.StatusCode != 200 || len(ds) != 2 || ds[0].(map[string]any)["status"] != "delivered" || ds[0].(map[string]any)["attempts"] != 1.0 {
		t.Fatalf("deliveries: %s", r.body)
	}
	did := ds[1].(map[string]any)["id"].(string)
	if r = e.do(t, "POST", "/api/webhooks/"+id+"/deliveries/"+did+"/replay", nil, alice); r.StatusCode != 202 || r.json(t)["status"] != "pending" || r.json(t)["replays"] != 1.0 {
		t.Fatalf("replay: %d %s", r.StatusCode, r.body)
	}
	if r = e.do(t, "POST", "/api/webhooks/"+id+"/deliveries/"+did+"/replay", nil, alice); r.StatusCode != 409 {
		t.Fatalf("replay of a pending delivery: %d %s", r.StatusCode, r.body)
	}
	if r = e.do(t, "POST", "/api/webhooks/"+id+"/deliveries/dlv_000000000000000000000000/replay", nil, alice); r.StatusCode != 404 {
		t.Fatalf("replay of an unknown delivery: %d", r.StatusCode)
	}
	if r = e.do(t, "GET", "/api/webhooks/"+id+"/deliveries?limit=0", nil, alice); r.StatusCode != 422 {
		t.Fatalf("limit=0: %d", r.StatusCode)
	}

	if r = e.do(t, "DELETE", "/api/webhooks/"+id, nil, alice); r.StatusCode != 200 {
		t.Fatalf("delete: %d %s", r.StatusCode, r.body)
	}
	if r = e.do(t, "GET", "/api/webhooks/"+id, nil, alice); r.StatusCode != 404 {
		t.Fatalf("after delete: %d", r.StatusCode)
	}

	// the Starter plan's three endpoints, then 422 on the url naming the limit
	starter := key(e.newKey(t, account.PlanStarter))
	for i := range 3 {
		if r = e.do(t, "POST", "/api/webhooks", map[string]any{"url": rcv.URL}, starter); r.StatusCode != 201 {
			t.Fatalf("starter endpoint %d: %d %s", i+1, r.StatusCode, r.body)
		}
	}
	r = e.do(t, "POST", "/api/webhooks", map[string]any{"url": rcv.URL}, starter)
	if locs := fieldErrors(t, r); len(locs) != 1 || locs[0] != "body.url" || !strings.Contains(string(r.body), "allows 3") {
		t.Fatalf("a fourth starter endpoint: %s", r.body)
	}
}
