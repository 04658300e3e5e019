// Package edge is the HTTP API: fiber routes from one table, the request-id / metering / logging
// middleware, the error handler (the only writer of error bodies), and the embedded OpenAPI document
// with its /docs and /redoc pages.
package edge

import (
	"context"
	"log/slog"
	"net/netip"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/agent"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/education"
	"github.com/shariah-screen/shariah/etf"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/finance"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/jobs"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/stripe"
	"github.com/shariah-screen/shariah/sukuk"
	"github.com/shariah-screen/shariah/webhooks"
)

// Deps are what the edge serves from. Every field is required unless noted.
type Deps struct {
	Keys      *account.Keys // issuing, regenerating and revoking keys (holds the KeyStore and plans)
	Meter     account.Meter
	Ref       market.RefReader // reference and market data
	Screener  *screening.Screener
	Education *education.Registry
	Bulk      *bulk.Service
	ETFs      *etf.Service
	// ETFQueue runs ETF look-throughs on a worker; ETFWait bounds how long a request waits for one.
	ETFQueue interface {
		EnqueueETF(ctx context.Context, p jobs.ETFPayload) error
	}
	ETFWait time.Duration
	// Popular counts quote requests per symbol (for the quote refresh of the most requested); optional.
	Popular *market.RequestCounter
	Filings filings.Store
	// Billing applies payment-processor events; Processor opens checkout and portal sessions;
	// WebhookSecret verifies webhooks. Without them the billing routes answer 503.
	Billing       *account.Billing
	Processor     *stripe.Client
	WebhookSecret string
	// SukukStore holds sukuk records; SukukRules dispose them (AAOIFI before and after Standard 62).
	SukukStore sukuk.Store
	SukukRules *sukuk.Rules
	// Webhooks are the users' webhook endpoints and deliveries; nil: the webhook routes answer 503.
	Webhooks *webhooks.Service
	// Watchlists keeps users' watchlists (the MCP server's own).
	Watchlists *account.Watchlists
	News       filings.NewsStore
	Trajectory insights.TrajectoryStore
	Health     filings.HealthStore // ingest sources' health (optional)
	// NewsSources are the configured news sources; EventRelevance rates 8-K items (news.RelevanceFor8K).
	NewsSources    []NewsSourceInfo
	EventRelevance func(items []string) (level, reason string)
	// QueueHealth adds the worker queues to /api/screen-bulk/source-health (optional).
	QueueHealth func(context.Context) map[string]any
	Costs       account.TokenCosts // nil: account.DefaultTokenCosts()
	Usage       account.UsageRecorder
	UsageReader account.UsageReader
	Log         *slog.Logger
	AccessLog   bool
	BaseURL     string // public base URL, for Link headers
	// Registry receives the edge's metrics and is served at /metrics; nil: a new registry.
	Registry *prometheus.Registry
	// Checks are the dependencies /api/health reports on (name to ping: DepRedis, DepClickHouse);
	// optional. /readyz answers from the Redis one.
	Checks map[string]func(context.Context) error
	// UsageHealth reports the usage spool in /api/health (optional).
	UsageHealth func() account.UsageSpoolStats
	// Limits bound every request (body size, read, write and idle timeouts); zero: config.DefaultHTTPLimits.
	Limits config.HTTPLimits
	// TrustedProxies are the reverse proxies whose X-Forwarded-For names the client (clientAddress);
	// none: the peer address is the client.
	TrustedProxies []netip.Prefix
	// BenchRoutes adds GET /bench/constant, a bare constant-JSON route for load-test comparisons.
	BenchRoutes bool
	Now         func() time.Time // nil: time.Now

	// How the store adapter's failures and call budget reach the edge (it imports no adapter).
	// StoreUnavailable reports an error of a store that is down or failing over: a 503 with Retry-After,
	// not a 500 (cmd: redis.Unavailable); nil: no error is.
	StoreUnavailable func(error) bool
	// RequestContext is a new request's context, carrying the store's call budget, so that a hung Redis
	// fails a request's calls within callTimeout (Limits.RedisTimeout; cmd: redis.WithCallTimeout);
	// nil: context.Background.
	RequestContext func(callTimeout time.Duration) context.Context

	// The process's shared services, composed once (app.Compose) and handed to the MCP server too (the
	// agent's tools use them as well).
	Catalogs     *catalog.Cache
	Insights     *insights.Service
	Trajectories *insights.TrajectoryAnalytics
	Changes      *screening.ChangeFeed // the verdict change feed (nil: GET /api/changes answers 503)
	Zakat        *finance.Zakat
	Purifier     *finance.Purifier
	Agent        *agent.Agent
}

// Server is the HTTP edge.
type Server struct {
	Deps
	app      *fiber.App
	log      *slog.Logger
	routes   []route
	metrics  *metrics
	deps     *deps
	quiet    *quietLog
	plans    account.Plans
	store    account.KeyStore
	catalogs *catalog.Cache
	insights *insights.Service
	// quoteBodies encodes GET /api/quote's body (the quote with the registry's market_data disclaimer).
	quoteBodies market.QuoteBodies
	// viewMemo holds the bodies of the methodology views served last (see sendResult), bounded.
	memoMu   sync.Mutex
	viewMemo map[string]*viewMemo
	// catalogBodies holds the encoded search and suggest answers of the current catalog (database.go).
	catalogBodies catalogBodies
	// redisTimeout bounds the Redis calls of a request (Limits.RedisTimeout; requestContext).
	redisTimeout time.Duration
}

// writeBufferSize is the response buffer of a connection: a stored screening (about 22 KB since the
// bounded inputs' notes, issue 25) with its headers fits, so it leaves in one write(2). At 16 KB it left
// in two, and the cached screening's server CPU a request was 42-47 us instead of 31-34 (2026-11-27).
const writeBufferSize = 32 << 10

// authMode says how a route authenticates.
type authMode int

const (
	authNone    authMode = iota // no key checked by the middleware: system routes, key generation and revocation, disclaimers, billing (which checks its own)
	authHeader                  // X-API-Key header, metered
	authPathKey                 // deprecated key-in-path routes: the key in {api_key}, metered
)

// route is one row of the route table. Path is in OpenAPI syntax, as in openapi.json and the
// token-cost table.
type route struct {
	Method  string
	Path    string
	Auth    authMode
	Handler fiber.Handler
	// Successor, for a deprecated route, is the path that replaces it (Deprecation and Link headers).
	Successor string
	// Fresh, when set, decides before the handler runs whether the request computes afresh (and pays
	// the token table's fresh price); otherwise force_refresh=true does.
	Fresh func(*fiber.Ctx) bool
	cost  account.TokenCost
}

// withDefaults fills what Deps was given without: the process's defaults (costs, clock, log, ETF
// wait, metrics registry). The services themselves come composed (app.Compose), none is built here.
func (d Deps) withDefaults() Deps {
	if d.Costs == nil {
		d.Costs = account.DefaultTokenCosts()
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.ETFWait == 0 {
		d.ETFWait = 10 * time.Second
	}
	if d.Registry == nil {
		d.Registry = prometheus.NewRegistry()
	}
	return d
}

// New builds the edge.
func New(d Deps) (*Server, error) {
	d = d.withDefaults()
	s := &Server{Deps: d, log: d.Log, plans: d.Keys.Plans, store: d.Keys.Store, catalogs: d.Catalogs, insights: d.Insights}
	s.metrics = newMetrics(d.Registry)
	s.deps = newDeps(d.Checks, d.Log)
	s.quiet = &quietLog{log: d.Log}
	s.quoteBodies = market.NewQuoteBodies(nil)
	if d.Education != nil {
		s.quoteBodies = d.Education.QuoteBodies()
	}
	if d.Health != nil {
		d.Registry.MustRegister(ingestCollector{d.Health})
	}
	limits := d.Limits.OrDefault()
	s.redisTimeout = limits.RedisTimeout
	fc := fiber.Config{
		ErrorHandler:          s.errorHandler,
		DisableStartupMessage: true,
		AppName:               "shariah",
		BodyLimit:             limits.BodyLimit,
		ReadTimeout:           limits.ReadTimeout,
		WriteTimeout:          limits.WriteTimeout,
		IdleTimeout:           limits.IdleTimeout,
		CaseSensitive:         true,
		// fasthttp's 4 KB default flushes the headers of a larger body in a write(2) of their own.
		WriteBufferSize: writeBufferSize,
	}
	if len(d.TrustedProxies) > 0 {
		// c.IP() reads X-Forwarded-For only from a trusted peer; clientAddress picks the right entry.
		fc.EnableTrustedProxyCheck, fc.ProxyHeader, fc.EnableIPValidation = true, fiber.HeaderXForwardedFor, true
		for _, p := range d.TrustedProxies {
			fc.TrustedProxies = append(fc.TrustedProxies, p.String())
		}
	}
	s.app = fiber.New(fc)
	s.app.Use(s.outer)
	s.routes = s.routeTable()
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.cost.Class == "" && (rt.Auth != authNone || strings.HasPrefix(rt.Path, "/api/")) {
			c, ok := d.Costs.Lookup(rt.Method, rt.Path)
			if !ok {
				return nil, &shariah.Error{Code: shariah.EINTERNAL, Message: "route " + rt.Method + " " + rt.Path + " has no token cost"}
			}
			rt.cost = c
		}
		s.app.Add(rt.Method, fiberPath(rt.Path), s.handle(rt))
	}
	return s, nil
}

// requestContext is a request's context: a hung Redis fails its calls within the Redis call timeout,
// and the request answers 503 (Deps.RequestContext).
func (s *Server) requestContext() context.Context {
	if s.RequestContext == nil {
		return context.Background()
	}
	return s.RequestContext(s.redisTimeout)
}

// storeUnavailable reports an error of a store that is down or failing over (Deps.StoreUnavailable).
func (s *Server) storeUnavailable(err error) bool {
	return s.StoreUnavailable != nil && s.StoreUnavailable(err)
}

// App returns the fiber app (for Listen and for tests' app.Test).
func (s *Server) App() *fiber.App { return s.app }

// Listen serves on addr until Shutdown.
func (s *Server) Listen(addr string) error { return s.app.Listen(addr) }

// Shutdown stops accepting connections and waits for requests in flight, up to the context's deadline.
func (s *Server) Shutdown(ctx context.Context) error { return s.app.ShutdownWithContext(ctx) }

// Routes lists the route table as "METHOD path" (OpenAPI syntax).
func (s *Server) Routes() []string {
	out := make([]string, 0, len(s.routes))
	for _, r := range s.routes {
		out = append(out, r.Method+" "+r.Path)
	}
	sort.Strings(out)
	return out
}

var paramRE = regexp.MustCompile(`\{([a-z_]+)\}`)

// fiberPath turns /api/quote/{symbol} into /api/quote/:symbol.
func fiberPath(p string) string { return paramRE.ReplaceAllString(p, ":$1") }

// allowedMethods lists the methods of the routes whose template matches path (for 405's Allow).
func (s *Server) allowedMethods(path string) string {
	seg := strings.Split(strings.Trim(path, "/"), "/")
	seen := map[string]bool{}
	var out []string
	for _, r := range s.routes {
		tseg := strings.Split(strings.Trim(r.Path, "/"), "/")
		if len(tseg) != len(seg) {
			continue
		}
		ok := true
		for i := range tseg {
			if !strings.HasPrefix(tseg[i], "{") && tseg[i] != seg[i] {
				ok = false
				break
			}
		}
		if ok && !seen[r.Method] {
			seen[r.Method] = true
			out = append(out, r.Method)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// Locals keys.
type localKey int

const (
	ridKey localKey = iota
	routeKey
	chargeKey
	errCodeKey // the error envelope's code of the response (set by errorHandler), for the usage event
	screenKey  // the screening request as prepared once (screenRequest)
)

var ridRE = regexp.MustCompile(`^[A-Za-z0-9._:\-]{1,128}$`)

func requestID(c *fiber.Ctx) string {
	if v, ok := c.Locals(ridKey).(string); ok {
		return v
	}
	return ""
}

func routeOf(c *fiber.Ctx) string {
	if r, ok := c.Locals(routeKey).(*route); ok {
		return r.Path
	}
	return "unmatched"
}

func chargeOf(c *fiber.Ctx) *account.Charge {
	ch, _ := c.Locals(chargeKey).(*account.Charge)
	return ch
}

// Rulesets lists the names of the rulesets the edge screens with.
func (s *Server) Rulesets() []string { return s.Screener.Rulesets.Names() }
