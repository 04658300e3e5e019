package edge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
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
		{map[string]any{"url": rcv.URL, "event_kinds": []string{"overall", "price.moved"}}, "body.event_kinds.1"},
	} {
		locs := fieldErrors(t, e.do(t, "POST", "/api/webhooks", c.body, alice))
		if len(locs) != 1 || locs[0] != c.loc {
			t.Errorf("%v: errors at %v, want %s", c.body, locs, c.loc)
		}
	}

	r = e.do(t, "POST", "/api/webhooks", map[string]any{"url": rcv.URL + "/in", "index": "sp500", "symbols": []string{"msft"},
		"event_kinds": []string{"overall"}}, alice)
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
	if err := shariah.VerifyTimestamped(secret, req.Header.Get(webhooks.SignatureHeader), body, time.Now(), 5*time.Minute); err != nil {
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
	if shariah.VerifyTimestamped(rotated, req.Header.Get(webhooks.SignatureHeader), body, time.Now(), 0) != nil ||
		shariah.VerifyTimestamped(secret, req.Header.Get(webhooks.SignatureHeader), body, time.Now(), 0) == nil {
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

// TestARescreenIsDeliveredToWebhooks: issue 29 end to end. A nightly-style rescreen on the workers that
// moves two symbols records two changes; the relay reads them from the change log and fans them out;
// the endpoint on the index gets exactly two deliveries, signed by the documented rule, each carrying
// its change's id (as GET /api/changes serves it) and the change itself. A forced rerun that changes
// nothing delivers nothing more; changes recorded before the endpoint existed are not its.
func TestARescreenIsDeliveredToWebhooks(t *testing.T) {
	t.Parallel()
	e := setup(t, options{worker: true})
	k := key(e.newKey(t, account.PlanEnterprise))
	putIndex(t, e, "NIGHT", "MSFT", "GOOGL", "NVDA", "KO")
	run := func(force bool) {
		t.Helper()
		r := e.do(t, "POST", "/api/screen-bulk", map[string]any{"index_name": "NIGHT", "force_refresh": force}, k)
		if r.StatusCode != 202 {
			t.Fatalf("start: %d %s", r.StatusCode, r.body)
		}
		if st := waitRun(t, e, k, r.json(t)["run_id"].(string)); st["status"] != "completed" {
			t.Fatalf("run: %v", st)
		}
	}
	run(false)
	raiseDebt(t, e, "KO") // a change before the endpoint exists
	run(false)

	var mu sync.Mutex
	type delivery struct {
		header http.Header
		body   []byte
	}
	var got []delivery
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, delivery{r.Header.Clone(), b})
		mu.Unlock()
	}))
	defer rcv.Close()
	r := e.do(t, "POST", "/api/webhooks", map[string]any{"url": rcv.URL, "index": "NIGHT"}, k)
	if r.StatusCode != 201 {
		t.Fatalf("create: %d %s", r.StatusCode, r.body)
	}
	secret := r.json(t)["secret"].(string)

	relay := &webhooks.Relay{Service: e.svc.Webhooks, Source: e.svc.ChangeEvents}
	drain := func() int {
		t.Helper()
		total := 0
		for {
			n, err := relay.Step(context.Background(), 100)
			if err != nil {
				t.Fatal(err)
			}
			if total += n; n == 0 {
				return total
			}
		}
	}
	if cs := e.do(t, "GET", "/api/changes?symbols=KO", nil, k).json(t)["changes"].([]any); len(cs) != 1 {
		t.Fatalf("KO's change before the endpoint: %v", cs)
	}
	if n := drain(); n < 1 { // KO's change is older than the endpoint: read, not delivered
		t.Fatalf("the relay read %d changes before the endpoint's", n)
	}
	raiseDebt(t, e, "MSFT", "GOOGL")
	run(false)
	if n := drain(); n != 2 {
		t.Fatalf("the relay read %d changes after the rescreen, want 2", n)
	}
	changes := map[string]map[string]any{}
	for _, c := range e.do(t, "GET", "/api/changes?index=NIGHT", nil, k).json(t)["changes"].([]any) {
		c := c.(map[string]any)
		changes[c["id"].(string)] = c
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries 30 s after the rescreen", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	run(true) // nothing changes: nothing more to deliver
	if n := drain(); n != 0 {
		t.Fatalf("a forced rerun that changed nothing gave the relay %d changes", n)
	}
	ds := e.do(t, "GET", "/api/webhooks/"+r.json(t)["id"].(string)+"/deliveries", nil, k).json(t)["deliveries"].([]any)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || len(ds) != 2 {
		t.Fatalf("%d deliveries received, %d listed; want 2", len(got), len(ds))
	}
	symbols := map[string]bool{}
	for _, d := range got {
		if err := shariah.VerifyTimestamped(secret, d.header.Get(webhooks.SignatureHeader), d.body, time.Now(), 5*time.Minute); err != nil {
			t.Fatalf("signature: %v", err)
		}
		var p struct {
			ID     string         `json:"id"`
			Type   string         `json:"type"`
			Symbol string         `json:"symbol"`
			Kinds  []string       `json:"kinds"`
			Data   map[string]any `json:"data"`
		}
		if err := json.Unmarshal(d.body, &p); err != nil {
			t.Fatal(err)
		}
		c, ok := changes[p.ID]
		if !ok || d.header.Get(webhooks.EventIDHeader) != p.ID || p.Type != webhooks.TypeChange || p.Data["id"] != p.ID ||
			c["symbol"] != p.Symbol || p.Data["after"].(map[string]any)["compliance_status"] != "NON_COMPLIANT" || !slices.Contains(p.Kinds, "overall") {
			t.Fatalf("delivery %s does not carry its change %v", d.body, c)
		}
		symbols[p.Symbol] = true
	}
	if !symbols["MSFT"] || !symbols["GOOGL"] {
		t.Fatalf("delivered symbols %v", symbols)
	}
}
