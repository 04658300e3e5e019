package analytics_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/analytics"
)

// TestAnalyticsQueryTimes reports the time of each usage analytics query over a database filled by
// scripts/bench-analytics.sh (make bench-analytics), which sets SHARIAH_BENCH_ANALYTICS_URL; skipped
// otherwise. Cold: the first run after ClickHouse's mark and uncompressed caches are dropped (the
// kernel's page cache stays warm); warm: the median of the next five. It reports, it asserts nothing on
// time.
func TestAnalyticsQueryTimes(t *testing.T) {
	url := os.Getenv("SHARIAH_BENCH_ANALYTICS_URL")
	if url == "" {
		t.Skip("set by scripts/bench-analytics.sh")
	}
	db, err := analytics.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var lo, hi int64
	if err := db.Conn.QueryRow(ctx, "SELECT toInt64(min(hour)), toInt64(max(hour)) FROM "+db.Name+".usage_route_hourly").Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	rg := shariah.UsageRange{From: time.Unix(lo, 0).UTC(), To: time.Unix(hi, 0).UTC().Add(time.Hour)}
	r := analytics.UsageReader{DB: db}
	queries := []struct {
		name string
		run  func() (int, error)
	}{
		{"top keys (limit 10)", func() (int, error) { k, err := r.TopKeys(ctx, rg, 10); return len(k), err }},
		{"routes", func() (int, error) { x, err := r.RouteUsage(ctx, rg, "", ""); return len(x), err }},
		{"usage by day, grouped by route", func() (int, error) {
			x, err := r.UsageSeries(ctx, shariah.UsageQuery{Range: rg, Granularity: "day", GroupBy: "route"})
			return len(x.Series), err
		}},
		{"usage by hour, no grouping", func() (int, error) {
			x, err := r.UsageSeries(ctx, shariah.UsageQuery{Range: rg, Granularity: "hour", GroupBy: "none"})
			return len(x.Series), err
		}},
		{"usage by day, grouped by key", func() (int, error) {
			x, err := r.UsageSeries(ctx, shariah.UsageQuery{Range: rg, Granularity: "day", GroupBy: "key"})
			return len(x.Series), err
		}},
		{"quota events (limit 100)", func() (int, error) { x, err := r.QuotaEvents(ctx, rg, 100); return len(x), err }},
		{"one user's routes", func() (int, error) { x, err := r.RouteUsage(ctx, rg, "", "u7"); return len(x), err }},
	}
	fmt.Printf("range %s .. %s\n%-34s %10s %10s %6s\n", rg.From.Format(time.RFC3339), rg.To.Format(time.RFC3339), "query", "cold ms", "warm ms", "rows")
	for _, q := range queries {
		for _, c := range []string{"SYSTEM DROP MARK CACHE", "SYSTEM DROP UNCOMPRESSED CACHE"} {
			if err := db.Conn.Exec(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		timed := func() (time.Duration, int) {
			start := time.Now()
			n, err := q.run()
			if err != nil {
				t.Fatalf("%s: %v", q.name, err)
			}
			return time.Since(start), n
		}
		cold, n := timed()
		var warm []time.Duration
		for range 5 {
			d, _ := timed()
			warm = append(warm, d)
		}
		sort.Slice(warm, func(a, b int) bool { return warm[a] < warm[b] })
		fmt.Printf("%-34s %10.1f %10.1f %6d\n", q.name, ms(cold), ms(warm[2]), n)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
