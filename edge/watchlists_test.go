package edge_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/shariah-screen/shariah/account"
)

func TestWatchlistsOwnershipAndLifecycle(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	alice := e.newKey(t, account.PlanPro)
	ka := key(alice)
	kb := key(e.newKey(t, account.PlanPro))

	r := e.do(t, "POST", "/api/watchlists", map[string]any{"name": "Tech", "symbols": []string{"msft", "BRK.B", "MSFT", "SPUS"}}, ka)
	if r.StatusCode != 200 {
		t.Fatalf("create: %d %s", r.StatusCode, r.body)
	}
	w := r.json(t)
	id := w["id"].(string)
	syms := w["symbols"].([]any)
	if len(syms) != 3 || syms[0] != "MSFT" || syms[1] != "BRK-B" || syms[2] != "SPUS" {
		t.Fatalf("symbols canonical, deduplicated, in order: %v", syms)
	}
	items := w["items"].([]any)
	if it := items[0].(map[string]any); it["compliance_status"] == "" || it["screened_at"] == nil {
		t.Fatalf("status of MSFT: %v", it)
	}
	if it := items[2].(map[string]any); it["compliance_status"] != "NOT_SCREENABLE" {
		t.Fatalf("an ETF in a watchlist: %v", it)
	}
	e.do(t, "POST", "/api/watchlists", map[string]any{"name": "Second"}, ka)

	// Bob sees none of Alice's watchlists, and cannot read, change or delete them.
	if r = e.do(t, "GET", "/api/watchlists", nil, kb); len(r.json2(t).([]any)) != 0 {
		t.Fatalf("bob's list: %s", r.body)
	}
	for _, c := range []struct{ m, p string }{{"GET", "/api/watchlists/" + id}, {"DELETE", "/api/watchlists/" + id},
		{"DELETE", "/api/watchlists/" + id + "/symbols/MSFT"}} {
		if r = e.do(t, c.m, c.p, nil, kb); r.StatusCode != 404 {
			t.Fatalf("bob %s %s: %d", c.m, c.p, r.StatusCode)
		}
	}
	if r = e.do(t, "POST", "/api/watchlists/"+id+"/symbols", map[string]any{"symbol": "AAPL"}, kb); r.StatusCode != 404 {
		t.Fatalf("bob adds: %d", r.StatusCode)
	}

	// A key regenerated from Alice's belongs to Alice.
	r = e.do(t, "POST", "/api/auth/me/regenerate", nil, ka)
	ka2 := hdr{"X-API-Key": r.json(t)["api_key"].(string)}
	r = e.do(t, "GET", "/api/watchlists", nil, ka2)
	list := r.json2(t).([]any)
	if len(list) != 2 || list[0].(map[string]any)["name"] != "Tech" || list[1].(map[string]any)["name"] != "Second" {
		t.Fatalf("alice's lists by creation: %s", r.body)
	}

	r = e.do(t, "POST", "/api/watchlists/"+id+"/symbols", map[string]any{"symbol": "aapl"}, ka2)
	if syms = r.json(t)["symbols"].([]any); len(syms) != 4 || syms[3] != "AAPL" {
		t.Fatalf("add: %s", r.body)
	}
	r = e.do(t, "POST", "/api/watchlists/"+id+"/symbols", map[string]any{"symbol": "AAPL"}, ka2)
	if syms = r.json(t)["symbols"].([]any); r.StatusCode != 200 || len(syms) != 4 {
		t.Fatalf("adding twice: %d %s", r.StatusCode, r.body)
	}
	r = e.do(t, "DELETE", "/api/watchlists/"+id+"/symbols/brk.b", nil, ka2)
	if syms = r.json(t)["symbols"].([]any); len(syms) != 3 || syms[1] != "SPUS" {
		t.Fatalf("remove: %s", r.body)
	}
	if r = e.do(t, "DELETE", "/api/watchlists/"+id+"/symbols/BRK-B", nil, ka2); r.StatusCode != 404 {
		t.Fatalf("removing a symbol not in it: %d", r.StatusCode)
	}
	r = e.do(t, "DELETE", "/api/watchlists/"+id, nil, ka2)
	if r.StatusCode != 200 || r.json(t)["deleted"] != true {
		t.Fatalf("delete: %d %s", r.StatusCode, r.body)
	}
	if r = e.do(t, "GET", "/api/watchlists/"+id, nil, ka2); r.StatusCode != 404 {
		t.Fatalf("after delete: %d", r.StatusCode)
	}
	if r = e.do(t, "DELETE", "/api/watchlists/"+id, nil, ka2); r.StatusCode != 404 {
		t.Fatalf("delete twice: %d", r.StatusCode)
	}
}

func TestWatchlistBadInputAndLimits(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanEnterprise))
	for _, c := range []struct {
		body any
		code int
	}{
		{map[string]any{}, 422},
		{map[string]any{"name": "  "}, 422},
		{map[string]any{"name": string(make([]byte, 101))}, 422},
		{map[string]any{"name": "x", "symbols": []string{"NOPE123"}}, 422},
		{map[string]any{"name": "x", "symbols": []string{"$$$"}}, 422},
		{`{"name": "x", "symbols": "AAPL"}`, 422},
		{`{"name": `, 400},
	} {
		r := e.do(t, "POST", "/api/watchlists", c.body, k)
		if r.StatusCode != c.code {
			t.Fatalf("%v: %d %s", c.body, r.StatusCode, r.body)
		}
	}
	r := e.do(t, "POST", "/api/watchlists", map[string]any{"name": "x", "symbols": []string{"AAPL", "NOPE123"}}, k)
	if errs := r.json(t)["detail"].(map[string]any)["errors"].([]any); len(errs) != 1 || fmt.Sprint(errs[0].(map[string]any)["loc"]) != "[body symbols 1]" {
		t.Fatalf("the unknown symbol is named by its place: %s", r.body)
	}
	if r = e.do(t, "GET", "/api/watchlists/not-an-id", nil, k); r.StatusCode != 404 {
		t.Fatalf("malformed id: %d", r.StatusCode)
	}
	r = e.do(t, "POST", "/api/watchlists", map[string]any{"name": "limits"}, k)
	id := r.json(t)["id"].(string)
	for _, b := range []any{map[string]any{}, map[string]any{"symbol": "NOPE123"}, map[string]any{"symbol": 7}} {
		if r = e.do(t, "POST", "/api/watchlists/"+id+"/symbols", b, k); r.StatusCode != 422 {
			t.Fatalf("add %v: %d", b, r.StatusCode)
		}
	}
	// Creating concurrently never passes the per-user limit.
	var wg sync.WaitGroup
	codes := make(chan int, account.MaxWatchlists+10)
	for i := range account.MaxWatchlists + 9 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- e.do(t, "POST", "/api/watchlists", map[string]any{"name": fmt.Sprint("w", i)}, k).StatusCode
		}()
	}
	wg.Wait()
	close(codes)
	ok, conflict := 0, 0
	for c := range codes {
		switch c {
		case 200:
			ok++
		case 409:
			conflict++
		}
	}
	if ok != account.MaxWatchlists-1 || conflict != 10 {
		t.Fatalf("created %d, refused %d (limit %d, one existed)", ok, conflict, account.MaxWatchlists)
	}
}
