package main

import (
	"context"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/edge"
	"github.com/shariah-screen/shariah/jobs"
	"github.com/shariah-screen/shariah/mcp"
	sredis "github.com/shariah-screen/shariah/redis"
)

// edgeDeps hands the composed services to the HTTP edge (and through it to the terminal agent).
func edgeDeps(e *env, s *services) edge.Deps {
	proxies, _ := e.cfg.TrustedProxyList() // validated by Load
	return edge.Deps{
		Keys: s.keys, Meter: s.meter, Ref: s.ref, Catalogs: s.catalogs, Insights: s.insights, Screener: s.screener,
		Trajectories: s.trajectories, Changes: s.changes, Zakat: s.zakat, Purifier: s.purifier, Agent: s.agent,
		StoreUnavailable: sredis.Unavailable,
		RequestContext:   func(d time.Duration) context.Context { return sredis.WithCallTimeout(context.Background(), d) },
		Education:        s.edu, SukukStore: s.sukuk, SukukRules: s.sukukRules,
		Billing: s.billing, Processor: s.payments, WebhookSecret: e.cfg.WebhookSecret, AgentLLM: s.llm, Popular: s.popular,
		Bulk: s.bulk, ETFs: s.etfs, ETFQueue: s.queue, ETFWait: e.cfg.ETFWait, QueueHealth: queueHealth(s.queue),
		Usage: s.usage, UsageReader: s.usageRead, UsageHealth: s.usage.Stats,
		WatchlistStore: s.lists, Filings: s.ingest, News: s.news, Trajectory: s.trajectory, Health: s.ingest,
		NewsSources: newsSources(e.cfg.Ingest), EventRelevance: eventRelevance,
		Log: e.log, AccessLog: e.cfg.AccessLog, BaseURL: e.cfg.BaseURL, Registry: registry(s.usage), Limits: e.cfg.HTTP,
		TrustedProxies: proxies, BenchRoutes: os.Getenv("SHARIAH_BENCH_ROUTES") == "true",
		Checks: map[string]func(context.Context) error{
			edge.DepRedis:      func(ctx context.Context) error { return sredis.Ping(ctx, s.rc) },
			edge.DepClickHouse: func(ctx context.Context) error { return s.db.Conn.Ping(ctx) },
		},
	}
}

// registry is the edge's metrics registry: the Go runtime's collectors and the usage spool's counters.
func registry(w *analytics.UsageWriter) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	edge.RegisterRuntimeCollectors(reg)
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "shariah_usage_events_written_total", Help: "Usage events written to ClickHouse."},
			func() float64 { return float64(w.Stats().Written) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "shariah_usage_events_dropped_total", Help: "Usage events dropped because the usage spool was full."},
			func() float64 { return float64(w.Stats().Dropped) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "shariah_usage_spool_pending_bytes", Help: "Usage spool bytes not yet in ClickHouse."},
			func() float64 { return float64(w.Stats().PendingBytes) }),
	)
	return reg
}

// mcpDeps hands the composed services to the MCP server, with the key requirement and metering of its
// HTTP transport.
func mcpDeps(e *env, s *services) mcp.Deps {
	costs := account.DefaultTokenCosts()
	proxies, _ := e.cfg.TrustedProxyList() // validated by Load
	origins, _ := e.cfg.MCPOrigins()       // validated by Load
	auth := &mcp.Auth{Required: e.cfg.MCPRequireKey, Keyless: e.cfg.MCPKeyless, KeylessLimits: e.cfg.MCPKeylessLimits, Origins: origins,
		TrustedProxies: proxies, Keys: s.keys.Store, Meter: s.meter, Costs: costs}
	return mcp.Deps{Education: s.edu, Plans: e.plans, Costs: costs, Bulk: s.bulk, ETFs: s.etfs, Screener: s.screener,
		Ref: s.ref, Catalogs: s.catalogs, Insights: s.insights, Watchlists: s.watchlists,
		News: s.news, Filings: s.ingest, Trajectory: s.trajectory, SukukStore: s.sukuk, SukukRules: s.sukukRules,
		Trajectories: s.trajectories, Changes: s.changes, Zakat: s.zakat, Purifier: s.purifier,
		Auth: auth, EventRelevance: eventRelevance}
}

// queueHealth reports the worker queues (pending, active, failed tasks) for source-health.
func queueHealth(q *jobs.Queue) func(context.Context) map[string]any {
	return func(ctx context.Context) map[string]any {
		detail := map[string]any{}
		status := "ok"
		for name := range jobs.Queues {
			info, err := q.Inspector.GetQueueInfo(name)
			if err != nil {
				detail[name] = map[string]any{"pending": 0, "active": 0}
				continue
			}
			detail[name] = map[string]any{"pending": info.Pending, "active": info.Active, "retry": info.Retry, "archived": info.Archived}
		}
		servers, err := q.Inspector.Servers()
		if err != nil || len(servers) == 0 {
			status = "no_workers"
		}
		detail["workers"] = len(servers)
		return map[string]any{"name": "worker_queue", "status": status, "detail": detail}
	}
}
