package config

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestLoadDefaults(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":8000" || c.MCPAddr != ":8001" {
		t.Fatalf("defaults: %q %q", c.HTTPAddr, c.MCPAddr)
	}
	ps, err := c.Plans()
	if err != nil {
		t.Fatal(err)
	}
	free, _ := ps.Lookup("free")
	if free.TokensPerMonth != 50 || !free.HardBlock {
		t.Fatalf("free plan %+v", free)
	}
	if c.Plan.KeyPrefix != "ht_" {
		t.Fatalf("key prefix %q, want ht_", c.Plan.KeyPrefix)
	}
}

func TestLoadReportsEveryProblemAtOnce(t *testing.T) {
	t.Setenv("SHARIAH_HTTP_ADDR", "nonsense")
	t.Setenv("SHARIAH_REDIS_URL", "http://x")
	t.Setenv("SHARIAH_CLICKHOUSE_URL", "clickhouse://h:9000/bad-name")
	t.Setenv("SHARIAH_DATA_DIR", "/does/not/exist")
	t.Setenv("SHARIAH_PLAN_PRO_PRICE_USD", "forty")
	t.Setenv("SHARIAH_PLAN_FREE_TOKENS", "-5")
	t.Setenv("SHARIAH_LOG_LEVEL", "loud")
	t.Setenv("SHARIAH_NEWS_SCHEDULE", "every so often")
	t.Setenv("SHARIAH_QUOTES_TOP", "0")
	t.Setenv("SHARIAH_SEC_RPS", "12")
	t.Setenv("SHARIAH_PRICES_URL", "https://prices.example.com/daily.csv")
	t.Setenv("SHARIAH_KEY_PREFIX", "Halal-")
	_, err := Load()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"SHARIAH_HTTP_ADDR", "SHARIAH_REDIS_URL", "SHARIAH_CLICKHOUSE_URL", "SHARIAH_DATA_DIR",
		"SHARIAH_PLAN_PRO_PRICE_USD", `plan "free"`, "SHARIAH_LOG_LEVEL", "SHARIAH_NEWS_SCHEDULE", "SHARIAH_QUOTES_TOP",
		"SHARIAH_SEC_RPS", "SHARIAH_PRICES_URL", "SHARIAH_KEY_PREFIX"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s:\n%v", want, err)
		}
	}
}

func TestSECSettings(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if syms, indices := c.Ingest.SECCoverage(); syms != nil || !indices || c.Ingest.SECRefreshAfter <= 0 || c.Ingest.SECBulkZip != "" {
		t.Fatalf("default SEC coverage: %v %v, refresh after %s, bulk %q", syms, indices, c.Ingest.SECRefreshAfter, c.Ingest.SECBulkZip)
	}
	for in, want := range map[string]string{"": "indices", "Indices": "indices", "*": "mirror", "aapl, brk-b,": "AAPL,BRK-B"} {
		syms, indices := Ingest{SECSymbols: in}.SECCoverage()
		got := strings.Join(syms, ",")
		if indices {
			got = "indices"
		} else if syms == nil {
			got = "mirror"
		}
		if got != want {
			t.Errorf("SHARIAH_SEC_SYMBOLS=%q: %s, want %s", in, got, want)
		}
	}
	t.Setenv("SHARIAH_SEC_SYMBOLS", "*") // a mirror's companies, but the data URL is EDGAR's
	t.Setenv("SHARIAH_SEC_BULK_ZIP", "ftp://example.com/companyfacts.zip")
	t.Setenv("SHARIAH_SEC_BULK_SCHEDULE", "nightly")
	t.Setenv("SHARIAH_SEC_REFRESH_AFTER", "-1h")
	_, err = Load()
	for _, want := range []string{"SHARIAH_SEC_SYMBOLS", "SHARIAH_SEC_BULK_ZIP", "SHARIAH_SEC_BULK_SCHEDULE", "SHARIAH_SEC_REFRESH_AFTER"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s: %v", want, err)
		}
	}
	t.Setenv("SHARIAH_SEC_SYMBOLS", "*")
	t.Setenv("SHARIAH_SEC_DATA_URL", "file:///tmp/mirror")
	t.Setenv("SHARIAH_SEC_BULK_ZIP", "/data/companyfacts.zip")
	t.Setenv("SHARIAH_SEC_BULK_SCHEDULE", "0 11 * * *")
	t.Setenv("SHARIAH_SEC_REFRESH_AFTER", "0s")
	if _, err := Load(); err != nil {
		t.Fatal(err)
	}
}

func TestRateLimitSettings(t *testing.T) {
	t.Setenv("SHARIAH_RATE_LIMITS", "free=2/4, enterprise=0")
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	ps, err := c.Plans()
	if err != nil {
		t.Fatal(err)
	}
	free, _ := ps.Lookup("free")
	ent, _ := ps.Lookup("enterprise")
	pro, _ := ps.Lookup("pro")
	if free.RateLimit.RequestsPerSecond != 2 || free.RateLimit.Burst != 4 || ent.RateLimit.Limited() || !pro.RateLimit.Limited() {
		t.Fatalf("free %+v enterprise %+v pro %+v", free.RateLimit, ent.RateLimit, pro.RateLimit)
	}
	t.Setenv("SHARIAH_RATE_LIMITS", "off")
	c, _ = Load()
	if ps, _ = c.Plans(); ps[0].RateLimit.Limited() || ps[2].RateLimit.Limited() {
		t.Fatalf("off left limits: %+v", ps)
	}
	for _, bad := range []string{"free=fast", "gold=1/2", "free=1/0", "free=-1/3"} {
		t.Setenv("SHARIAH_RATE_LIMITS", bad)
		c, _ = Load()
		if _, err := c.Plans(); err == nil || !strings.Contains(err.Error(), "SHARIAH_RATE_LIMITS") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestHTTPLimitsKeylessAndProxies: one definition of the HTTP limits (the API's and the MCP port's), the
// MCP keyless mode and the trusted proxies are read and checked.
func TestHTTPLimitsKeylessAndProxies(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP != DefaultHTTPLimits() || c.HTTP.BodyLimit != 1<<20 || c.HTTP.ReadTimeout != 30*time.Second || c.HTTP.WriteTimeout != time.Minute ||
		c.HTTP.IdleTimeout != 2*time.Minute || (HTTPLimits{}).OrDefault() != c.HTTP {
		t.Fatalf("default limits %+v", c.HTTP)
	}
	if c.MCPKeyless != KeylessReadOnly || c.TrustedProxies != "" {
		t.Fatalf("defaults: keyless %q, proxies %q", c.MCPKeyless, c.TrustedProxies)
	}
	t.Setenv("SHARIAH_HTTP_READ_TIMEOUT", "2s")
	t.Setenv("SHARIAH_MCP_KEYLESS", "full")
	t.Setenv("SHARIAH_TRUSTED_PROXIES", "10.0.0.0/8, 192.168.1.7 ,fd00::/8")
	c, err = Load()
	if err != nil || c.HTTP.ReadTimeout != 2*time.Second || c.MCPKeyless != KeylessFull {
		t.Fatalf("%v %+v %q", err, c.HTTP, c.MCPKeyless)
	}
	ps, err := c.TrustedProxyList()
	if err != nil || len(ps) != 3 || ps[1].String() != "192.168.1.7/32" || !ps[0].Contains(netip.MustParseAddr("10.1.2.3")) {
		t.Fatalf("proxies %v %v", ps, err)
	}

	t.Setenv("SHARIAH_HTTP_BODY_LIMIT", "10")
	t.Setenv("SHARIAH_HTTP_WRITE_TIMEOUT", "0s")
	t.Setenv("SHARIAH_HTTP_IDLE_TIMEOUT", "3h")
	t.Setenv("SHARIAH_MCP_KEYLESS", "anything")
	t.Setenv("SHARIAH_TRUSTED_PROXIES", "10.0.0.0/8,proxy.example.com")
	_, err = Load()
	for _, want := range []string{"SHARIAH_HTTP_BODY_LIMIT", "SHARIAH_HTTP_WRITE_TIMEOUT", "SHARIAH_HTTP_IDLE_TIMEOUT", "SHARIAH_MCP_KEYLESS",
		`SHARIAH_TRUSTED_PROXIES: "proxy.example.com"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s: %v", want, err)
		}
	}
}

func TestClickHouseCluster(t *testing.T) {
	c, err := Load()
	if err != nil || c.ClickHouseCluster != "" {
		t.Fatalf("default cluster %q, %v: want none (a single server)", c.ClickHouseCluster, err)
	}
	t.Setenv("SHARIAH_CLICKHOUSE_CLUSTER", "prod-replicas_1")
	t.Setenv("SHARIAH_CLICKHOUSE_URL", "clickhouse://ch1:9000,ch2:9000/shariah")
	if c, err = Load(); err != nil || c.ClickHouseCluster != "prod-replicas_1" {
		t.Fatalf("cluster %q, %v", c.ClickHouseCluster, err)
	}
	for _, bad := range []string{"two words", "x`; DROP TABLE y", "1st", "a.b"} {
		t.Setenv("SHARIAH_CLICKHOUSE_CLUSTER", bad)
		if _, err := Load(); err == nil || !strings.Contains(err.Error(), "SHARIAH_CLICKHOUSE_CLUSTER") {
			t.Errorf("cluster %q: %v", bad, err)
		}
	}
	t.Setenv("SHARIAH_CLICKHOUSE_CLUSTER", "")
	t.Setenv("SHARIAH_CLICKHOUSE_URL", "clickhouse://ch1:9000,/shariah")
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), "SHARIAH_CLICKHOUSE_URL") {
		t.Errorf("an empty host in the list: %v", err)
	}
}

// TestMCPPortSettings: the keyless limits and the allowed origins of the MCP port are read and
// checked; the default origins are localhost on any port; "none" allows no browser origin.
func TestMCPPortSettings(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.MCPKeylessLimits != (KeylessLimits{Rate: 10, Burst: 50, StreamsPerAddress: 10, Streams: 200}) || (KeylessLimits{}).OrDefault() != c.MCPKeylessLimits {
		t.Fatalf("default keyless limits %+v", c.MCPKeylessLimits)
	}
	def, err := c.MCPOrigins()
	if err != nil || len(def) != 6 {
		t.Fatalf("default origins %v %v", def, err)
	}
	for o, want := range map[string]bool{"http://localhost:6274": true, "http://127.0.0.1": true, "https://[::1]:8443": true, "HTTP://LocalHost:3000": true,
		"https://attacker.example": false, "http://localhost.attacker.example": false, "null": false, "http://localhost:3000/path": false, "": false} {
		if def.Allows(o) != want || DefaultMCPOrigins().Allows(o) != want {
			t.Errorf("default origins allow %q: %v, want %v", o, def.Allows(o), want)
		}
	}
	t.Setenv("SHARIAH_MCP_ALLOWED_ORIGINS", "https://app.example.com, http://dev.example.com:8080,https://x.example.com:443")
	t.Setenv("SHARIAH_MCP_KEYLESS_RATE", "2.5")
	t.Setenv("SHARIAH_MCP_KEYLESS_STREAMS", "7")
	c, err = Load()
	if err != nil || c.MCPKeylessLimits.Rate != 2.5 || c.MCPKeylessLimits.Streams != 7 || c.MCPKeylessLimits.Burst != 50 {
		t.Fatalf("%v %+v", err, c.MCPKeylessLimits)
	}
	list, _ := c.MCPOrigins()
	for o, want := range map[string]bool{"https://app.example.com": true, "https://app.example.com:443": true, "http://app.example.com": false,
		"http://dev.example.com:8080": true, "http://dev.example.com": false, "https://x.example.com": true, "http://localhost:3000": false} {
		if list.Allows(o) != want {
			t.Errorf("configured origins allow %q: %v, want %v", o, list.Allows(o), want)
		}
	}
	t.Setenv("SHARIAH_MCP_ALLOWED_ORIGINS", "none")
	if c, err = Load(); err != nil {
		t.Fatal(err)
	}
	if list, err := c.MCPOrigins(); err != nil || list == nil || list.Allows("http://localhost:3000") {
		t.Fatalf("origins none: %v %v", list, err)
	}

	t.Setenv("SHARIAH_MCP_ALLOWED_ORIGINS", "localhost:3000,http://a.example/x,ftp://b.example,http://c.example:0,http://d.example:99999,https://ok.example:*")
	t.Setenv("SHARIAH_MCP_KEYLESS_RATE", "0")
	t.Setenv("SHARIAH_MCP_KEYLESS_BURST", "-1")
	t.Setenv("SHARIAH_MCP_KEYLESS_STREAMS_PER_ADDRESS", "0")
	_, err = Load()
	for _, want := range []string{`"localhost:3000"`, `"http://a.example/x"`, `"ftp://b.example"`, `"http://c.example:0"`, `"http://d.example:99999"`,
		"SHARIAH_MCP_KEYLESS_RATE", "SHARIAH_MCP_KEYLESS_BURST", "SHARIAH_MCP_KEYLESS_STREAMS_PER_ADDRESS"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s: %v", want, err)
		}
	}
	if err != nil && strings.Contains(err.Error(), "ok.example") {
		t.Errorf("a port wildcard was refused: %v", err)
	}
}

func TestWebhookSettings(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.WebhookTimeout != 10*time.Second || len(c.WebhookTargets().Allow)+len(c.WebhookTargets().AllowHosts) != 0 {
		t.Fatalf("defaults: %s %+v", c.WebhookTimeout, c.WebhookTargets())
	}
	t.Setenv("SHARIAH_WEBHOOK_ALLOW", "127.0.0.1, 10.20.0.0/16, hooks.internal")
	if c, err = Load(); err != nil {
		t.Fatal(err)
	}
	tg := c.WebhookTargets()
	if tg.Check(netip.MustParseAddr("10.20.1.1")) != nil || tg.Check(netip.MustParseAddr("127.0.0.1")) != nil ||
		tg.Check(netip.MustParseAddr("10.21.0.1")) == nil || len(tg.AllowHosts) != 1 {
		t.Fatalf("allow list %+v", tg)
	}
	t.Setenv("SHARIAH_WEBHOOK_ALLOW", "10.0.0.0/40")
	t.Setenv("SHARIAH_WEBHOOK_TIMEOUT", "5m")
	_, err = Load()
	if err == nil || !strings.Contains(err.Error(), "SHARIAH_WEBHOOK_ALLOW") || !strings.Contains(err.Error(), "SHARIAH_WEBHOOK_TIMEOUT") {
		t.Fatalf("bad settings: %v", err)
	}
}
