package app

import (
	"context"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/edge"
	"github.com/shariah-screen/shariah/ingest/news"
	"github.com/shariah-screen/shariah/jobs"
	"github.com/shariah-screen/shariah/mcp"
	sredis "github.com/shariah-screen/shariah/redis"
)

// EventRelevance rates 8-K items, for the SEC ingester, the edge and the MCP server alike.
var EventRelevance = news.RelevanceFor8K

// EdgeDeps hands the composed services to the HTTP edge (and through it to the terminal agent).
func EdgeDeps(e Env, s *Services) edge.Deps {
	cfg := e.Config
	proxies, _ := cfg.TrustedProxyList() // validated by Load
	d := edge.Deps{
		Keys: s.Keys, Meter: s.Meter, Ref: s.Ref, Catalogs: s.Catalogs, Insights: s.Insights, Screener: s.Screener,
		Trajectories: s.Trajectories, Changes: s.Changes, Zakat: s.Zakat, Purifier: s.Purifier, Agent: s.Agent,
		StoreUnavailable: sredis.Unavailable,
		RequestContext:   func(d time.Duration) context.Context { return sredis.WithCallTimeout(context.Background(), d) },
		Education:        s.Education, SukukStore: s.Sukuk, SukukRules: s.SukukRules,
		Webhooks: s.Webhooks, Billing: s.Billing, Processor: s.Payments, WebhookSecret: cfg.WebhookSecret, Popular: s.Popular,
		Bulk: s.Bulk, ETFs: s.ETFs, ETFQueue: s.Queue, ETFWait: cfg.ETFWait, QueueHealth: queueHealth(s.Queue),
		Usage: s.Usage, UsageReader: s.UsageRead,
		Watchlists: s.Watchlists, Filings: s.Ingest, News: s.News, Trajectory: s.Trajectory, Health: s.Ingest,
		NewsSources: newsSources(cfg.Ingest), EventRelevance: EventRelevance,
		Log: e.Log, AccessLog: cfg.AccessLog, BaseURL: cfg.BaseURL, Registry: registry(s.Usage), Limits: cfg.HTTP,
		TrustedProxies: proxies, BenchRoutes: os.Getenv("SHARIAH_BENCH_ROUTES") == "true",
		Checks: map[string]func(context.Context) error{
			edge.DepRedis:      func(ctx context.Context) error { return sredis.Ping(ctx, s.Redis) },
			edge.DepClickHouse: func(ctx context.Context) error { return s.ClickHouse.Conn.Ping(ctx) },
		},
	}
	if s.Usage != nil {
		d.UsageHealth = s.Usage.Stats
	}
	return d
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

// MCPDeps hands the composed services to the MCP server, with the key requirement and metering of its
// HTTP transport.
func MCPDeps(e Env, s *Services) mcp.Deps {
	cfg := e.Config
	costs := account.DefaultTokenCosts()
	proxies, _ := cfg.TrustedProxyList() // validated by Load
	origins, _ := cfg.MCPOrigins()       // validated by Load
	auth := &mcp.Auth{Required: cfg.MCPRequireKey, Keyless: cfg.MCPKeyless, KeylessLimits: cfg.MCPKeylessLimits, Origins: origins,
		TrustedProxies: proxies, Keys: s.Keys.Store, Meter: s.Meter, Costs: costs, CallBudget: sredis.WithCallTimeout}
	return mcp.Deps{Education: s.Education, Plans: e.Plans, Costs: costs, Bulk: s.Bulk, ETFs: s.ETFs, Screener: s.Screener,
		Ref: s.Ref, Catalogs: s.Catalogs, Insights: s.Insights, Watchlists: s.Watchlists,
		News: s.News, Filings: s.Ingest, Trajectory: s.Trajectory, SukukStore: s.Sukuk, SukukRules: s.SukukRules,
		Trajectories: s.Trajectories, Changes: s.Changes, Zakat: s.Zakat, Purifier: s.Purifier,
		Auth: auth, EventRelevance: EventRelevance}
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

// newsSources lists the configured sources for /api/news/sources.
func newsSources(ic config.Ingest) []edge.NewsSourceInfo {
	feeds, _ := ic.Feeds()
	out := []edge.NewsSourceInfo{{Name: "sec-edgar-8k", URL: ic.SECDataURL, Kind: "sec"}}
	for _, f := range feeds {
		out = append(out, edge.NewsSourceInfo{Name: f.Name, URL: f.URL, Kind: "feed"})
	}
	return out
}
