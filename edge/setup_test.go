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
	"github.com/shariah-screen/shariah/app"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/edge"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/internal/testsvc"
	"github.com/shariah-screen/shariah/jobs"
	"github.com/shariah-screen/shariah/market"
	sredis "github.com/shariah-screen/shariah/redis"
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
	svc      *app.Services // the composition the edge serves from (app.Compose, as cmd/shariah's)
	appEnv   app.Env       // what it was composed from
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
	// wrap changes the composed services before the edge is built on them (a test's instruments)
	wrap func(*app.Services)
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
	ae := app.Env{Config: testConfig(t, o), Plans: o.plans, Log: log}
	svc, err := app.Compose(ae, app.Clients{Redis: rc, ClickHouse: db})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.WithUsage(ae); err != nil {
		t.Fatal(err)
	}
	svc.WithLeases(ae)
	t.Cleanup(svc.Close)
	if o.wrap != nil {
		o.wrap(svc)
	}
	runLoop(t, func(ctx context.Context) { svc.Usage.Run(ctx) })
	if lm, ok := svc.Meter.(*sredis.LeaseMeter); ok { // as the service runs: token leases, settled by the meter's loop
		runLoop(t, func(ctx context.Context) { _ = lm.Run(ctx) })
	}
	if o.worker {
		wsrv, mux, err := jobs.NewWorker(o.redisURL, false, 4, log)
		if err != nil {
			t.Fatal(err)
		}
		jobs.RegisterBulk(mux, svc.Bulk)
		jobs.RegisterETF(mux, svc.ETFs)
		jobs.RegisterWebhooks(mux, svc.Webhooks)
		if err := wsrv.Start(mux); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(wsrv.Shutdown)
	}
	d := app.EdgeDeps(ae, svc)
	d.Costs, d.EventRelevance = costs, o.eventRelevance
	d.BenchRoutes = o.benchRoutes
	srv, err := edge.New(d)
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, svc: svc, appEnv: ae, keys: svc.Keys, store: svc.KeyStore, writer: svc.Usage, db: db, logs: o.logs, plans: o.plans, bulk: svc.Bulk,
		ref: svc.Raw, served: svc.Ref, ingest: svc.Ingest, news: svc.News, traj: svc.Trajectory, popular: svc.Popular, rc: rc,
		billing: svc.Billing, redisURL: o.redisURL, meter: svc.Meter}
}

// testConfig is the configuration of a test's edge: the defaults with the options' settings.
func testConfig(t testing.TB, o options) config.Config {
	cfg := config.Defaults()
	cfg.RedisURL, cfg.BaseURL, cfg.AccessLog = o.redisURL, "http://example.com", true
	cfg.BulkConcurrency = 2
	cfg.Usage.SpoolDir, cfg.Usage.SpoolMaxBytes, cfg.Usage.BatchSize, cfg.Usage.FlushInterval = t.TempDir(), o.spoolMax, 1000, 50*time.Millisecond
	// key generation unbounded but where a test bounds it
	cfg.Plan.KeygenPerAddressHour, cfg.Plan.KeygenPerDomainHour = o.keygenLimits.PerAddress, o.keygenLimits.PerDomain
	cfg.MeterLeases = !o.exactMeter
	if o.leaseTTL > 0 {
		cfg.MeterLeaseTTL = o.leaseTTL
	}
	cfg.ETFWait = cmp.Or(o.etfWait, cfg.ETFWait)
	cfg.WebhookAllow = "127.0.0.1/32" // the tests' receivers
	if o.agentLLM != nil {
		cfg.AgentLLMURL, cfg.AgentLLMModel, cfg.AgentLLMAPIKey = o.agentLLM.BaseURL, o.agentLLM.Model, o.agentLLM.APIKey
	}
	if o.stripeURL != "" {
		cfg.StripeAPIURL, cfg.StripeSecretKey = o.stripeURL, "sk_test_edge"
		cfg.StripePriceStarter, cfg.StripePricePro, cfg.StripePriceEnterprise = "price_starter", "price_pro", "price_ent"
	}
	cfg.WebhookSecret = o.webhookSecret
	for _, p := range o.trustedProxies {
		cfg.TrustedProxies += p.String() + ","
	}
	cfg.TrustedProxies = strings.TrimSuffix(cfg.TrustedProxies, ",")
	cfg.Ingest.SECDataURL, cfg.Ingest.NewsFeeds = "https://www.sec.gov", "example|http://feeds.example.com/rss"
	cfg.HTTP.RedisTimeout = cmp.Or(o.redisTimeout, testRedisTimeout)
	return cfg
}

// runLoop runs a service's loop until the test ends.
func runLoop(t testing.TB, loop func(context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { loop(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
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
func (e *env) awaitData(t testing.TB) {
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
