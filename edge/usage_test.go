package edge_test

import (
	"context"
	"fmt"
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
	// The endpoints read the same history (the reads themselves are logged after they answer).
	d := e.do(t, "GET", "/api/auth/me/usage/daily", nil, key(k)).json(t)
	usage := d["usage"].([]any)
	today := usage[len(usage)-1].(map[string]any)
	if today["date"] != time.Now().UTC().Format("2006-01-02") || today["requests"] != float64(len(metered)) || today["tokens"] != 50.0 || today["errors"] != 2.0 {
		t.Fatalf("daily usage %v; want %d requests, 50 tokens, 2 errors (429 and 422)", today, len(metered))
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
	if fmt.Sprint(ids) != fmt.Sprint([]string{metered[len(metered)-1], metered[len(metered)-2], metered[len(metered)-3]}) {
		t.Fatalf("recent ids %v, want newest first %v", ids, metered[len(metered)-3:])
	}
}
