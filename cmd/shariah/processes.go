package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/oklog/run"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/agent"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/billing"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/edge"
	"github.com/shariah-screen/shariah/education"
	"github.com/shariah-screen/shariah/jobs"
	"github.com/shariah-screen/shariah/mcp"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rulesets"
	"github.com/shariah-screen/shariah/sukukrules"
)

// env is what every subcommand starts from: validated config, a JSON logger and the plans.
type env struct {
	cfg   config.Config
	log   *slog.Logger
	plans shariah.Plans
}

func load() (*env, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, fmt.Errorf("configuration:\n%w", err)
	}
	level, _ := config.ParseLevel(cfg.LogLevel)
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)
	plans, _ := cfg.Plans() // validated by Load
	return &env{cfg: cfg, log: log, plans: plans}, nil
}

// signals adds the actor that ends the group on SIGINT or SIGTERM.
func signals(g *run.Group) {
	g.Add(run.SignalHandler(context.Background(), os.Interrupt, syscall.SIGTERM))
}

// ctxActor adds an actor that runs until its context is cancelled.
func ctxActor(g *run.Group, f func(context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	g.Add(func() error { return f(ctx) }, func(error) { cancel() })
}

func runProcesses(which string) error {
	e, err := load()
	if err != nil {
		return err
	}
	var g run.Group
	signals(&g)
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	if which == "serve" || which == "all" {
		c, err := e.addEdge(&g)
		if err != nil {
			return err
		}
		closers = append(closers, c)
	}
	if which == "worker" || which == "all" {
		if err := e.addWorker(&g); err != nil {
			return err
		}
	}
	if which == "ingest" || which == "all" {
		if err := e.addIngest(&g); err != nil {
			return err
		}
	}
	if which == "all" {
		s, auth, closeMCP, err := mcpServer(e)
		if err != nil {
			return err
		}
		defer closeMCP()
		addr := e.cfg.MCPAddr
		ctxActor(&g, func(ctx context.Context) error { return mcp.HTTP(ctx, s, addr, auth, e.cfg.HTTP) })
		e.log.Info("mcp listening", "addr", addr, "path", "/mcp")
	}
	return stopped(e.log, g.Run())
}

// stopped turns the group's end by a signal into a clean exit.
func stopped(log *slog.Logger, err error) error {
	if errors.Is(err, run.ErrSignal) {
		log.Info("stopped", "reason", err.Error())
		return nil
	}
	return err
}

// addEdge wires the HTTP edge: Redis (keys and meter), ClickHouse (usage history) and the batching
// usage writer, and returns what to close after the group ends.
func (e *env) addEdge(g *run.Group) (func(), error) {
	rc, err := sredis.Open(e.cfg.RedisURL)
	if err != nil {
		return nil, err
	}
	db, err := analytics.Open(e.cfg.ClickHouseURL)
	if err != nil {
		rc.Close()
		return nil, err
	}
	proxies, _ := e.cfg.TrustedProxyList() // validated by Load
	reg := prometheus.NewRegistry()
	edge.RegisterRuntimeCollectors(reg)
	writer, err := analytics.NewUsageWriter(db, analytics.UsageWriterConfig{SpoolDir: e.cfg.Usage.SpoolDir, SpoolMaxBytes: e.cfg.Usage.SpoolMaxBytes,
		BatchSize: e.cfg.Usage.BatchSize, Interval: e.cfg.Usage.FlushInterval, Log: e.log})
	if err != nil {
		rc.Close()
		db.Close()
		return nil, err
	}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "shariah_usage_events_written_total", Help: "Usage events written to ClickHouse."},
			func() float64 { return float64(writer.Stats().Written) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "shariah_usage_events_dropped_total", Help: "Usage events dropped because the usage spool was full."},
			func() float64 { return float64(writer.Stats().Dropped) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "shariah_usage_spool_pending_bytes", Help: "Usage spool bytes not yet in ClickHouse."},
			func() float64 { return float64(writer.Stats().PendingBytes) }),
	)
	keys := &shariah.Keys{Store: sredis.NewKeyStore(rc), Plans: e.plans, Counter: sredis.NewWindowCounter(rc),
		Limits: shariah.IssueLimits{PerAddress: e.cfg.Plan.KeygenPerAddressHour, PerDomain: e.cfg.Plan.KeygenPerDomainHour, Window: time.Hour}}
	ref := sredis.NewRefStore(rc).Cached(30 * time.Second)
	svc, err := newServices(e, rc, ref)
	if err != nil {
		writer.Close()
		rc.Close()
		db.Close()
		return nil, err
	}
	sukukRules, err := sukukrules.Load()
	if err != nil {
		writer.Close()
		rc.Close()
		db.Close()
		return nil, err
	}
	popular := &shariah.RequestCounter{}
	bill := &shariah.Billing{Keys: keys, Store: sredis.NewBillingStore(rc)}
	processor := &billing.Client{BaseURL: e.cfg.StripeAPIURL, SecretKey: e.cfg.StripeSecretKey, Prices: map[string]string{
		shariah.PlanStarter: e.cfg.StripePriceStarter, shariah.PlanPro: e.cfg.StripePricePro, shariah.PlanEnterprise: e.cfg.StripePriceEnterprise}}
	var llm *agent.LLM
	if e.cfg.AgentLLMURL != "" {
		llm = &agent.LLM{BaseURL: e.cfg.AgentLLMURL, Model: e.cfg.AgentLLMModel, APIKey: e.cfg.AgentLLMAPIKey}
	}
	srv, err := edge.New(edge.Deps{
		Keys: keys, Meter: sredis.NewMeter(rc, e.plans), Ref: ref, Screener: svc.screener, Education: svc.edu,
		SukukStore: sredis.NewSukukStore(rc), SukukRules: sukukRules, Billing: bill, Processor: processor, WebhookSecret: e.cfg.WebhookSecret, AgentLLM: llm, Popular: popular, Bulk: svc.bulk, ETFs: svc.etfs, ETFQueue: svc.queue, ETFWait: e.cfg.ETFWait, QueueHealth: queueHealth(svc.queue), Usage: writer,
		WatchlistStore: sredis.NewWatchlistStore(rc), Filings: sredis.NewIngestStore(rc), News: sredis.NewNewsStore(rc), Trajectory: analytics.Trajectory{DB: db},
		Health: sredis.NewIngestStore(rc), NewsSources: newsSources(e.cfg.Ingest), EventRelevance: eventRelevance, UsageReader: analytics.UsageReader{DB: db},
		Log: e.log, AccessLog: e.cfg.AccessLog, BaseURL: e.cfg.BaseURL, Registry: reg, Limits: e.cfg.HTTP, TrustedProxies: proxies,
		BenchRoutes: os.Getenv("SHARIAH_BENCH_ROUTES") == "true",
		Checks: map[string]func(context.Context) error{
			edge.DepRedis:      func(ctx context.Context) error { return sredis.Ping(ctx, rc) },
			edge.DepClickHouse: func(ctx context.Context) error { return db.Conn.Ping(ctx) },
		},
		UsageHealth: writer.Stats,
	})
	if err != nil {
		writer.Close()
		rc.Close()
		db.Close()
		return nil, err
	}
	// The writer stops after the edge, so the last requests' events are flushed.
	wctx, wcancel := context.WithCancel(context.Background())
	wdone := make(chan struct{})
	pdone := make(chan struct{})
	go func() { _ = writer.Run(wctx); close(wdone) }()
	go func() { popular.Run(wctx, sredis.NewPopularityStore(rc), 10*time.Second); close(pdone) }()
	go downgrades(wctx, bill, e.log) // subscriptions whose paid period ended return to Free
	addr := e.cfg.HTTPAddr
	g.Add(func() error {
		e.log.Info("http listening", "addr", addr)
		return srv.Listen(addr)
	}, func(error) {
		ctx, cancel := context.WithTimeout(context.Background(), e.cfg.ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			e.log.Error("http shutdown", "error", err.Error())
		}
	})
	return func() {
		wcancel()
		<-wdone
		<-pdone
		writer.Close()
		svc.queue.Close()
		db.Close()
		rc.Close()
	}, nil
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

func (e *env) addWorker(g *run.Group) error {
	rc, err := sredis.Open(e.cfg.RedisURL)
	if err != nil {
		return err
	}
	svc, err := newServices(e, rc, sredis.NewRefStore(rc).Cached(30*time.Second))
	if err != nil {
		return err
	}
	srv, mux, err := jobs.NewWorker(e.cfg.RedisURL, e.cfg.WorkerConcurrency, e.log)
	if err != nil {
		return err
	}
	jobs.RegisterBulk(mux, svc.bulk)
	jobs.RegisterETF(mux, svc.etfs)
	schedules, err := jobs.ParseSchedules(e.cfg.RescreenSchedules)
	if err != nil {
		return err
	}
	rescreens, err := jobs.NewRescreens(svc.bulk, schedules, e.log)
	if err != nil {
		return err
	}
	ctxActor(g, rescreens.Run)
	// Runs whose worker died are resumed by any live worker once their lease expires.
	ctxActor(g, func(ctx context.Context) error { return svc.bulk.Reclaim(ctx, e.log) })
	done := make(chan struct{})
	g.Add(func() error {
		if err := srv.Start(mux); err != nil {
			return err
		}
		<-done
		return nil
	}, func(error) {
		srv.Shutdown()
		select {
		case <-done:
		default:
			close(done)
		}
	})
	return nil
}

func runMCP(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	httpMode := fs.Bool("http", false, "serve Streamable HTTP (/mcp) and SSE (/sse) on SHARIAH_MCP_ADDR instead of stdio")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	e, err := load()
	if err != nil {
		return err
	}
	var g run.Group
	signals(&g)
	s, auth, closeMCP, err := mcpServer(e)
	if err != nil {
		return err
	}
	defer closeMCP()
	if *httpMode {
		ctxActor(&g, func(ctx context.Context) error { return mcp.HTTP(ctx, s, e.cfg.MCPAddr, auth, e.cfg.HTTP) })
	} else {
		ctxActor(&g, func(ctx context.Context) error { return mcp.Stdio(ctx, s) })
	}
	return stopped(e.log, g.Run())
}

func runMigrate() error {
	e, err := load()
	if err != nil {
		return err
	}
	db, err := analytics.Open(e.cfg.ClickHouseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	applied, err := db.Migrate(ctx)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		e.log.Info("schema up to date", "database", db.Name)
	}
	for _, m := range applied {
		e.log.Info("migration applied", "database", db.Name, "migration", m)
	}
	return nil
}

// services are the domain services every process shares: one screener, the education registry, the
// bulk runner and the ETF look-through, over the stores of one Redis.
type services struct {
	screener *shariah.Screener
	edu      *education.Registry
	bulk     *shariah.Bulk
	etfs     *shariah.ETFs
	queue    *jobs.Queue
}

func newServices(e *env, rc rueidis.Client, ref shariah.RefStore) (*services, error) {
	rs, err := rulesets.Load()
	if err != nil {
		return nil, err
	}
	edu, err := education.Load(rs)
	if err != nil {
		return nil, err
	}
	q, err := jobs.NewQueue(e.cfg.RedisURL)
	if err != nil {
		return nil, err
	}
	results := sredis.NewResultStore(rc)
	sc := &shariah.Screener{Ref: ref, Results: results, Rulesets: rs, Disclaimers: edu.DisclaimersFor}
	return &services{screener: sc, edu: edu, queue: q,
		bulk: &shariah.Bulk{Runs: sredis.NewRunStore(rc), Ref: ref, Screener: sc, Queue: q, Concurrency: e.cfg.BulkConcurrency, Pause: e.cfg.BulkPause},
		etfs: &shariah.ETFs{Ref: ref, Screener: sc, Results: results, Catalogs: &shariah.CatalogCache{Store: ref}}}, nil
}

// redisFor opens the Redis of the configuration (for the keys subcommand).
func redisFor(e *env) (rueidis.Client, error) { return sredis.Open(e.cfg.RedisURL) }

// downgrades returns to Free, every minute, the users whose cancelled subscription's period has ended.
func downgrades(ctx context.Context, b *shariah.Billing, log *slog.Logger) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := b.ApplyDue(ctx); err != nil {
				log.Error("billing downgrades", "error", err.Error())
			} else if n > 0 {
				log.Info("billing downgrades", "users", n)
			}
		}
	}
}

// mcpServer builds the MCP server over the same services as the REST API.
func mcpServer(e *env) (*server.MCPServer, *mcp.Auth, func(), error) {
	rc, err := sredis.Open(e.cfg.RedisURL)
	if err != nil {
		return nil, nil, nil, err
	}
	ref := sredis.NewRefStore(rc).Cached(30 * time.Second) // one cache for the services and the tools
	svc, err := newServices(e, rc, ref)
	if err != nil {
		rc.Close()
		return nil, nil, nil, err
	}
	sukukRules, err := sukukrules.Load()
	if err != nil {
		rc.Close()
		return nil, nil, nil, err
	}
	auth := &mcp.Auth{Required: e.cfg.MCPRequireKey, Keyless: e.cfg.MCPKeyless, Keys: sredis.NewKeyStore(rc), Meter: sredis.NewMeter(rc, e.plans), Costs: shariah.DefaultTokenCosts()}
	cats := svc.etfs.Catalogs
	d := mcp.Deps{Education: svc.edu, Plans: e.plans, Costs: shariah.DefaultTokenCosts(), Bulk: svc.bulk, ETFs: svc.etfs, Screener: svc.screener,
		Ref: ref, Catalogs: cats, Insights: &shariah.Insights{Ref: ref, Screener: svc.screener, Catalogs: cats},
		Watchlists: &shariah.Watchlists{Store: sredis.NewWatchlistStore(rc), Resolve: cats.Resolve},
		News:       sredis.NewNewsStore(rc), Filings: sredis.NewIngestStore(rc), SukukStore: sredis.NewSukukStore(rc), SukukRules: sukukRules, Auth: auth, EventRelevance: eventRelevance}
	closeDB := func() {}
	if db, err := analytics.Open(e.cfg.ClickHouseURL); err == nil {
		d.Trajectory, closeDB = analytics.Trajectory{DB: db}, func() { db.Close() }
	}
	s := mcp.New(d)
	return s, auth, func() { svc.queue.Close(); closeDB(); rc.Close() }, nil
}
