package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
)

// writerBlocks reads ClickHouse's counts of the parts its inserts have written, and of those it did not
// have to sort (their rows arrived in the table's key order).
func writerBlocks(t *testing.T, db *analytics.DB) (written, alreadySorted uint64) {
	t.Helper()
	rows, err := db.Conn.Query(context.Background(), "SELECT event, value FROM system.events WHERE event IN ('MergeTreeDataWriterBlocks', 'MergeTreeDataWriterBlocksAlreadySorted')")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var v uint64
		if err := rows.Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		if name == "MergeTreeDataWriterBlocks" {
			written = v
		} else {
			alreadySorted = v
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return written, alreadySorted
}

// TestShippedBatchesReachClickHouseInKeyOrder: events recorded out of usage_events' key order (later
// seconds first, ids descending) are shipped in that order, so ClickHouse stores them without sorting
// (usage_order.go), every one once. A server of the test's own: its counters see this test's inserts
// alone. One user and one route, so each view's part is one row (in order whatever the view does) and a
// part the server had to sort can only be usage_events'.
func TestShippedBatchesReachClickHouseInKeyOrder(t *testing.T) {
	t.Parallel()
	_, db := ownClickHouse(t)
	w, ctx := runningWriter(t, db, 100000)
	at := time.Date(2026, 11, 16, 9, 0, 0, 0, time.UTC)
	const n = 3000
	for i := range n {
		w.Record(account.UsageEvent{
			RequestID: fmt.Sprintf("r%d", i), KeyID: "k1", UserID: "u1", KeyPrefix: "sk_live_k1", Method: "GET",
			Route: "/api/quote/{symbol}", Status: 200, Tokens: 2, Latency: time.Millisecond,
			Time:    at.Add(time.Duration(n-i) * 10 * time.Millisecond), // 30 s, the latest first
			EventID: uint64(10*n - i),
		})
	}
	written0, sorted0 := writerBlocks(t, db)
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	written, sorted := writerBlocks(t, db)
	if written == written0 {
		t.Fatal("the flush wrote no part")
	}
	if written-written0 != sorted-sorted0 {
		t.Fatalf("ClickHouse sorted %d of the %d parts the flush wrote; want none (usage_events' rows sent in its key order)",
			(written-written0)-(sorted-sorted0), written-written0)
	}
	var rows, ids uint64
	if err := db.Conn.QueryRow(ctx, "SELECT count(), uniqExact(event_id) FROM shariah.usage_events WHERE user_id = 'u1'").Scan(&rows, &ids); err != nil {
		t.Fatal(err)
	}
	if rows != n || ids != n {
		t.Fatalf("usage_events holds %d rows of %d event ids, want %d of each", rows, ids, n)
	}
}
