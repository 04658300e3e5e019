package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"os"
	"syscall"
	"time"

	"github.com/oklog/run"
	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/app"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/edge"
	"github.com/shariah-screen/shariah/jobs"
	"github.com/shariah-screen/shariah/mcp"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/webhooks"
)

// env is what every subcommand starts from: validated config, a JSON logger and the plans, which are
// also what the services are composed from (app.Compose).
type env struct{ app.Env }

func load() (*env, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, fmt.Errorf("configuration:\n%w", err)
	}
	level, _ := config.ParseLevel(cfg.LogLevel)
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)
	plans, _ := cfg.Plans() // validated by Load
	return &env{app.Env{Config: cfg, Log: log, Plans: plans}}, nil
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

// runProcesses runs serve, worker, ingest or all: one composition of the services (compose) shared by
// everything the process runs, each part an actor of one group that stops on SIGINT or SIGTERM.
func runProcesses(which string) error {
	e, err := load()
	if err != nil {
		return err
	}
	serving := which == "serve" || which == "all"
	svc, err := open(e)
	if err != nil {
		return err
	}
	defer closeAll(svc)
	if serving {
		if err := svc.WithUsage(e.Env); err != nil {
			return err
		}
		svc.WithLeases(e.Env)
	}
	var g run.Group
	signals(&g)
	// The servers are added first: the group interrupts its actors in the order they were added, and an
	// HTTP server's interrupt returns once it has drained, so the loops below stop after the last request.
	if serving {
		if err := e.addEdge(&g, svc); err != nil {
			return err
		}
	}
	if which == "all" {
		e.addMCP(&g, svc)
	}
	if which == "worker" || which == "all" {
		if err := e.addWorker(&g, svc); err != nil {
			return err
		}
	}
	if which == "ingest" || which == "all" {
		if err := e.addIngest(&g, svc); err != nil {
			return err
		}
	}
	if serving {
		e.addEdgeLoops(&g, svc)
	}
	if e.Config.PprofAddr != "" {
		e.addPprof(&g)
	}
	return stopped(e.Log, g.Run())
}

// stopped turns the group's end by a signal into a clean exit.
func stopped(log *slog.Logger, err error) error {
	if errors.Is(err, run.ErrSignal) {
		log.Info("stopped", "reason", err.Error())
		return nil
	}
	return err
}

// addEdge adds the HTTP API; its interrupt returns once the server has drained (or ShutdownTimeout).
func (e *env) addEdge(g *run.Group, svc *app.Services) error {
	srv, err := edge.New(app.EdgeDeps(e.Env, svc))
	if err != nil {
		return err
	}
	warmCatalog(e, svc.Catalogs)
	addr := e.Config.HTTPAddr
	g.Add(func() error {
		e.Log.Info("http listening", "addr", addr)
		return srv.Listen(addr)
	}, func(error) {
		ctx, cancel := context.WithTimeout(context.Background(), e.Config.ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			e.Log.Error("http shutdown", "error", err.Error())
		}
	})
	return nil
}

// warmCatalog builds the catalog and its search index (0.5-0.7 s for the shared data set) before the
// port opens: otherwise the first requests after a start wait for it, every one that needs the catalog.
// A store that does not answer within 10 s leaves the build to the first request, as before.
func warmCatalog(e *env, catalogs *catalog.Cache) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	cat, err := catalogs.Get(ctx)
	if err != nil {
		e.Log.Warn("catalog not built before listening: the first request builds it", "error", err.Error())
		return
	}
	e.Log.Info("catalog built", "assets", cat.Len(), "took", time.Since(start).Round(time.Millisecond).String())
}

// addEdgeLoops adds the edge's background loops, each an actor: the usage writer (its last flush ships
// the events of the last requests), the popularity counter (per-symbol quote requests, for the quote
// refresh) and the billing downgrades (subscriptions whose paid period ended return to Free).
func (e *env) addEdgeLoops(g *run.Group, svc *app.Services) {
	ctxActor(g, svc.Usage.Run)
	if lm, ok := svc.Meter.(*sredis.LeaseMeter); ok {
		// settles the token leases every interval; on shutdown (after the servers drained) gives them back
		ctxActor(g, lm.Run)
	}
	ctxActor(g, func(ctx context.Context) error {
		svc.Popular.Run(ctx, svc.Popularity, 10*time.Second)
		return nil
	})
	ctxActor(g, func(ctx context.Context) error {
		downgrades(ctx, svc.Billing, e.Log)
		return nil
	})
}

// addPprof serves Go's profiler on SHARIAH_PPROF_ADDR (an operator's loopback port, never the API's).
func (e *env) addPprof(g *run.Group) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: e.Config.PprofAddr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	g.Add(func() error {
		e.Log.Info("pprof listening", "addr", e.Config.PprofAddr)
		if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}, func(error) { _ = srv.Close() })
}

// addMCP adds the MCP server over HTTP on SHARIAH_MCP_ADDR.
func (e *env) addMCP(g *run.Group, svc *app.Services) {
	d := app.MCPDeps(e.Env, svc)
	s, addr := mcp.New(d), e.Config.MCPAddr
	ctxActor(g, func(ctx context.Context) error { return mcp.HTTP(ctx, s, addr, d.Auth, e.Config.HTTP) })
	e.Log.Info("mcp listening", "addr", addr, "path", "/mcp")
}

// addWorker adds the asynq workers (bulk runs, ETF screens and webhook deliveries), the scheduled
// re-screens, the reclaiming of runs whose worker died and the webhook relay.
func (e *env) addWorker(g *run.Group, svc *app.Services) error {
	srv, mux, err := jobs.NewWorkerWith(e.Config.RedisURL, sredis.IsCluster(svc.Redis),
		jobs.WorkerOptions{Concurrency: e.Config.WorkerConcurrency, WebhookBackoff: svc.Webhooks.Schedule()}, e.Log)
	if err != nil {
		return err
	}
	jobs.RegisterBulk(mux, svc.Bulk)
	jobs.RegisterETF(mux, svc.ETFs)
	jobs.RegisterWebhooks(mux, svc.Webhooks)
	// follows the change log and fans each change out to the matching endpoints (idempotent: every
	// worker runs one)
	relay := &webhooks.Relay{Service: svc.Webhooks, Source: svc.ChangeEvents}
	ctxActor(g, relay.Run)
	schedules, err := jobs.ParseSchedules(e.Config.RescreenSchedules)
	if err != nil {
		return err
	}
	rescreens, err := jobs.NewRescreens(svc.Bulk, schedules, e.Log)
	if err != nil {
		return err
	}
	ctxActor(g, rescreens.Run)
	// Runs whose worker died are resumed by any live worker once their lease expires.
	ctxActor(g, func(ctx context.Context) error { return svc.Bulk.Reclaim(ctx, e.Log) })
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

// runMCP is `shariah mcp`: the MCP server on stdio, or with --http over HTTP, on the composed services.
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
	svc, err := open(e)
	if err != nil {
		return err
	}
	defer closeAll(svc)
	d := app.MCPDeps(e.Env, svc)
	s := mcp.New(d)
	if *httpMode {
		ctxActor(&g, func(ctx context.Context) error { return mcp.HTTP(ctx, s, e.Config.MCPAddr, d.Auth, e.Config.HTTP) })
	} else {
		ctxActor(&g, func(ctx context.Context) error { return mcp.Stdio(ctx, s) })
	}
	return stopped(e.Log, g.Run())
}

func runMigrate() error {
	e, err := load()
	if err != nil {
		return err
	}
	db, err := openClickHouse(e)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	applied, err := db.Migrate(ctx)
	if errors.Is(err, analytics.ErrUnknownCluster) {
		return fmt.Errorf("SHARIAH_CLICKHOUSE_CLUSTER: %w", err)
	}
	if err != nil {
		return err
	}
	attrs := []any{"database", db.Name}
	if db.Cluster != "" {
		attrs = append(attrs, "cluster", db.Cluster)
	}
	if len(applied) == 0 {
		e.Log.Info("schema up to date", attrs...)
	}
	for _, m := range applied {
		e.Log.Info("migration applied", append(attrs, "migration", m)...)
	}
	return nil
}

// redisFor opens the Redis of the configuration (for the keys and load subcommands, which need no more).
func redisFor(e *env) (rueidis.Client, error) { return openRedis(e) }

// downgrades returns to Free, every minute, the users whose cancelled subscription's period has ended.
func downgrades(ctx context.Context, b *account.Billing, log *slog.Logger) {
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
