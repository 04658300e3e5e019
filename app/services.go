// Package app composes the services of one process, once: the binary (cmd/shariah) and the tests of the
// edge and the MCP server build them here, from a configuration and the clients of Redis and
// ClickHouse, so that a test serves from the same composition as the process it stands for (as wtf's
// end-to-end tests reuse its Main). What runs them (servers, workers, loops and their shutdown) stays
// with the binary.
package app

import (
	"log/slog"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/agent"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/config"
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
	"github.com/shariah-screen/shariah/webhooks"
)

// Env is what a process is composed from: its configuration (validated), the plans it sells and its
// logger.
type Env struct {
	Config config.Config
	Plans  account.Plans
	Log    *slog.Logger
}

// Clients are the connections the services are composed over. Whoever opened them closes them
// (Services.Close does not).
type Clients struct {
	Redis      rueidis.Client
	ClickHouse *analytics.DB
}

// Services are every service and store of one process, built once by Compose and handed to whatever
// the process runs: the HTTP edge (and through it the terminal agent), the MCP server, the workers and
// the ingesters. In `shariah all` they all read through one reference cache and one catalog cache.
type Services struct {
	Clients
	Queue *jobs.Queue

	// Raw is the reference store without a cache: the ingesters read what they just wrote.
	Raw *sredis.RefStore
	// Ref caches reads for 30 s: the store every served answer reads.
	Ref        *sredis.RefStore
	Catalogs   *catalog.Cache
	Screener   *screening.Screener
	Education  *education.Registry
	Bulk       *bulk.Service
	ETFs       *etf.Service
	Insights   *insights.Service
	Watchlists *account.Watchlists
	// Trajectories, Zakat, Purifier and Agent: one each, for the edge, the MCP server and the agent's tools.
	Trajectories *insights.TrajectoryAnalytics
	Changes      *screening.ChangeFeed // the verdict change feed, for the edge and the MCP server
	// Webhooks are the users' webhook endpoints, their fan-out and deliveries (run by the workers);
	// ChangeEvents the change log as their relay reads it.
	Webhooks     *webhooks.Service
	ChangeEvents *webhooks.ChangeStream
	Zakat        *finance.Zakat
	Purifier     *finance.Purifier
	Agent        *agent.Agent
	SukukRules   *sukuk.Rules

	Keys     *account.Keys
	KeyStore *sredis.KeyStore // Keys.Store, for what needs the adapter's own (a lease meter's OnChange)
	Meter    account.Meter
	Billing  *account.Billing
	Payments *stripe.Client
	Popular  *market.RequestCounter
	LLM      *agent.LLM // nil: the terminal agent runs its rules only

	Ingest     *sredis.IngestStore // filings, sources' health and checkpoints
	News       *sredis.NewsStore
	Sukuk      *sredis.SukukStore
	Lists      *sredis.WatchlistStore
	Popularity *sredis.PopularityStore
	Trajectory analytics.Trajectory
	UsageRead  analytics.UsageReader

	// Usage is the batching usage writer; nil unless WithUsage added it (only the edge records usage).
	Usage *analytics.UsageWriter
}

// Compose builds every service once over one Redis and one ClickHouse.
func Compose(e Env, c Clients) (*Services, error) {
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
	q, err := jobs.NewQueue(e.Config.RedisURL, sredis.IsCluster(c.Redis))
	if err != nil {
		return nil, err
	}
	s := &Services{Clients: c, Queue: q, Education: edu, SukukRules: sukukRules}
	s.stores(c)
	s.Ref = s.Raw.Cached(30 * time.Second)
	s.Catalogs = &catalog.Cache{Store: s.Ref}
	s.domain(e, c.Redis, rs)
	s.accounts(e, c.Redis)
	s.agent(e)
	return s, nil
}

// stores builds the adapters' stores the services read and write.
func (s *Services) stores(c Clients) {
	rc := c.Redis
	s.Raw = sredis.NewRefStore(rc).WithQuoteBodies(s.Education.QuoteBodies())
	s.Ingest, s.News, s.Sukuk = sredis.NewIngestStore(rc), sredis.NewNewsStore(rc), sredis.NewSukukStore(rc)
	s.Lists, s.Popularity = sredis.NewWatchlistStore(rc), sredis.NewPopularityStore(rc)
	s.Trajectory, s.UsageRead = analytics.Trajectory{DB: c.ClickHouse}, analytics.UsageReader{DB: c.ClickHouse}
	s.Popular = &market.RequestCounter{}
}

// domain builds the domain's services over the stores: the one screener and what is built on it.
func (s *Services) domain(e Env, rc rueidis.Client, rs screening.Rulesets) {
	results := sredis.NewResultStore(rc).Cached(30 * time.Second).WithChangeRetention(e.Config.ChangeRetention).
		OnChangeError(func(err error) {
			e.Log.Warn("verdict change not recorded (recorded at the symbol's next write)", "error", err.Error())
		})
	disclaimers := s.Education.DisclaimersFor
	s.Screener = &screening.Screener{Ref: s.Ref, Results: results, Rulesets: rs, Disclaimers: disclaimers}
	s.Bulk = &bulk.Service{Runs: sredis.NewRunStore(rc), Ref: s.Ref, Screener: s.Screener, Queue: s.Queue,
		Concurrency: e.Config.BulkConcurrency, Pause: e.Config.BulkPause, Unavailable: sredis.Unavailable}
	s.ETFs = &etf.Service{Ref: s.Ref, Screener: s.Screener, Results: results, Catalogs: s.Catalogs}
	s.Insights = &insights.Service{Ref: s.Ref, Screener: s.Screener, Catalogs: s.Catalogs}
	s.Watchlists = &account.Watchlists{Store: s.Lists, Resolve: s.Catalogs.Resolve}
	s.Changes = &screening.ChangeFeed{Log: results, Watchlists: s.Lists, Indices: s.Ref, Retention: results.ChangeRetention()}
	targets := e.Config.WebhookTargets()
	s.Webhooks = &webhooks.Service{Store: sredis.NewWebhookStore(rc), Queue: s.Queue, Targets: targets,
		Sender: &webhooks.Sender{Targets: targets, Timeout: e.Config.WebhookTimeout}, Watchlists: s.Lists, Indices: s.Ref,
		Resolve: s.Catalogs.Resolve, Log: e.Log}
	s.ChangeEvents = &webhooks.ChangeStream{Log: results, OnTrimmed: func(dropped string) {
		e.Log.Warn("webhook relay: changes were dropped by the retention before they were delivered", "newest_dropped", dropped)
	}}
	s.Trajectories = &insights.TrajectoryAnalytics{Ref: s.Ref, Trajectory: s.Trajectory, Rulesets: rs, Watchlists: s.Lists}
	s.Zakat = &finance.Zakat{Ref: s.Ref, Disclaimers: disclaimers}
	s.Purifier = &finance.Purifier{Ref: s.Ref, Screener: s.Screener, Disclaimers: disclaimers}
}

// accounts builds the keys, the meter (exact: one script call per request; WithLeases swaps in the
// lease meter) and billing with its payment processor.
func (s *Services) accounts(e Env, rc rueidis.Client) {
	cfg := e.Config
	s.KeyStore = sredis.NewKeyStore(rc)
	s.Keys = &account.Keys{Store: s.KeyStore, Plans: e.Plans, Counter: sredis.NewWindowCounter(rc),
		Limits: account.IssueLimits{PerAddress: cfg.Plan.KeygenPerAddressHour, PerDomain: cfg.Plan.KeygenPerDomainHour, Window: time.Hour},
		Prefix: cfg.Plan.KeyPrefix}
	s.Meter = sredis.NewMeter(rc, e.Plans)
	s.Billing = &account.Billing{Keys: s.Keys, Store: sredis.NewBillingStore(rc)}
	s.Payments = &stripe.Client{BaseURL: cfg.StripeAPIURL, SecretKey: cfg.StripeSecretKey, Prices: map[string]string{
		account.PlanStarter: cfg.StripePriceStarter, account.PlanPro: cfg.StripePricePro, account.PlanEnterprise: cfg.StripePriceEnterprise}}
}

// agent builds the terminal agent over the same services, with its model when one is configured.
func (s *Services) agent(e Env) {
	if e.Config.AgentLLMURL != "" {
		s.LLM = &agent.LLM{BaseURL: e.Config.AgentLLMURL, Model: e.Config.AgentLLMModel, APIKey: e.Config.AgentLLMAPIKey}
	}
	s.Agent = &agent.Agent{LLM: s.LLM, Tools: agent.Tools{Screener: s.Screener, Ref: s.Ref, Catalogs: s.Catalogs,
		Zakat: s.Zakat, Insights: s.Insights, News: s.News}}
}

// WithUsage adds the batching usage writer (it opens the spool directory, so only processes that serve
// the API build one). Its Run is the caller's to start.
func (s *Services) WithUsage(e Env) error {
	u := e.Config.Usage
	w, err := analytics.NewUsageWriter(s.ClickHouse, analytics.UsageWriterConfig{SpoolDir: u.SpoolDir, SpoolMaxBytes: u.SpoolMaxBytes,
		BatchSize: u.BatchSize, Interval: u.FlushInterval, Log: e.Log})
	if err != nil {
		return err
	}
	s.Usage = w
	return nil
}

// WithLeases meters with token leases when the configuration says so (a process that serves; the
// lease meter's Run is the caller's to start).
func (s *Services) WithLeases(e Env) {
	if e.Config.MeterLeases {
		lm := sredis.NewLeaseMeter(s.Redis, e.Plans, sredis.LeaseOptions{Interval: e.Config.MeterLeaseInterval, TTL: e.Config.MeterLeaseTTL})
		s.KeyStore.OnChange(lm.Forget) // this process's own revokes and plan changes apply from the next request
		s.Meter = lm
	}
}

// Close releases what Compose and WithUsage acquired (the usage writer, the queue), once every actor
// has returned; the clients stay open.
func (s *Services) Close() {
	if s.Usage != nil {
		s.Usage.Close()
	}
	s.Queue.Close()
}
