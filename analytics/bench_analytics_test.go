package analytics_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
)

// BenchmarkUsageAnalyticsQueries times each usage analytics query, the service's own query code, over
// the whole range of a database filled by scripts/bench-analytics.sh (make bench-analytics), which
// names it in SHARIAH_BENCH_ANALYTICS_URL (100 million synthetic rows: not something a benchmark makes
// for itself). Per query: cold-ms, the first run after ClickHouse's mark and uncompressed caches are
// dropped (the kernel's page cache stays warm), then the warm runs as ns/op.
func BenchmarkUsageAnalyticsQueries(b *testing.B) {
	url := os.Getenv("SHARIAH_BENCH_ANALYTICS_URL")
	if url == "" {
		b.Fatal("SHARIAH_BENCH_ANALYTICS_URL names the database make bench-analytics fills; run that")
	}
	db, err := analytics.Open(url)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var lo, hi int64
	if err := db.Conn.QueryRow(ctx, "SELECT toInt64(min(hour)), toInt64(max(hour)) FROM "+db.Name+".usage_route_hourly").Scan(&lo, &hi); err != nil {
		b.Fatal(err)
	}
	rg := account.UsageRange{From: time.Unix(lo, 0).UTC(), To: time.Unix(hi, 0).UTC().Add(time.Hour)}
	r := analytics.UsageReader{DB: db}
	queries := []struct {
		name string
		run  func() (int, error)
	}{
		{"top_keys", func() (int, error) { k, err := r.TopKeys(ctx, rg, 10); return len(k), err }},
		{"routes", func() (int, error) { x, err := r.RouteUsage(ctx, rg, "", ""); return len(x), err }},
		{"by_day_by_route", func() (int, error) {
			x, err := r.UsageSeries(ctx, account.UsageQuery{Range: rg, Granularity: "day", GroupBy: "route"})
			return len(x.Series), err
		}},
		{"by_hour", func() (int, error) {
			x, err := r.UsageSeries(ctx, account.UsageQuery{Range: rg, Granularity: "hour", GroupBy: "none"})
			return len(x.Series), err
		}},
		{"by_day_by_key", func() (int, error) {
			x, err := r.UsageSeries(ctx, account.UsageQuery{Range: rg, Granularity: "day", GroupBy: "key"})
			return len(x.Series), err
		}},
		{"quota_events", func() (int, error) { x, err := r.QuotaEvents(ctx, rg, 100); return len(x), err }},
		{"one_users_routes", func() (int, error) { x, err := r.RouteUsage(ctx, rg, "", "u7"); return len(x), err }},
	}
	fmt.Printf("range %s .. %s\n", rg.From.Format(time.RFC3339), rg.To.Format(time.RFC3339))
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			for _, c := range []string{"SYSTEM DROP MARK CACHE", "SYSTEM DROP UNCOMPRESSED CACHE"} {
				if err := db.Conn.Exec(ctx, c); err != nil {
					b.Fatal(err)
				}
			}
			start := time.Now()
			n, err := q.run()
			if err != nil {
				b.Fatal(err)
			}
			cold := time.Since(start)
			for b.Loop() {
				if _, err := q.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cold.Microseconds())/1000, "cold-ms")
			b.ReportMetric(float64(n), "rows")
		})
	}
}
