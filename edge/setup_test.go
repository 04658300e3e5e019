package edge_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/gofiber/fiber/v2"
	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/agent"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/edge"
	"github.com/shariah-screen/shariah/education"
	"github.com/shariah-screen/shariah/etf"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/internal/testsvc"
	"github.com/shariah-screen/shariah/jobs"
	"github.com/shariah-screen/shariah/market"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/stripe"
	"github.com/shariah-screen/shariah/webhooks"
)

var (
	router routers.Router
	spec   *openapi3.T
)

func TestMain(m *testing.M) {
	fail := func(what string, err error) {
		fmt.Fprintln(os.Stderr, what+":", err)
		os.Exit(1)
	}
	// Pages, scripts and metrics are text: validate them as strings.
	for _, ct := range []string{"text/html", "application/javascript", "text/css", "text/plain", "image/svg+xml"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
	doc, _, err := edge.OpenAPI()
	if err != nil {
		fail("openapi", err)
	}
	// Route test requests (sent to http://example.com) with a copy of the document.
	spec = &openapi3.T{}
	*spec = *doc
	spec.Servers = openapi3.Servers{{URL: "http://example.com"}}
	if router, err = gorillamux.NewRouter(spec); err != nil {
		fail("openapi router", err)
	}
	os.Exit(testsvc.Main(m))
}

// env is one edge over a Redis of its own (the default pack loaded) and a ClickHouse database of its own.
type env struct {
	srv      *edge.Server
	keys     *account.Keys
	store    *sredis.KeyStore
	writer   *analytics.UsageWriter
	db       *analytics.DB
	logs     *syncBuffer
	plans    account.Plans
	bulk     *bulk.Service
	ref      *sredis.RefStore // uncached, for tests that change the data (quotes stored as served, as the writers do)
	served   *sredis.RefStore // the edge's own (client-side cached) store
	ingest   *sredis.IngestStore
	news     *sredis.NewsStore
	traj     analytics.Trajectory
	popular  *market.RequestCounter
	billing  *account.Billing
	rc       rueidis.Client
	redisURL string // the Redis the edge uses, for a second edge sharing its state
	meter    account.Meter
}

// testRedisTimeout is the Redis call timeout of a test's edge unless the test sets its own: the tests
// of hung dependencies set the production default (1 s); the others test what is served and counted,
// and on two cores shared by every package's tests and their servers a Redis call has been seen to take
// over half a second (a 503 then fails a test of exact counts).
const testRedisTimeout = 10 * time.Second

type options struct {
	costs          map[string]int // "METHOD path" to tokens, overriding the default table
	plans          account.Plans
	redisURL       string        // use this Redis as it is (empty: a Redis of the test's own with the default pack)
	db             *analytics.DB // share a database between edges
	logs           *syncBuffer
	noMigrate      bool
	spoolMax       int64               // the usage spool's cap (0: the default)
	keygenLimits   account.IssueLimits // bounds on POST /api/keys/generate (zero: none)
	worker         bool                // run an asynq worker in process (bulk runs, ETF screens)
	etfWait        time.Duration       // how long POST /api/etf/{symbol}/screen waits (default 10s)
	agentLLM       *agent.LLM          // the terminal agent's model (nil: rules only)
	stripeURL      string              // the payment processor API (empty: billing not configured)
	webhookSecret  string
	trustedProxies []netip.Prefix // peers whose X-Forwarded-For names the client
	benchRoutes    bool           // GET /bench/constant
	exactMeter     bool           // one script call per request instead of token leases (as SHARIAH_METER_LEASES=false)
	leaseTTL       time.Duration  // how long an unsettled lease lives in Redis (0: the default)
	// redisTimeout is the request's Redis call timeout (0: testRedisTimeout, not the 1 s default)
	redisTimeout time.Duration
	// eventRelevance rates 8-K items (nil: every event is unrated)
	eventRelevance func(items []string) (level, reason string)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func setup(t testing.TB, o options) *env {
	t.Helper()
	if o.redisURL == "" {
		srv, _ := redistest.StartWithDefaultPack(t)
		o.redisURL = srv.RedisURL()
	}
	if o.plans == nil {
		o.plans = account.DefaultPlans().WithoutRateLimits() // rate limits have their own tests
	}
	if o.logs == nil {
		o.logs = &syncBuffer{}
	}
	rc, err := sredis.Open(o.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rc.Close)
	db := o.db
	if db == nil {
		db, err = analytics.Open(testsvc.ClickHouseDB(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if !o.noMigrate {
			if _, err := db.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	costs := account.DefaultTokenCosts()
	for k, v := range o.costs {
		found := false
		for i := range costs {
			if costs[i].Method+" "+costs[i].Path == k {
				costs[i].Tokens, found = v, true
			}
		}
		if !found {
			t.Fatalf("no cost row %s", k)
		}
	}
	log := slog.New(slog.NewJSONHandler(o.logs, nil))
	writer, err := analytics.NewUsageWriter(db, analytics.UsageWriterConfig{SpoolDir: t.TempDir(), SpoolMaxBytes: o.spoolMax,
		BatchSize: 1000, Interval: 50 * time.Millisecond, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { writer.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; writer.Close() })
	store := sredis.NewKeyStore(rc)
	keys := &account.Keys{Store: store, Plans: o.plans}
	if o.keygenLimits.Window > 0 {
		keys.Counter, keys.Limits = sredis.NewWindowCounter(rc), o.keygenLimits
	}
	rsets, err := rules.Rulesets()
	if err != nil {
		t.Fatal(err)
	}
	edu, err := education.Load(rsets)
	if err != nil {
		t.Fatal(err)
	}
	ref := sredis.NewRefStore(rc).Cached(30 * time.Second)
	screener := &screening.Screener{Ref: ref, Results: sredis.NewResultStore(rc).Cached(30 * time.Second), Rulesets: rsets, Disclaimers: edu.DisclaimersFor}
	queue, err := jobs.NewQueue(o.redisURL, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(queue.Close)
	results := sredis.NewResultStore(rc)
	bk := &bulk.Service{Runs: sredis.NewRunStore(rc), Ref: ref, Screener: screener, Queue: queue, Concurrency: 2}
	etfs := &etf.Service{Ref: ref, Screener: screener, Results: results, Catalogs: &catalog.Cache{Store: ref}}
	// webhooks deliver to the tests' loopback receivers (SHARIAH_WEBHOOK_ALLOW in production)
	targets, err := webhooks.ParseAllow("127.0.0.1/32")
	if err != nil {
		t.Fatal(err)
	}
	hooks := &webhooks.Service{Store: sredis.NewWebhookStore(rc), Queue: queue, Targets: targets, Sender: &webhooks.Sender{Targets: targets},
		Watchlists: sredis.NewWatchlistStore(rc), Indices: ref, Resolve: (&catalog.Cache{Store: ref}).Resolve, Log: log}
	if o.worker {
		wsrv, mux, err := jobs.NewWorker(o.redisURL, false, 4, log)
		if err != nil {
			t.Fatal(err)
		}
		jobs.RegisterBulk(mux, bk)
		jobs.RegisterETF(mux, etfs)
		jobs.RegisterWebhooks(mux, hooks)
		if err := wsrv.Start(mux); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(wsrv.Shutdown)
	}
	ingest, news, traj := sredis.NewIngestStore(rc), sredis.NewNewsStore(rc), analytics.Trajectory{DB: db}
	popular := &market.RequestCounter{}
	bill := &account.Billing{Keys: keys, Store: sredis.NewBillingStore(rc)}
	var processor *stripe.Client
	if o.stripeURL != "" {
		processor = &stripe.Client{BaseURL: o.stripeURL, SecretKey: "sk_test_edge", Prices: map[string]string{"starter": "price_starter", "pro": "price_pro", "enterprise": "price_ent"}}
	}
	sukukRules, err := rules.Sukuk()
	if err != nil {
		t.Fatal(err)
	}
	var meter account.Meter = sredis.NewMeter(rc, o.plans)
	if !o.exactMeter {
		// as the service runs: token leases, settled by the meter's loop
		lm := sredis.NewLeaseMeter(rc, o.plans, sredis.LeaseOptions{TTL: o.leaseTTL})
		store.OnChange(lm.Forget)
		mctx, mcancel := context.WithCancel(context.Background())
		mdone := make(chan struct{})
		go func() { _ = lm.Run(mctx); close(mdone) }()
		t.Cleanup(func() { mcancel(); <-mdone })
		meter = lm
	}
	limits := config.DefaultHTTPLimits()
	limits.RedisTimeout = cmp.Or(o.redisTimeout, testRedisTimeout)
	srv, err := edge.New(edge.Deps{
		SukukStore: sredis.NewSukukStore(rc), SukukRules: sukukRules, Billing: bill, Processor: processor, WebhookSecret: o.webhookSecret,
		AgentLLM: o.agentLLM, Popular: popular, WatchlistStore: sredis.NewWatchlistStore(rc), Webhooks: hooks, Filings: ingest, News: news, Trajectory: traj, Health: ingest, EventRelevance: o.eventRelevance,
		NewsSources: []edge.NewsSourceInfo{{Name: "sec-edgar-8k", URL: "https://www.sec.gov", Kind: "sec"}, {Name: "example", URL: "http://feeds.example.com/rss", Kind: "feed"}},
		Bulk:        bk, ETFs: etfs, ETFQueue: queue, ETFWait: o.etfWait,
		Keys: keys, Meter: meter, Ref: ref, Screener: screener, Education: edu, Costs: costs, Usage: writer,
		UsageReader: analytics.UsageReader{DB: db}, Log: log, AccessLog: true, BaseURL: "http://example.com",
		TrustedProxies: o.trustedProxies, BenchRoutes: o.benchRoutes,
		Checks: map[string]func(context.Context) error{
			edge.DepRedis:      func(ctx context.Context) error { return sredis.Ping(ctx, rc) },
			edge.DepClickHouse: func(ctx context.Context) error { return db.Conn.Ping(ctx) },
		},
		UsageHealth:      writer.Stats,
		Limits:           limits,
		StoreUnavailable: sredis.Unavailable,
		RequestContext:   func(d time.Duration) context.Context { return sredis.WithCallTimeout(context.Background(), d) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, keys: keys, store: store, writer: writer, db: db, logs: o.logs, plans: o.plans, bulk: bk, ref: sredis.NewRefStore(rc).WithQuoteBodies(edu.QuoteBodies()), served: ref,
		ingest: ingest, news: news, traj: traj, popular: popular, rc: rc, billing: bill, redisURL: o.redisURL, meter: meter}
}

// response is a finished test request.
type response struct {
	*http.Response
	body []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// errCode returns the code of an error envelope.
func (r response) errCode(t *testing.T) string {
	t.Helper()
	m := r.json(t)
	code, _ := m["code"].(string)
	return code
}

type hdr map[string]string

// do sends a request through the app and checks what every response must satisfy: an X-Request-ID, the
// error envelope on every error, and conformance to openapi.json (status documented, body and headers
// valid) for every documented route.
func (e *env) do(t *testing.T, method, path string, body any, h hdr) response {
	t.Helper()
	var rdr io.Reader
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	default:
		raw, _ = json.Marshal(b)
	}
	if raw != nil {
		rdr = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, "http://example.com"+path, rdr)
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := e.srv.App().Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r := response{Response: resp, body: out}
	if resp.Header.Get("X-Request-ID") == "" {
		t.Errorf("%s %s: no X-Request-ID", method, path)
	}
	if resp.StatusCode >= 400 {
		var env map[string]json.RawMessage
		if err := json.Unmarshal(out, &env); err != nil {
			t.Errorf("%s %s: error body is not JSON: %s", method, path, out)
		}
		for _, k := range []string{"code", "message", "detail"} {
			if _, ok := env[k]; !ok {
				t.Errorf("%s %s: error envelope lacks %q: %s", method, path, k, out)
			}
		}
	}
	validate(t, req, raw, r)
	return r
}

func validate(t *testing.T, req *http.Request, raw []byte, r response) {
	t.Helper()
	vreq := httptest.NewRequest(req.Method, req.URL.String(), bytes.NewReader(raw))
	vreq.Header = req.Header.Clone()
	route, params, err := router.FindRoute(vreq)
	if err != nil {
		// Unknown path or method: only the envelope applies (checked by do).
		// Routes the tests add themselves (/api/test-*) and the load-test routes (/bench/*) are not in the
		// document either.
		if r.StatusCode != http.StatusNotFound && r.StatusCode != http.StatusMethodNotAllowed && !strings.HasPrefix(req.URL.Path, "/api/test-") && !strings.HasPrefix(req.URL.Path, "/bench/") {
			t.Errorf("%s %s: not in openapi.json but answered %d", req.Method, req.URL.Path, r.StatusCode)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: vreq, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status:  r.StatusCode,
		Header:  r.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	body := r.body
	if r.Header.Get("Content-Encoding") == "gzip" { // the document describes the decoded body
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err == nil {
			body, err = io.ReadAll(zr)
		}
		if err != nil {
			t.Errorf("%s %s -> %d: Content-Encoding gzip, but the body does not decode: %v", req.Method, req.URL.Path, r.StatusCode, err)
			return
		}
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s -> %d does not match openapi.json: %v\nbody: %.400s", req.Method, req.URL.Path, r.StatusCode, err, r.body)
	}
}

// newKey issues a key of the plan directly (as an operator would).
// awaitData waits until the edge sees the reference data a test changed: its cached data version
// (invalidated by Redis when the key changes, at most a second late) equals the stored one. Redis sends
// invalidations in order, so the data written before the version bump is seen too.
func (e *env) awaitData(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	want, err := e.ref.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := e.served.Version(ctx)
		if err == nil && got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the edge's data version is %d (%v), the stored one %d", got, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *env) newKey(t *testing.T, plan string) account.IssuedKey {
	t.Helper()
	k, err := e.keys.Create(context.Background(), fmt.Sprintf("u%d@example.com", time.Now().UnixNano()), plan)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func key(k account.IssuedKey) hdr { return hdr{"X-API-Key": k.Key} }

func uniqueEmail() string { return fmt.Sprintf("person%d@example.com", time.Now().UnixNano()) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

type fiberCtx = *fiber.Ctx

// json2 decodes any JSON value (arrays included).
func (r response) json2(t *testing.T) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, r.body)
	}
	return v
}

// sharedData is the shared data set's directory (SHARIAH_DATA_DIR, else ../shared/data beside the
// repository); the test or benchmark is skipped, saying why, when the file or folder it needs is absent.
func sharedData(tb testing.TB, need string) string {
	tb.Helper()
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = "../../shared/data"
	}
	if _, err := os.Stat(filepath.Join(dir, need)); err != nil {
		tb.Skipf("shared data not found at %s (set SHARIAH_DATA_DIR): %v", dir, err)
	}
	return dir
}

// ownClickHouse starts a ClickHouse of the test's own (one it may stop, hang or kill) and opens its
// database name, migrated.
func ownClickHouse(t testing.TB, name string) (*testsvc.Proc, *analytics.DB) {
	t.Helper()
	chp := testsvc.MustClickHouse(t)
	db, err := analytics.Open(chp.ClickHouseURL(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return chp, db
}
