package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/agent"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/education"
	"github.com/shariah-screen/shariah/etf"
	"github.com/shariah-screen/shariah/finance"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/jobs"
	"github.com/shariah-screen/shariah/market"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/stripe"
	"github.com/shariah-screen/shariah/sukuk"
)

// services are every service and store of one process, built once by compose and handed to whatever
// the process runs: the HTTP edge (and through it the terminal agent), the MCP server, the workers and
// the ingesters. In `shariah all` they all read through one reference cache and one catalog cache.
type services struct {
	rc    rueidis.Client
	db    *analytics.DB
	queue *jobs.Queue

	// raw is the reference store without a cache: the ingesters read what they just wrote.
	raw *sredis.RefStore
	// ref caches reads for 30 s: the store every served answer reads.
	ref        *sredis.RefStore
	catalogs   *catalog.Cache
	screener   *screening.Screener
	edu        *education.Registry
	bulk       *bulk.Service
	etfs       *etf.Service
	insights   *insights.Service
	watchlists *account.Watchlists
	// trajectories, zakat, purifier and agent: one each, for the edge, the MCP server and the agent's tools
	trajectories *insights.TrajectoryAnalytics
	changes      *screening.ChangeFeed // the verdict change feed, for the edge and the MCP server
	zakat        *finance.Zakat
	purifier     *finance.Purifier
	agent        *agent.Agent
	sukukRules   *sukuk.Rules

	keys     *account.Keys
	meter    account.Meter
	billing  *account.Billing
	payments *stripe.Client
	popular  *market.RequestCounter
	llm      *agent.LLM // nil: the terminal agent runs its rules only

	ingest     *sredis.IngestStore // filings, sources' health and checkpoints
	news       *sredis.NewsStore
	sukuk      *sredis.SukukStore
	lists      *sredis.WatchlistStore
	popularity *sredis.PopularityStore
	trajectory analytics.Trajectory
	usageRead  analytics.UsageReader

	// usage is the batching usage writer; nil unless withUsage added it (only the edge records usage).
	usage *analytics.UsageWriter
}

// open connects to the Redis and ClickHouse of the configuration and composes the services over them.
func open(e *env) (*services, error) {
	rc, err := openRedis(e)
	if err != nil {
		return nil, err
	}
	db, err := openClickHouse(e)
	if err != nil {
		rc.Close()
		return nil, err
	}
	if err := checkCluster(e, db); err != nil {
		db.Close()
		rc.Close()
		return nil, err
	}
	svc, err := compose(e, rc, db)
	if err != nil {
		db.Close()
		rc.Close()
		return nil, err
	}
	return svc, nil
}

// openRedis opens the Redis of SHARIAH_REDIS_URL (a single server or a Redis Cluster, as rueidis finds
// it) and refuses a cluster in state fail: a process does not start on a Redis it cannot use, and the
// error names the setting. Once running, a Redis that goes away (or a cluster that fails) makes the
// metered routes answer 503 until it is back.
func openRedis(e *env) (rueidis.Client, error) {
	rc, err := sredis.Open(e.cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("SHARIAH_REDIS_URL: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := sredis.CheckCluster(ctx, rc); err != nil {
		rc.Close()
		return nil, fmt.Errorf("SHARIAH_REDIS_URL: %w", err)
	}
	return rc, nil
}

// openClickHouse opens the ClickHouse of the configuration, in cluster mode when SHARIAH_CLICKHOUSE_CLUSTER
// names one.
func openClickHouse(e *env) (*analytics.DB, error) {
	db, err := analytics.Open(e.cfg.ClickHouseURL)
	if err != nil {
		return nil, err
	}
	db.Cluster = e.cfg.ClickHouseCluster
	return db, nil
}

// checkCluster refuses to start when the ClickHouse answers without the cluster SHARIAH_CLICKHOUSE_CLUSTER
// names. A ClickHouse that does not answer is no reason not to start: the process runs as it does when
// ClickHouse goes away later (usage held in the spool, usage reads failing) and a warning says the
// setting is unchecked.
func checkCluster(e *env, db *analytics.DB) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := db.CheckCluster(ctx)
	if errors.Is(err, analytics.ErrUnknownCluster) {
		return fmt.Errorf("SHARIAH_CLICKHOUSE_CLUSTER: %w", err)
	}
	if err != nil {
		e.log.Warn("ClickHouse did not answer: SHARIAH_CLICKHOUSE_CLUSTER is not checked", "cluster", db.Cluster, "error", err.Error())
	}
	return nil
}

// compose builds every service once over one Redis and one ClickHouse.
func compose(e *env, rc rueidis.Client, db *analytics.DB) (*services, error) {
	rs, err := rules.Rulesets()
	if err != nil {
		return nil, err
	}
	edu, err := education.Load(rs)
	if err != nil {
		return nil, err
	}
	sukukRules, err := rules.Sukuk()
	if err != nil {
		return nil, err
	}
	q, err := jobs.NewQueue(e.cfg.RedisURL, sredis.IsCluster(rc))
	if err != nil {
		return nil, err
	}
	s := &services{rc: rc, db: db, queue: q, edu: edu, sukukRules: sukukRules,
		raw: sredis.NewRefStore(rc).WithQuoteBodies(edu.QuoteBodies()), ingest: sredis.NewIngestStore(rc), news: sredis.NewNewsStore(rc),
		sukuk: sredis.NewSukukStore(rc), lists: sredis.NewWatchlistStore(rc), popularity: sredis.NewPopularityStore(rc),
		trajectory: analytics.Trajectory{DB: db}, usageRead: analytics.UsageReader{DB: db}, popular: &market.RequestCounter{}}
	s.ref = s.raw.Cached(30 * time.Second)
	s.catalogs = &catalog.Cache{Store: s.ref}
	results := sredis.NewResultStore(rc).Cached(30 * time.Second).WithChangeRetention(e.cfg.ChangeRetention).
		OnChangeError(func(err error) {
			e.log.Warn("verdict change not recorded (recorded at the symbol's next write)", "error", err.Error())
		})
	s.screener = &screening.Screener{Ref: s.ref, Results: results, Rulesets: rs, Disclaimers: edu.DisclaimersFor}
	s.bulk = &bulk.Service{Runs: sredis.NewRunStore(rc), Ref: s.ref, Screener: s.screener, Queue: q,
		Concurrency: e.cfg.BulkConcurrency, Pause: e.cfg.BulkPause, Unavailable: sredis.Unavailable}
	s.etfs = &etf.Service{Ref: s.ref, Screener: s.screener, Results: results, Catalogs: s.catalogs}
	s.insights = &insights.Service{Ref: s.ref, Screener: s.screener, Catalogs: s.catalogs}
	s.watchlists = &account.Watchlists{Store: s.lists, Resolve: s.catalogs.Resolve}
	s.changes = &screening.ChangeFeed{Log: results, Watchlists: s.lists, Indices: s.ref, Retention: results.ChangeRetention()}
	s.keys = &account.Keys{Store: sredis.NewKeyStore(rc), Plans: e.plans, Counter: sredis.NewWindowCounter(rc),
		Limits: account.IssueLimits{PerAddress: e.cfg.Plan.KeygenPerAddressHour, PerDomain: e.cfg.Plan.KeygenPerDomainHour, Window: time.Hour},
		Prefix: e.cfg.Plan.KeyPrefix}
	s.meter = sredis.NewMeter(rc, e.plans)
	s.billing = &account.Billing{Keys: s.keys, Store: sredis.NewBillingStore(rc)}
	s.payments = &stripe.Client{BaseURL: e.cfg.StripeAPIURL, SecretKey: e.cfg.StripeSecretKey, Prices: map[string]string{
		account.PlanStarter: e.cfg.StripePriceStarter, account.PlanPro: e.cfg.StripePricePro, account.PlanEnterprise: e.cfg.StripePriceEnterprise}}
	if e.cfg.AgentLLMURL != "" {
		s.llm = &agent.LLM{BaseURL: e.cfg.AgentLLMURL, Model: e.cfg.AgentLLMModel, APIKey: e.cfg.AgentLLMAPIKey}
	}
	s.trajectories = &insights.TrajectoryAnalytics{Ref: s.ref, Trajectory: s.trajectory, Rulesets: rs, Watchlists: s.lists}
	s.zakat = &finance.Zakat{Ref: s.ref, Disclaimers: edu.DisclaimersFor}
	s.purifier = &finance.Purifier{Ref: s.ref, Screener: s.screener, Disclaimers: edu.DisclaimersFor}
	s.agent = &agent.Agent{LLM: s.llm, Tools: agent.Tools{Screener: s.screener, Ref: s.ref, Catalogs: s.catalogs,
		Zakat: s.zakat, Insights: s.insights, News: s.news}}
	return s, nil
}

// withUsage adds the batching usage writer (it opens the spool directory, so only processes that serve
// the API build one).
func (s *services) withUsage(e *env) error {
	w, err := analytics.NewUsageWriter(s.db, analytics.UsageWriterConfig{SpoolDir: e.cfg.Usage.SpoolDir, SpoolMaxBytes: e.cfg.Usage.SpoolMaxBytes,
		BatchSize: e.cfg.Usage.BatchSize, Interval: e.cfg.Usage.FlushInterval, Log: e.log})
	if err != nil {
		return err
	}
	s.usage = w
	return nil
}

// withLeases meters with token leases (a process that serves; its Run is an actor of addEdgeLoops).
func (s *services) withLeases(e *env) {
	if e.cfg.MeterLeases {
		lm := sredis.NewLeaseMeter(s.rc, e.plans, sredis.LeaseOptions{Interval: e.cfg.MeterLeaseInterval, TTL: e.cfg.MeterLeaseTTL})
		if ks, ok := s.keys.Store.(*sredis.KeyStore); ok {
			ks.OnChange(lm.Forget) // this process's own revokes and plan changes apply from the next request
		}
		s.meter = lm
	}
}

// close releases what open and withUsage acquired, once every actor has returned.
func (s *services) close() {
	if s.usage != nil {
		s.usage.Close()
	}
	s.queue.Close()
	s.db.Close()
	s.rc.Close()
}
