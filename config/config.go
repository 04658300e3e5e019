// Package config loads the service's configuration from the environment once, at start, and validates
// it, reporting every problem at once.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/robfig/cron/v3"
	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/webhooks"
)

// Config is every setting of every process; each subcommand reads the part it needs.
type Config struct {
	HTTPAddr string `env:"SHARIAH_HTTP_ADDR" envDefault:":8000"`
	MCPAddr  string `env:"SHARIAH_MCP_ADDR" envDefault:":8001"`
	// MCPRequireKey makes the MCP HTTP transports require X-API-Key on every request (stdio never does).
	// Without it an X-API-Key is still honoured (identifies and meters the caller; a bad one is refused).
	MCPRequireKey bool `env:"SHARIAH_MCP_REQUIRE_KEY" envDefault:"false"`
	// MCPKeyless is what an MCP HTTP caller without a key may run: "readonly" (the tools whose
	// readOnlyHint is true, and the read actions of the others; no force_refresh) or "full" (every tool
	// but the watchlists, for trusted local setups). stdio always runs every tool.
	MCPKeyless string `env:"SHARIAH_MCP_KEYLESS" envDefault:"readonly"`
	// MCPKeylessLimits bound the MCP HTTP callers without a key, per client address and in all.
	MCPKeylessLimits KeylessLimits
	// MCPAllowedOrigins are the browser origins (comma-separated scheme://host[:port]; port "*" is any
	// port) that may call the MCP port: a request whose Origin header is not among them is 403, one
	// without an Origin header (not a browser) is served. The default is localhost only (DNS rebinding);
	// "none" allows no browser.
	MCPAllowedOrigins string `env:"SHARIAH_MCP_ALLOWED_ORIGINS" envDefault:"http://localhost:*,http://127.0.0.1:*,http://[::1]:*,https://localhost:*,https://127.0.0.1:*,https://[::1]:*"`
	// HTTP bounds every request of the API and of the MCP port alike.
	HTTP HTTPLimits
	// TrustedProxies are the addresses (CIDR or single IPs, comma-separated) of reverse proxies whose
	// X-Forwarded-For names the client (key-generation limits per address); empty: none, the peer
	// address is the client.
	TrustedProxies string `env:"SHARIAH_TRUSTED_PROXIES"`
	RedisURL       string `env:"SHARIAH_REDIS_URL" envDefault:"redis://127.0.0.1:6379/0"`
	ClickHouseURL  string `env:"SHARIAH_CLICKHOUSE_URL" envDefault:"clickhouse://127.0.0.1:9000/shariah"`
	DataDir        string `env:"SHARIAH_DATA_DIR"`
	WebhookSecret  string `env:"SHARIAH_WEBHOOK_SECRET"`
	// WebhookAllow are the addresses users' webhooks may be delivered to although they are not the
	// public internet (loopback, private, link-local, metadata: refused otherwise, at creation and at
	// every connect): comma-separated CIDRs, IP addresses or host names; a host allowed this way may
	// also be plain http. Empty: none (production).
	WebhookAllow string `env:"SHARIAH_WEBHOOK_ALLOW"`
	// WebhookTimeout bounds one delivery attempt (connect, send, the receiver's whole answer).
	WebhookTimeout time.Duration `env:"SHARIAH_WEBHOOK_TIMEOUT" envDefault:"10s"`
	// Billing through Stripe's API (checkout, portal); without the secret key the billing routes answer 503.
	StripeSecretKey       string `env:"SHARIAH_STRIPE_SECRET_KEY"`
	StripeAPIURL          string `env:"SHARIAH_STRIPE_API_URL" envDefault:"https://api.stripe.com"`
	StripePriceStarter    string `env:"SHARIAH_STRIPE_PRICE_STARTER"`
	StripePricePro        string `env:"SHARIAH_STRIPE_PRICE_PRO"`
	StripePriceEnterprise string `env:"SHARIAH_STRIPE_PRICE_ENTERPRISE"`
	// The terminal agent's optional OpenAI-compatible chat endpoint (base URL ending in /v1).
	AgentLLMURL    string `env:"SHARIAH_AGENT_LLM_URL"`
	AgentLLMModel  string `env:"SHARIAH_AGENT_LLM_MODEL" envDefault:"gpt-4o-mini"`
	AgentLLMAPIKey string `env:"SHARIAH_AGENT_LLM_API_KEY"`
	LogLevel       string `env:"SHARIAH_LOG_LEVEL" envDefault:"info"`
	// AccessLog writes one JSON line per request (on by default; load tests turn it off).
	AccessLog bool `env:"SHARIAH_ACCESS_LOG" envDefault:"true"`
	// BaseURL is the public address used in links (docs, Link headers of deprecated routes).
	BaseURL string `env:"SHARIAH_BASE_URL" envDefault:"http://localhost:8000"`

	// ClickHouseCluster names the ClickHouse cluster (the servers' remote_servers) the schema is
	// replicated across: replicated tables created ON CLUSTER, Distributed tables for reads and writes.
	// Empty: a single server.
	ClickHouseCluster string `env:"SHARIAH_CLICKHOUSE_CLUSTER"`

	Usage Usage
	Plan  PlanSettings
	// PprofAddr serves Go's profiler (/debug/pprof/) on this address, e.g. 127.0.0.1:6060; empty: off.
	PprofAddr string `env:"SHARIAH_PPROF_ADDR"`
	// MeterLeases lets an edge hold token leases per key (redis.LeaseMeter: most metered requests cost
	// no Redis round trip; usage is settled every MeterLeaseInterval). Off: one script call per request.
	MeterLeases        bool          `env:"SHARIAH_METER_LEASES" envDefault:"true"`
	MeterLeaseInterval time.Duration `env:"SHARIAH_METER_LEASE_INTERVAL" envDefault:"100ms"`
	// MeterLeaseTTL: a lease its edge has not settled within it (the edge died) is counted as spent.
	MeterLeaseTTL time.Duration `env:"SHARIAH_METER_LEASE_TTL" envDefault:"5s"`

	// WorkerConcurrency is the number of tasks a worker runs at once; BulkConcurrency the symbols a run
	// screens at once.
	WorkerConcurrency int `env:"SHARIAH_WORKER_CONCURRENCY" envDefault:"4"`
	BulkConcurrency   int `env:"SHARIAH_BULK_CONCURRENCY" envDefault:"4"`
	// BulkPause is a pause after each symbol of a run, to spread a run's load on shared infrastructure.
	BulkPause time.Duration `env:"SHARIAH_BULK_PAUSE" envDefault:"0s"`
	// RescreenSchedules are cron rescreens, "INDEX=cron spec;..." (UTC), e.g. "SP500=0 2 * * *".
	RescreenSchedules string `env:"SHARIAH_RESCREEN_SCHEDULES" envDefault:"SP500=0 2 * * *"`
	// ETFWait bounds how long POST /api/etf/{symbol}/screen waits for its worker before answering 202.
	ETFWait time.Duration `env:"SHARIAH_ETF_WAIT" envDefault:"10s"`
	// ChangeRetention is how long the verdict change log keeps a change (GET /api/changes; a cursor
	// older than what it keeps is 410). 90 days.
	ChangeRetention time.Duration `env:"SHARIAH_CHANGE_RETENTION" envDefault:"2160h"`

	Ingest Ingest

	// ShutdownTimeout bounds graceful shutdown of every actor.
	ShutdownTimeout time.Duration `env:"SHARIAH_SHUTDOWN_TIMEOUT" envDefault:"15s"`
}

// Usage configures the usage writer: a journal on local disk (the spool), shipped to ClickHouse in batches.
type Usage struct {
	BatchSize     int           `env:"SHARIAH_USAGE_BATCH_SIZE" envDefault:"100000"`
	FlushInterval time.Duration `env:"SHARIAH_USAGE_FLUSH_INTERVAL" envDefault:"1s"`
	// SpoolDir holds the events not yet in ClickHouse (one slot per running process).
	SpoolDir string `env:"SHARIAH_USAGE_SPOOL_DIR" envDefault:".local/usage-spool"`
	// SpoolMaxBytes caps the spool (about 150 bytes an event: 1 GiB holds about 7 million); past it,
	// events are dropped, counted, logged and shown in health.
	SpoolMaxBytes int64 `env:"SHARIAH_USAGE_SPOOL_MAX_BYTES" envDefault:"1073741824"`
}

// HTTPLimits bound every HTTP request, on the API port and the MCP port: the body size (larger is 413
// before it is read), the time to read a whole request (headers and body: a slow body is cut), the time
// to write a response (on MCP streams, SSE and Streamable HTTP GET, each write), and how long an idle
// keep-alive connection stays open; and how long one Redis call made for a request may take (past it
// the request answers 503 with Retry-After: a hung Redis holds no request longer).
type HTTPLimits struct {
	BodyLimit    int           `env:"SHARIAH_HTTP_BODY_LIMIT" envDefault:"1048576"`
	ReadTimeout  time.Duration `env:"SHARIAH_HTTP_READ_TIMEOUT" envDefault:"30s"`
	WriteTimeout time.Duration `env:"SHARIAH_HTTP_WRITE_TIMEOUT" envDefault:"60s"`
	IdleTimeout  time.Duration `env:"SHARIAH_HTTP_IDLE_TIMEOUT" envDefault:"120s"`
	RedisTimeout time.Duration `env:"SHARIAH_REDIS_TIMEOUT" envDefault:"1s"`
}

// DefaultHTTPLimits are the limits of an empty environment (the envDefault tags above: one definition).
func DefaultHTTPLimits() HTTPLimits {
	var l HTTPLimits
	if err := env.ParseWithOptions(&l, env.Options{Environment: map[string]string{}}); err != nil {
		panic(err)
	}
	return l
}

// OrDefault returns the limits, or the defaults when they are unset (the zero value).
func (l HTTPLimits) OrDefault() HTTPLimits {
	if l == (HTTPLimits{}) {
		return DefaultHTTPLimits()
	}
	return l
}

func (l HTTPLimits) validate() []error {
	var errs []error
	if l.BodyLimit < 1024 || l.BodyLimit > 1<<30 {
		errs = append(errs, fmt.Errorf("SHARIAH_HTTP_BODY_LIMIT: %d is out of 1024..1073741824 bytes", l.BodyLimit))
	}
	for name, d := range map[string]time.Duration{"SHARIAH_HTTP_READ_TIMEOUT": l.ReadTimeout, "SHARIAH_HTTP_WRITE_TIMEOUT": l.WriteTimeout,
		"SHARIAH_HTTP_IDLE_TIMEOUT": l.IdleTimeout} {
		if d < 100*time.Millisecond || d > time.Hour {
			errs = append(errs, fmt.Errorf("%s: %s is out of 100ms..1h", name, d))
		}
	}
	if l.RedisTimeout < 10*time.Millisecond || l.RedisTimeout > time.Minute {
		errs = append(errs, fmt.Errorf("SHARIAH_REDIS_TIMEOUT: %s is out of 10ms..1m", l.RedisTimeout))
	}
	return errs
}

// KeylessLimits bound the MCP HTTP callers that send no key, counted by client address (IPv6 by /64):
// Rate requests per second with bursts of Burst (every HTTP request: tool calls, protocol messages and
// stream opens), at most StreamsPerAddress open streams (GET /sse, GET /mcp) per address and Streams
// in all. Callers with a key have their plan's limits instead.
type KeylessLimits struct {
	Rate              float64 `env:"SHARIAH_MCP_KEYLESS_RATE" envDefault:"10"`
	Burst             int     `env:"SHARIAH_MCP_KEYLESS_BURST" envDefault:"50"`
	StreamsPerAddress int     `env:"SHARIAH_MCP_KEYLESS_STREAMS_PER_ADDRESS" envDefault:"10"`
	Streams           int     `env:"SHARIAH_MCP_KEYLESS_STREAMS" envDefault:"200"`
}

// DefaultKeylessLimits are the keyless limits of an empty environment (the envDefault tags above).
func DefaultKeylessLimits() KeylessLimits {
	var l KeylessLimits
	if err := env.ParseWithOptions(&l, env.Options{Environment: map[string]string{}}); err != nil {
		panic(err)
	}
	return l
}

// OrDefault returns the limits, or the defaults when they are unset (the zero value).
func (l KeylessLimits) OrDefault() KeylessLimits {
	if l == (KeylessLimits{}) {
		return DefaultKeylessLimits()
	}
	return l
}

func (l KeylessLimits) validate() []error {
	var errs []error
	if l.Rate <= 0 || l.Rate > 1e6 {
		errs = append(errs, fmt.Errorf("SHARIAH_MCP_KEYLESS_RATE: %g is out of (0, 1000000] requests per second", l.Rate))
	}
	for name, n := range map[string]int{"SHARIAH_MCP_KEYLESS_BURST": l.Burst, "SHARIAH_MCP_KEYLESS_STREAMS_PER_ADDRESS": l.StreamsPerAddress,
		"SHARIAH_MCP_KEYLESS_STREAMS": l.Streams} {
		if n < 1 || n > 1_000_000 {
			errs = append(errs, fmt.Errorf("%s: %d is out of 1..1000000", name, n))
		}
	}
	return errs
}

// Origins are the browser origins allowed on the MCP port (SHARIAH_MCP_ALLOWED_ORIGINS).
type Origins []Origin

// Origin is one allowed origin: a scheme and a host (lower case), and a port ("" the scheme's default,
// "*" any).
type Origin struct{ Scheme, Host, Port string }

// DefaultMCPOrigins are the origins of an empty environment: localhost, 127.0.0.1 and [::1] on any port.
func DefaultMCPOrigins() Origins {
	var c Config
	if err := env.ParseWithOptions(&c, env.Options{Environment: map[string]string{}}); err != nil {
		panic(err)
	}
	o, err := c.MCPOrigins()
	if err != nil {
		panic(err)
	}
	return o
}

// ParseOrigins parses a comma-separated list of origins, scheme://host[:port] (port "*": any port);
// "none" is the empty list (no browser may call; an empty variable is the default).
func ParseOrigins(s string) (Origins, error) {
	out := Origins{} // not nil: nil is "the default" to mcp.Auth
	if strings.TrimSpace(s) == "none" {
		return out, nil
	}
	var errs []error
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		o, ok := parseOrigin(part, true)
		if !ok {
			errs = append(errs, fmt.Errorf("SHARIAH_MCP_ALLOWED_ORIGINS: %q is not an origin (scheme://host[:port], port * for any)", part))
			continue
		}
		out = append(out, o)
	}
	return out, errors.Join(errs...)
}

// parseOrigin reads scheme://host[:port] (no path, no user info); wildcard allows port "*".
func parseOrigin(s string, wildcard bool) (Origin, bool) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || (scheme != "http" && scheme != "https") || rest == "" || strings.ContainsAny(rest, "/?#@ ") {
		return Origin{}, false
	}
	host, port := rest, ""
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.HasSuffix(rest, "]") {
		host, port = rest[:i], rest[i+1:]
		if port == "" {
			return Origin{}, false
		}
		if port != "*" || !wildcard {
			if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || port[0] == '0' {
				return Origin{}, false
			}
		}
	}
	if host == "" || host == "[]" {
		return Origin{}, false
	}
	return Origin{Scheme: strings.ToLower(scheme), Host: strings.ToLower(host), Port: port}, true
}

// Allows reports whether a request's Origin header value is one of the origins. An origin with the
// scheme's default port written out (http://h:80) is the same as without it.
func (list Origins) Allows(origin string) bool {
	o, ok := parseOrigin(strings.ToLower(origin), false)
	if !ok {
		return false
	}
	defaultPort := map[string]string{"http": "80", "https": "443"}[o.Scheme]
	if o.Port == defaultPort {
		o.Port = ""
	}
	for _, a := range list {
		if a.Scheme == o.Scheme && a.Host == o.Host && (a.Port == "*" || a.Port == o.Port || (a.Port == defaultPort && o.Port == "")) {
			return true
		}
	}
	return false
}

// MCPOrigins parses SHARIAH_MCP_ALLOWED_ORIGINS.
func (c Config) MCPOrigins() (Origins, error) { return ParseOrigins(c.MCPAllowedOrigins) }

// MCP keyless modes (SHARIAH_MCP_KEYLESS).
const (
	KeylessReadOnly = "readonly"
	KeylessFull     = "full"
)

// TrustedProxyList parses SHARIAH_TRUSTED_PROXIES into CIDR prefixes (a single IP is a /32 or /128).
func (c Config) TrustedProxyList() ([]netip.Prefix, error) {
	return ParseProxies(c.TrustedProxies)
}

// ParseProxies parses a comma-separated list of CIDR prefixes or IP addresses.
func ParseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	var errs []error
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		if p, err := netip.ParsePrefix(part); err == nil {
			out = append(out, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(part); err == nil {
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		errs = append(errs, fmt.Errorf("SHARIAH_TRUSTED_PROXIES: %q is not a CIDR prefix or an IP address", part))
	}
	return out, errors.Join(errs...)
}

// Ingest configures the ingesters (shariah ingest).
type Ingest struct {
	AtStart bool `env:"SHARIAH_INGEST_AT_START" envDefault:"true"` // run every source once when starting
	// SEC EDGAR. SEC requires a User-Agent naming a contact; without one the source does not start
	// (a file:// mirror needs none).
	SECUserAgent string `env:"SHARIAH_SEC_USER_AGENT"`
	SECDataURL   string `env:"SHARIAH_SEC_DATA_URL" envDefault:"https://data.sec.gov"` // or file:///path/to/mirror
	SECWWWURL    string `env:"SHARIAH_SEC_WWW_URL" envDefault:"https://www.sec.gov"`
	// SECSymbols picks the companies to ingest (SECCoverage): "indices" (or empty), every constituent
	// of the loaded indices that SEC's ticker map knows (the US-listed ones); "*", every company of a
	// file:// mirror; or a comma-separated list of symbols.
	SECSymbols  string  `env:"SHARIAH_SEC_SYMBOLS" envDefault:"indices"`
	SECSchedule string  `env:"SHARIAH_SEC_SCHEDULE" envDefault:"@every 6h"`
	SECRate     float64 `env:"SHARIAH_SEC_RPS" envDefault:"8"` // requests per second, below SEC's 10, for the whole process
	// SECRefreshAfter re-ingests a company in full after this long even when its submissions did not
	// change (a new companyfacts mapping reaches everyone); 0 never.
	SECRefreshAfter time.Duration `env:"SHARIAH_SEC_REFRESH_AFTER" envDefault:"168h"`
	// SECBulkZip is SEC's nightly companyfacts.zip (an https URL, a file:// URL or a path) ingested on
	// SECBulkSchedule: every filer with a ticker. Empty: off.
	SECBulkZip      string `env:"SHARIAH_SEC_BULK_ZIP"`
	SECBulkSchedule string `env:"SHARIAH_SEC_BULK_SCHEDULE" envDefault:"0 11 * * *"`
	// Prices: a daily CSV per symbol; {symbol} is the Stooq symbol, {canonical} the service's.
	PricesURL      string `env:"SHARIAH_PRICES_URL" envDefault:"https://stooq.com/q/d/l/?s={symbol}&i=d"`
	PriceSymbols   string `env:"SHARIAH_PRICE_SYMBOLS" envDefault:"AAPL,MSFT,NVDA,GOOGL,AMZN,TSLA,SNOW,JNJ,XOM,KO,PG,JPM,MO,BRK-B"`
	PricesSchedule string `env:"SHARIAH_PRICES_SCHEDULE" envDefault:"30 22 * * 1-5"`
	// Quote refresh: the prices of the most requested symbols (last 7 days), more often than daily.
	QuotesSchedule string `env:"SHARIAH_QUOTES_SCHEDULE" envDefault:"*/15 13-21 * * 1-5"`
	QuotesTop      int    `env:"SHARIAH_QUOTES_TOP" envDefault:"50"`
	// Sukuk: N-PORT filings (comma-separated URLs, https or file) joined with a curated programme CSV.
	NPORTFilings  string `env:"SHARIAH_NPORT_FILINGS"`
	SukukCurated  string `env:"SHARIAH_SUKUK_CURATED"`
	SukukSchedule string `env:"SHARIAH_SUKUK_SCHEDULE" envDefault:"0 6 * * *"`
	// News: "name|url;name|url" RSS or Atom feeds.
	NewsFeeds    string `env:"SHARIAH_NEWS_FEEDS" envDefault:"sec-press-releases|https://www.sec.gov/news/pressreleases.rss"`
	NewsSchedule string `env:"SHARIAH_NEWS_SCHEDULE" envDefault:"@every 15m"`
}

// SECCoverage reads SHARIAH_SEC_SYMBOLS: an explicit list of symbols, or none with indices true
// (every US-listed constituent of the loaded indices) or false (every company of a file:// mirror).
func (i Ingest) SECCoverage() (symbols []string, indices bool) {
	switch v := strings.TrimSpace(i.SECSymbols); strings.ToLower(v) {
	case "", "indices":
		return nil, true
	case "*":
		return nil, false
	default:
		return SymbolList(v), false
	}
}

// SymbolList splits a comma-separated list of symbols.
func SymbolList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.ToUpper(strings.TrimSpace(p)); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Feed is one configured news feed.
type Feed struct{ Name, URL string }

// Feeds parses SHARIAH_NEWS_FEEDS.
func (i Ingest) Feeds() ([]Feed, error) {
	var out []Feed
	for _, part := range strings.Split(i.NewsFeeds, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, u, ok := strings.Cut(part, "|")
		pu, err := url.Parse(strings.TrimSpace(u))
		if !ok || strings.TrimSpace(name) == "" || err != nil || (pu.Scheme != "http" && pu.Scheme != "https" && pu.Scheme != "file") {
			return nil, fmt.Errorf("SHARIAH_NEWS_FEEDS: %q is not name|http(s) URL", part)
		}
		out = append(out, Feed{Name: strings.TrimSpace(name), URL: strings.TrimSpace(u)})
	}
	return out, nil
}

// PlanSettings override the default plans (account.DefaultPlans).
type PlanSettings struct {
	FreeTokens           int64  `env:"SHARIAH_PLAN_FREE_TOKENS" envDefault:"50"`
	StarterTokens        int64  `env:"SHARIAH_PLAN_STARTER_TOKENS" envDefault:"2500"`
	StarterPriceUSD      string `env:"SHARIAH_PLAN_STARTER_PRICE_USD" envDefault:"19"`
	StarterOverageUSD    string `env:"SHARIAH_PLAN_STARTER_OVERAGE_USD" envDefault:"0.01"`
	ProTokens            int64  `env:"SHARIAH_PLAN_PRO_TOKENS" envDefault:"15000"`
	ProPriceUSD          string `env:"SHARIAH_PLAN_PRO_PRICE_USD" envDefault:"49"`
	ProOverageUSD        string `env:"SHARIAH_PLAN_PRO_OVERAGE_USD" envDefault:"0.008"`
	EnterpriseTokens     int64  `env:"SHARIAH_PLAN_ENTERPRISE_TOKENS" envDefault:"-1"`
	EnterprisePriceUSD   string `env:"SHARIAH_PLAN_ENTERPRISE_PRICE_USD" envDefault:"199"`
	EnterpriseOverageUSD string `env:"SHARIAH_PLAN_ENTERPRISE_OVERAGE_USD" envDefault:"0"`
	// RateLimits overrides plans' request rate limits: "plan=RPS/BURST,..." (0 for none), e.g.
	// "free=5/20,enterprise=0", or "off" for none at all. Plans not named keep their defaults
	// (account.DefaultPlans).
	RateLimits string `env:"SHARIAH_RATE_LIMITS"`
	// KeyPrefix begins every API key issued (1 to 3 lower-case letters and '_'; the clients check
	// ^ht_[A-Za-z0-9]+). Keys issued under an earlier prefix (shr_) keep working whatever it is.
	KeyPrefix string `env:"SHARIAH_KEY_PREFIX" envDefault:"ht_"`
	// Key generation (POST /api/keys/generate) per client address and per email domain, per hour.
	KeygenPerAddressHour int `env:"SHARIAH_KEYGEN_PER_ADDRESS_HOUR" envDefault:"10"`
	KeygenPerDomainHour  int `env:"SHARIAH_KEYGEN_PER_DOMAIN_HOUR" envDefault:"100"`
}

// Load reads the environment and validates the result.
func Load() (Config, error) {
	var c Config
	if err := env.Parse(&c); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// Defaults is the configuration of an empty environment: every setting at its default. Tests compose
// their services from it (app.Compose), changing what they test.
func Defaults() Config {
	var c Config
	if err := env.ParseWithOptions(&c, env.Options{Environment: map[string]string{}}); err != nil {
		panic("config defaults: " + err.Error()) // the struct tags are constants: a bad one is a bug
	}
	return c
}

// Plans returns the plan set with the configured allowances and prices.
func (c Config) Plans() (account.Plans, error) {
	var errs []error
	dec := func(name, s string) decimal.Decimal {
		d, err := decimal.NewFromString(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not a decimal", name, s))
		}
		return d
	}
	ps := account.DefaultPlans()
	for i := range ps {
		p := &ps[i]
		switch p.ID {
		case account.PlanFree:
			p.TokensPerMonth = c.Plan.FreeTokens
		case account.PlanStarter:
			p.TokensPerMonth = c.Plan.StarterTokens
			p.PriceUSDMonth = dec("SHARIAH_PLAN_STARTER_PRICE_USD", c.Plan.StarterPriceUSD)
			p.OverageUSDPerToken = dec("SHARIAH_PLAN_STARTER_OVERAGE_USD", c.Plan.StarterOverageUSD)
		case account.PlanPro:
			p.TokensPerMonth = c.Plan.ProTokens
			p.PriceUSDMonth = dec("SHARIAH_PLAN_PRO_PRICE_USD", c.Plan.ProPriceUSD)
			p.OverageUSDPerToken = dec("SHARIAH_PLAN_PRO_OVERAGE_USD", c.Plan.ProOverageUSD)
		case account.PlanEnterprise:
			p.TokensPerMonth = c.Plan.EnterpriseTokens
			p.PriceUSDMonth = dec("SHARIAH_PLAN_ENTERPRISE_PRICE_USD", c.Plan.EnterprisePriceUSD)
			p.OverageUSDPerToken = dec("SHARIAH_PLAN_ENTERPRISE_OVERAGE_USD", c.Plan.EnterpriseOverageUSD)
		}
	}
	if err := applyRateLimits(ps, c.Plan.RateLimits); err != nil {
		errs = append(errs, err)
	}
	if err := ps.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return ps, nil
}

// applyRateLimits reads SHARIAH_RATE_LIMITS ("plan=RPS/BURST,...", 0 for none) into the plans.
func applyRateLimits(ps account.Plans, spec string) error {
	if strings.TrimSpace(spec) == "off" {
		copy(ps, ps.WithoutRateLimits())
		return nil
	}
	var errs []error
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, val, ok := strings.Cut(part, "=")
		i := -1
		for j := range ps {
			if ps[j].ID == strings.TrimSpace(id) {
				i = j
			}
		}
		if !ok || i < 0 {
			errs = append(errs, fmt.Errorf("SHARIAH_RATE_LIMITS: %q is not plan=RPS/BURST with a known plan", part))
			continue
		}
		if strings.TrimSpace(val) == "0" {
			ps[i].RateLimit = account.RateLimit{}
			continue
		}
		rps, burst, ok := strings.Cut(val, "/")
		r, err1 := strconv.ParseFloat(strings.TrimSpace(rps), 64)
		b, err2 := strconv.Atoi(strings.TrimSpace(burst))
		if !ok || err1 != nil || err2 != nil || r <= 0 || b < 1 || r > 1e6 {
			errs = append(errs, fmt.Errorf("SHARIAH_RATE_LIMITS: %q: want RPS/BURST (RPS > 0, BURST >= 1) or 0", part))
			continue
		}
		ps[i].RateLimit = account.RateLimit{RequestsPerSecond: r, Burst: b}
	}
	return errors.Join(errs...)
}

// Validate reports every problem at once.
func (c Config) Validate() error {
	errs := c.validateServing()
	errs = append(errs, c.validateWork()...)
	errs = append(errs, c.Ingest.validate()...)
	if err := validSchedules(c.RescreenSchedules); err != nil {
		errs = append(errs, fmt.Errorf("SHARIAH_RESCREEN_SCHEDULES: %w", err))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, fmt.Errorf("SHARIAH_SHUTDOWN_TIMEOUT: must be positive"))
	}
	if u, err := url.Parse(c.StripeAPIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("SHARIAH_STRIPE_API_URL: %q is not an http(s) URL", c.StripeAPIURL))
	}
	if c.AgentLLMURL != "" {
		if u, err := url.Parse(c.AgentLLMURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("SHARIAH_AGENT_LLM_URL: %q is not an http(s) URL", c.AgentLLMURL))
		}
	}
	if _, err := c.Plans(); err != nil {
		errs = append(errs, err)
	}
	if !account.ValidKeyPrefix(c.Plan.KeyPrefix) {
		errs = append(errs, fmt.Errorf("SHARIAH_KEY_PREFIX: %q is not 1 to 3 lower-case letters followed by '_'", c.Plan.KeyPrefix))
	}
	return errors.Join(errs...)
}

// validateServing checks the addresses, the stores, logging and the HTTP limits.
func (c Config) validateServing() []error {
	var errs []error
	for name, addr := range map[string]string{"SHARIAH_HTTP_ADDR": c.HTTPAddr, "SHARIAH_MCP_ADDR": c.MCPAddr} {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not host:port (%v)", name, addr, err))
		}
	}
	if u, err := url.Parse(c.RedisURL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss" && u.Scheme != "unix") || (u.Host == "" && u.Scheme != "unix") {
		errs = append(errs, fmt.Errorf("SHARIAH_REDIS_URL: %q is not a redis://host:port URL", c.RedisURL))
	}
	if _, err := ClickHouseDatabase(c.ClickHouseURL); err != nil {
		errs = append(errs, fmt.Errorf("SHARIAH_CLICKHOUSE_URL: %w", err))
	}
	if c.ClickHouseCluster != "" {
		if err := analytics.ValidClusterName(c.ClickHouseCluster); err != nil {
			errs = append(errs, fmt.Errorf("SHARIAH_CLICKHOUSE_CLUSTER: %w", err))
		}
	}
	if c.DataDir != "" {
		if st, err := os.Stat(c.DataDir); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Errorf("SHARIAH_DATA_DIR: %q is not a readable directory", c.DataDir))
		}
	}
	if _, err := ParseLevel(c.LogLevel); err != nil {
		errs = append(errs, err)
	}
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("SHARIAH_BASE_URL: %q is not an http(s) URL", c.BaseURL))
	}
	errs = append(errs, c.HTTP.validate()...)
	if c.MCPKeyless != KeylessReadOnly && c.MCPKeyless != KeylessFull {
		errs = append(errs, fmt.Errorf("SHARIAH_MCP_KEYLESS: %q is not readonly or full", c.MCPKeyless))
	}
	errs = append(errs, c.MCPKeylessLimits.validate()...)
	if _, err := c.MCPOrigins(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.TrustedProxyList(); err != nil {
		errs = append(errs, err)
	}
	if c.PprofAddr != "" {
		if _, _, err := net.SplitHostPort(c.PprofAddr); err != nil {
			errs = append(errs, fmt.Errorf("SHARIAH_PPROF_ADDR: %q is not host:port (%v)", c.PprofAddr, err))
		}
	}
	if c.MeterLeaseInterval < 10*time.Millisecond || c.MeterLeaseInterval > 10*time.Second {
		errs = append(errs, fmt.Errorf("SHARIAH_METER_LEASE_INTERVAL: %s is not between 10ms and 10s", c.MeterLeaseInterval))
	}
	if c.MeterLeaseTTL < 4*c.MeterLeaseInterval {
		errs = append(errs, fmt.Errorf("SHARIAH_METER_LEASE_TTL: %s is under four lease intervals (%s)", c.MeterLeaseTTL, 4*c.MeterLeaseInterval))
	}
	return errs
}

// validateWork checks the usage writer, the workers and the ETF wait.
func (c Config) validateWork() []error {
	var errs []error
	if c.Usage.BatchSize < 1 || c.Usage.BatchSize > 1_000_000 {
		errs = append(errs, fmt.Errorf("SHARIAH_USAGE_BATCH_SIZE: %d is out of 1..1000000", c.Usage.BatchSize))
	}
	if c.Usage.SpoolMaxBytes < 1<<20 {
		errs = append(errs, fmt.Errorf("SHARIAH_USAGE_SPOOL_MAX_BYTES: %d is below 1 MiB", c.Usage.SpoolMaxBytes))
	}
	if strings.TrimSpace(c.Usage.SpoolDir) == "" {
		errs = append(errs, errors.New("SHARIAH_USAGE_SPOOL_DIR: empty"))
	}
	if c.Usage.FlushInterval < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("SHARIAH_USAGE_FLUSH_INTERVAL: %s is below 10ms", c.Usage.FlushInterval))
	}
	if c.WorkerConcurrency < 1 || c.WorkerConcurrency > 256 {
		errs = append(errs, fmt.Errorf("SHARIAH_WORKER_CONCURRENCY: %d is out of 1..256", c.WorkerConcurrency))
	}
	if c.BulkConcurrency < 1 || c.BulkConcurrency > 64 {
		errs = append(errs, fmt.Errorf("SHARIAH_BULK_CONCURRENCY: %d is out of 1..64", c.BulkConcurrency))
	}
	if c.ChangeRetention < time.Hour || c.ChangeRetention > 10*365*24*time.Hour {
		errs = append(errs, fmt.Errorf("SHARIAH_CHANGE_RETENTION: %s is out of 1h..87600h", c.ChangeRetention))
	}
	if c.ETFWait < 0 || c.ETFWait > 5*time.Minute {
		errs = append(errs, fmt.Errorf("SHARIAH_ETF_WAIT: %s is out of 0..5m", c.ETFWait))
	}
	if _, err := webhooks.ParseAllow(c.WebhookAllow); err != nil {
		errs = append(errs, fmt.Errorf("SHARIAH_WEBHOOK_ALLOW: %w", err))
	}
	if c.WebhookTimeout < time.Second || c.WebhookTimeout > time.Minute {
		errs = append(errs, fmt.Errorf("SHARIAH_WEBHOOK_TIMEOUT: %s is out of 1s..1m", c.WebhookTimeout))
	}
	return errs
}

// WebhookTargets is the safe-target policy of webhook deliveries (SHARIAH_WEBHOOK_ALLOW; validated by Load).
func (c Config) WebhookTargets() *webhooks.Targets {
	t, _ := webhooks.ParseAllow(c.WebhookAllow)
	return t
}

// validate checks the ingesters' sources and schedules.
func (i Ingest) validate() []error {
	var errs []error
	if _, err := i.Feeds(); err != nil {
		errs = append(errs, err)
	}
	for name, u := range map[string]string{"SHARIAH_SEC_DATA_URL": i.SECDataURL, "SHARIAH_SEC_WWW_URL": i.SECWWWURL} {
		if pu, err := url.Parse(u); err != nil || (pu.Scheme != "https" && pu.Scheme != "http" && pu.Scheme != "file") {
			errs = append(errs, fmt.Errorf("%s: %q is not an http(s) or file URL", name, u))
		}
	}
	if strings.TrimSpace(i.SECSymbols) == "*" && !strings.HasPrefix(i.SECDataURL, "file://") {
		errs = append(errs, fmt.Errorf("SHARIAH_SEC_SYMBOLS: * (every company of a mirror) needs a file:// SHARIAH_SEC_DATA_URL; use indices or a list"))
	}
	if i.SECRefreshAfter < 0 {
		errs = append(errs, fmt.Errorf("SHARIAH_SEC_REFRESH_AFTER: %s is negative", i.SECRefreshAfter))
	}
	if z := i.SECBulkZip; z != "" {
		if u, err := url.Parse(z); err != nil || (u.Scheme != "" && u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "file") {
			errs = append(errs, fmt.Errorf("SHARIAH_SEC_BULK_ZIP: %q is not an http(s) or file URL or a path", z))
		}
	}
	if i.SECRate <= 0 || i.SECRate >= 10 {
		errs = append(errs, fmt.Errorf("SHARIAH_SEC_RPS: %v must be above 0 and below SEC's limit of 10", i.SECRate))
	}
	if !strings.Contains(i.PricesURL, "{symbol}") && !strings.Contains(i.PricesURL, "{canonical}") {
		errs = append(errs, fmt.Errorf("SHARIAH_PRICES_URL: %q has no {symbol} or {canonical} placeholder", i.PricesURL))
	}
	for name, spec := range map[string]string{"SHARIAH_SEC_SCHEDULE": i.SECSchedule, "SHARIAH_PRICES_SCHEDULE": i.PricesSchedule,
		"SHARIAH_QUOTES_SCHEDULE": i.QuotesSchedule, "SHARIAH_SUKUK_SCHEDULE": i.SukukSchedule, "SHARIAH_NEWS_SCHEDULE": i.NewsSchedule,
		"SHARIAH_SEC_BULK_SCHEDULE": i.SECBulkSchedule} {
		if _, err := cronParser.Parse(spec); err != nil {
			errs = append(errs, fmt.Errorf("%s: %q: %w", name, spec, err))
		}
	}
	if i.QuotesTop < 1 || i.QuotesTop > 1000 {
		errs = append(errs, fmt.Errorf("SHARIAH_QUOTES_TOP: %d is out of 1..1000", i.QuotesTop))
	}
	return errs
}

// ClickHouseDatabase checks a clickhouse:// URL and returns its database name (default "shariah").
func ClickHouseDatabase(raw string) (string, error) { return analytics.DatabaseName(raw) }

// ParseLevel maps SHARIAH_LOG_LEVEL to a slog level.
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("SHARIAH_LOG_LEVEL: %q is not debug, info, warn or error", s)
	}
	return l, nil
}

// validSchedules checks "INDEX=cron spec;..." (five fields, or a descriptor such as @daily).
// cronParser reads schedules as the ingest scheduler does (UTC; optional seconds; @every, @daily).
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

func validSchedules(s string) error {
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		index, spec, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(index) == "" {
			return fmt.Errorf("%q is not INDEX=cron spec", part)
		}
		spec = strings.TrimSpace(spec)
		if n := len(strings.Fields(spec)); !strings.HasPrefix(spec, "@") && n != 5 && n != 6 {
			return fmt.Errorf("%q: a cron spec has 5 (or 6) fields", spec)
		}
	}
	return nil
}
