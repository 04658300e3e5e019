package edge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
)

// TestOneUsageRowPerMeteredRequest: every metered request (success, refusal, error) is one row in
// ClickHouse, found by its request id; unmetered ones (no key, unknown key) write nothing. The daily and
// recent endpoints read those rows back.
func TestOneUsageRowPerMeteredRequest(t *testing.T) {
	t.Parallel()
	e := setup(t, options{costs: map[string]int{"GET /api/keys/plans": 10}})
	k := e.newKey(t, account.PlanFree)
	var metered []string
	send := func(path string, h hdr, isMetered bool) response {
		id := fmt.Sprintf("req-%d-%d", time.Now().UnixNano(), len(metered))
		h2 := hdr{"X-Request-ID": id}
		for k, v := range h {
			h2[k] = v
		}
		r := e.do(t, "GET", path, nil, h2)
		if r.Header.Get("X-Request-ID") != id {
			t.Fatalf("request id not echoed: %q", r.Header.Get("X-Request-ID"))
		}
		if isMetered {
			metered = append(metered, id)
		}
		return r
	}
	for range 6 { // 5 succeed (50 tokens), the 6th is refused with 429
		send("/api/keys/plans", key(k), true)
	}
	send("/api/auth/me", key(k), true)
	send("/api/auth/me/usage/daily?days=0", key(k), true) // 422, refunded, still a metered request
	send("/api/auth/me", nil, false)                      // no key
	bogus, _ := account.NewAPIKey("")
	send("/api/auth/me", hdr{"X-API-Key": bogus}, false) // unknown key
	send("/api/health", nil, false)

	ctx := context.Background()
	if err := e.writer.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := e.db.Conn.Query(ctx, "SELECT request_id, toUInt64(count()) FROM "+e.db.Name+".usage_events GROUP BY request_id")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for rows.Next() {
		var id string
		var n uint64
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		got[id] = n
	}
	rows.Close()
	if len(got) != len(metered) {
		t.Fatalf("%d request ids in ClickHouse, want %d: %v", len(got), len(metered), got)
	}
	for _, id := range metered {
		if got[id] != 1 {
			t.Fatalf("request %s has %d rows, want 1", id, got[id])
		}
	}
	// The endpoints read the same history (each read is logged after it answers; the daily read's own
	// row is shipped before the recent read, so the newest rows are known whatever the shipping interval
	// does: before, it was shipped or not by the writer's own tick, and the test failed once under load).
	dailyID := fmt.Sprintf("req-daily-%d", time.Now().UnixNano())
	d := e.do(t, "GET", "/api/auth/me/usage/daily", nil, hdr{"X-API-Key": k.Key, "X-Request-ID": dailyID}).json(t)
	usage := d["usage"].([]any)
	today := usage[len(usage)-1].(map[string]any)
	if today["date"] != time.Now().UTC().Format("2006-01-02") || today["requests"] != float64(len(metered)) || today["tokens"] != 50.0 || today["errors"] != 2.0 {
		t.Fatalf("daily usage %v; want %d requests, 50 tokens, 2 errors (429 and 422)", today, len(metered))
	}
	if err := e.writer.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	rec := e.do(t, "GET", "/api/auth/me/usage/recent?limit=3", nil, key(k)).json(t)["requests"].([]any)
	if len(rec) != 3 {
		t.Fatalf("recent: %v", rec)
	}
	var ids []string
	for _, r := range rec {
		r := r.(map[string]any)
		ids = append(ids, r["request_id"].(string))
		if r["route"] == "" || r["method"] != "GET" {
			t.Fatalf("recent row %v", r)
		}
	}
	if want := []string{dailyID, metered[len(metered)-1], metered[len(metered)-2]}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Fatalf("recent ids %v, want newest first %v", ids, want)
	}
}

// TestUsageWhileInsertsArePaused: migration 007 pauses inserts by putting a Merge table over the real
// one in usage_events' place (analytics/chain.go). Meanwhile the usage history and the operator
// analytics answer (the history through the stub), metered requests are served and spooled (the
// spool's inserts fail); after the resume the history holds every request once.
func TestUsageWhileInsertsArePaused(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := e.newKey(t, account.PlanFree)
	op := e.newKey(t, account.PlanInternal)
	ctx := context.Background()
	for range 3 {
		if r := e.do(t, "GET", "/api/auth/me", nil, key(k)); r.StatusCode != 200 {
			t.Fatalf("metered request: %d %s", r.StatusCode, r.body)
		}
	}
	if err := e.writer.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	exec := func(q string) {
		if err := e.db.Conn.Exec(ctx, strings.ReplaceAll(q, "db.", e.db.Name+".")); err != nil {
			t.Fatal(err)
		}
	}
	// 007's pause and resume, as chain.go runs them
	exec("CREATE TABLE db.usage_events_stub AS db.usage_events ENGINE = Merge(" + e.db.Name + ", '^usage_events_paused$')")
	exec("RENAME TABLE db.usage_events TO db.usage_events_paused, db.usage_events_stub TO db.usage_events")
	for _, p := range []string{"/api/auth/me/usage/daily", "/api/auth/me/usage/recent"} {
		if r := e.do(t, "GET", p, nil, key(k)); r.StatusCode != 200 {
			t.Fatalf("%s while inserts are paused: %d %s", p, r.StatusCode, r.body)
		}
	}
	if r := e.do(t, "GET", "/api/analytics/usage", nil, key(op)); r.StatusCode != 200 {
		t.Fatalf("operator analytics while inserts are paused: %d %s", r.StatusCode, r.body)
	}
	if r := e.do(t, "GET", "/api/auth/me", nil, key(k)); r.StatusCode != 200 {
		t.Fatalf("metered request while inserts are paused: %d %s", r.StatusCode, r.body)
	}
	if err := e.writer.Flush(ctx); err == nil {
		t.Fatal("an insert succeeded while inserts are paused")
	}
	exec("RENAME TABLE db.usage_events TO db.usage_events_stub, db.usage_events_paused TO db.usage_events")
	exec("DROP TABLE db.usage_events_stub")
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for e.writer.Flush(fctx) != nil {
		if fctx.Err() != nil {
			t.Fatal("the spool never shipped after the resume")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// 3 + 1 /api/auth/me and the 2 history reads during the pause, each once (the operator's read is
	// another key's)
	d := e.do(t, "GET", "/api/auth/me/usage/daily", nil, key(k))
	if d.StatusCode != 200 {
		t.Fatalf("daily after the resume: %d %s", d.StatusCode, d.body)
	}
	if got := d.json(t)["totals"].(map[string]any)["requests"]; got != 6.0 {
		t.Fatalf("daily totals %v requests, want 6, each once", got)
	}
}
