package edge_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/edge"
)

// TestRoutesEqualOpenAPIPaths: the fiber routes, the route table and the OpenAPI operations are the
// same set.
func TestRoutesEqualOpenAPIPaths(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	var inSpec []string
	for path, item := range spec.Paths.Map() {
		for method := range item.Operations() {
			inSpec = append(inSpec, method+" "+path)
		}
	}
	sort.Strings(inSpec)
	table := e.srv.Routes()
	if strings.Join(inSpec, "\n") != strings.Join(table, "\n") {
		t.Fatalf("route table and openapi.json differ:\nonly in table: %v\nonly in spec: %v", minus(table, inSpec), minus(inSpec, table))
	}
	param := regexp.MustCompile(`:([a-z_]+)`)
	var inFiber []string
	seen := map[string]bool{}
	for _, r := range e.srv.App().GetRoutes(true) {
		if r.Method == "HEAD" || r.Path == "/" { // fiber adds HEAD for GET; "/" is the outer middleware
			continue
		}
		k := r.Method + " " + param.ReplaceAllString(r.Path, "{$1}")
		if !seen[k] {
			seen[k] = true
			inFiber = append(inFiber, k)
		}
	}
	sort.Strings(inFiber)
	if strings.Join(inFiber, "\n") != strings.Join(table, "\n") {
		t.Fatalf("fiber routes and table differ:\nonly in fiber: %v\nonly in table: %v", minus(inFiber, table), minus(table, inFiber))
	}
}

func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}

func TestOpenAPIDocumentAndPages(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	r := e.do(t, "GET", "/openapi.json", nil, nil)
	var doc map[string]any
	if err := json.Unmarshal(r.body, &doc); err != nil || doc["openapi"] != "3.1.0" || doc["info"].(map[string]any)["version"] != shariah.APIVersion {
		t.Fatalf("openapi.json: %v %.200s", err, r.body)
	}
	schemes := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)["ApiKeyAuth"].(map[string]any)
	if schemes["in"] != "header" || schemes["name"] != "X-API-Key" {
		t.Fatalf("security scheme %v", schemes)
	}
	for page, asset := range map[string]string{"/docs": "/docs/assets/swagger-ui-bundle.js", "/redoc": "/docs/assets/redoc.standalone.js"} {
		p := e.do(t, "GET", page, nil, nil)
		if p.StatusCode != 200 || !strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") || !contains(string(p.body), asset) {
			t.Fatalf("%s: %d %s", page, p.StatusCode, p.body)
		}
		// Offline: the page's script is served by us, compressed or not.
		gz := e.do(t, "GET", asset, nil, hdr{"Accept-Encoding": "gzip"})
		plain := e.do(t, "GET", asset, nil, nil)
		if gz.StatusCode != 200 || gz.Header.Get("Content-Encoding") != "gzip" || plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" {
			t.Fatalf("%s: gzip %d %q, plain %d", asset, gz.StatusCode, gz.Header.Get("Content-Encoding"), plain.StatusCode)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz.body))
		if err != nil {
			t.Fatal(err)
		}
		unz, _ := io.ReadAll(zr)
		if !bytes.Equal(unz, plain.body) || len(plain.body) < 100_000 {
			t.Fatalf("%s: gzip and plain bodies differ (%d vs %d bytes)", asset, len(unz), len(plain.body))
		}
		// gzip refused (q=0) is the plain body, as for stored screenings (acceptsGzip)
		if r := e.do(t, "GET", asset, nil, hdr{"Accept-Encoding": "gzip;q=0, br"}); r.Header.Get("Content-Encoding") != "" || !bytes.Equal(r.body, plain.body) {
			t.Fatalf("%s with gzip;q=0: Content-Encoding %q", asset, r.Header.Get("Content-Encoding"))
		}
	}
	if r := e.do(t, "GET", "/docs/assets/../../etc/passwd", nil, nil); r.StatusCode != 404 {
		t.Fatalf("asset path traversal: %d", r.StatusCode)
	}
}

func TestMetricsAndHealth(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := e.newKey(t, account.PlanPro)
	e.do(t, "GET", "/api/auth/me", nil, key(k))
	e.do(t, "GET", "/api/nowhere", nil, nil)
	// Health answers within about 50 ms from the checks that have answered: on a busy machine the first
	// ClickHouse check can take longer, and health then says "unknown" (degraded) for it. Wait until
	// every check has answered, then ask.
	var h response
	var hb map[string]any
	waitForOr(t, 30*time.Second, "every dependency checked", func() bool {
		h = e.do(t, "GET", "/api/health", nil, nil)
		hb = h.json(t)
		services, _ := hb["services"].(map[string]any)
		for _, st := range services {
			if st == "unknown" {
				return false
			}
		}
		return true
	}, func() string { return string(h.body) })
	if h.StatusCode != 200 || hb["status"] != "ok" || hb["services"].(map[string]any)["redis"] != "ok" || h.Header.Get("X-Tokens-Charged") != "" {
		t.Fatalf("health: %d %s %v", h.StatusCode, h.body, h.Header)
	}
	m := string(e.do(t, "GET", "/metrics", nil, nil).body)
	for _, want := range []string{
		`shariah_http_requests_total{method="GET",route="/api/auth/me",status="200"} 1`,
		`shariah_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
		`shariah_http_request_duration_seconds_bucket{method="GET",route="/api/auth/me"`,
	} {
		if !contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestRequestIDEchoedOrGenerated(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	if r := e.do(t, "GET", "/api/health", nil, hdr{"X-Request-ID": "abc-123.x"}); r.Header.Get("X-Request-ID") != "abc-123.x" {
		t.Fatalf("valid id not echoed: %q", r.Header.Get("X-Request-ID"))
	}
	for _, bad := range []string{"has space", strings.Repeat("x", 200), "<script>"} {
		r := e.do(t, "GET", "/api/health", nil, hdr{"X-Request-ID": bad})
		if got := r.Header.Get("X-Request-ID"); got == bad || len(got) != 36 {
			t.Fatalf("invalid id %q answered with %q", bad, got)
		}
	}
	a := e.do(t, "GET", "/api/nowhere", nil, nil).Header.Get("X-Request-ID")
	b := e.do(t, "GET", "/api/nowhere", nil, nil).Header.Get("X-Request-ID")
	if a == "" || a == b {
		t.Fatalf("generated ids %q %q", a, b)
	}
}

// TestOpenAPIServerIsRelative: the document's server is relative ("/"), so a client that read
// /openapi.json from any host and port (Swagger UI's Try it out) calls that same host and port.
func TestOpenAPIServerIsRelative(t *testing.T) {
	t.Parallel()
	_, b, err := edge.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Servers) == 0 {
		t.Fatalf("servers: %v %s", err, b[:min(len(b), 200)])
	}
	for _, host := range []string{"http://localhost:8000", "http://10.1.2.3:9123", "https://screen.example.org"} {
		read, _ := url.Parse(host + "/openapi.json")
		for _, s := range doc.Servers {
			u, err := url.Parse(s.URL)
			if err != nil {
				t.Fatalf("server %q: %v", s.URL, err)
			}
			got := read.ResolveReference(u)
			if got.Scheme+"://"+got.Host != host || got.Path != "/" {
				t.Fatalf("server %q read from %s resolves to %s", s.URL, host, got)
			}
		}
	}
}
