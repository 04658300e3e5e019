package edge_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/svgchart"
)

// svgDoc checks a response is a well-formed SVG picture and returns its title.
func svgDoc(t *testing.T, r response) string {
	t.Helper()
	if r.StatusCode != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "image/svg+xml") {
		t.Fatalf("%d %s: %s", r.StatusCode, r.Header.Get("Content-Type"), r.body)
	}
	d := xml.NewDecoder(bytes.NewReader(r.body))
	d.Strict = true
	title, inTitle := "", false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, r.body)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "script" {
				t.Fatalf("script in the picture: %s", r.body)
			}
			inTitle = tok.Name.Local == "title" && title == ""
		case xml.CharData:
			if inTitle {
				title = string(tok)
			}
		case xml.EndElement:
			inTitle = false
		}
	}
	return title
}

// TestBadgeRoute: the badge shows the cached verdict (overall and a methodology's) with no key, answers
// 304 to its ETag, and a symbol never screened, unknown or hostile gets the neutral badge with 200;
// an unknown ruleset is 422.
func TestBadgeRoute(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))

	// Never screened: neutral, and the badge did not screen it.
	r := e.do(t, "GET", "/api/badge/MSFT.svg", nil, nil)
	if title := svgDoc(t, r); title != "MSFT: Not screened (no stored screening)" || !bytes.Contains(r.body, []byte(svgchart.VerdictColors(svgchart.NotScreened).Fill)) {
		t.Fatalf("never screened: %q %s", title, r.body)
	}
	if r := e.do(t, "GET", "/api/result/MSFT", nil, k); r.StatusCode != http.StatusNotFound {
		t.Fatalf("the badge screened MSFT: %d %s", r.StatusCode, r.body)
	}

	res := e.do(t, "GET", "/api/screen/MSFT", nil, k).json(t)
	status := res["compliance_status"].(string)
	// MSFT stands on illustrative inputs in the default pack: the badge says so in its visible text,
	// and names the ruleset as a person reads it.
	dq := res["data_quality"].(map[string]any)
	marks, _ := dq["marks"].([]any)
	if dq["illustrative"] != true || len(marks) == 0 || marks[0].(map[string]any)["label"] != "illustrative" {
		t.Fatalf("MSFT's screening is not marked illustrative: %v", dq)
	}
	shown := svgchart.VerdictText(status) + " (illustrative)"
	r = e.do(t, "GET", "/api/badge/MSFT.svg", nil, nil)
	title := svgDoc(t, r)
	if !strings.HasPrefix(title, "MSFT: "+shown+" under 5 methodologies (ruleset spec), screened ") || !bytes.Contains(r.body, []byte(`fill="`+svgchart.VerdictColors(status).Fill+`"`)) {
		t.Fatalf("screened %s: %q %s", status, title, r.body)
	}
	if !bytes.Contains(r.body, []byte(`class="verdict"`)) || !bytes.Contains(r.body, []byte(">"+shown+"</text>")) ||
		!bytes.Contains(r.body, []byte(">Shariah · 5 methodologies</text>")) || bytes.Contains(r.body, []byte("· spec<")) {
		t.Fatalf("visible text of the illustrative badge: %s", r.body)
	}
	if cc := r.Header.Get("Cache-Control"); cc != "public, max-age=300" || r.Header.Get("ETag") == "" || r.Header.Get("X-Tokens-Charged") != "" {
		t.Fatalf("headers %v", r.Header)
	}
	if again := e.do(t, "GET", "/api/badge/MSFT.svg", nil, hdr{"If-None-Match": r.Header.Get("ETag")}); again.StatusCode != http.StatusNotModified || len(again.body) != 0 {
		t.Fatalf("If-None-Match: %d %s", again.StatusCode, again.body)
	}

	// One methodology's verdict, named in the title.
	ftse := strings.ToUpper(res["by_methodology"].(map[string]any)["FTSE"].(map[string]any)["verdict"].(string)) // lower case there
	r = e.do(t, "GET", "/api/badge/msft.svg?methodology=ftse", nil, nil)
	if title := svgDoc(t, r); !strings.HasPrefix(title, "MSFT: "+svgchart.VerdictText(ftse)+" (illustrative) under FTSE (ruleset spec)") {
		t.Fatalf("FTSE badge: %q, FTSE's verdict %q", title, ftse)
	}

	// Unknown and hostile symbols: neutral, the path's text escaped.
	for path, want := range map[string]string{
		"/api/badge/NOPE123.svg":             "NOPE123: Not screened",
		"/api/badge/%3Cscript%3Ex%26%22.svg": `<script>x&": Not screened`,
	} {
		r := e.do(t, "GET", path, nil, nil)
		if title := svgDoc(t, r); !strings.HasPrefix(title, want) || bytes.Contains(r.body, []byte("<script")) {
			t.Fatalf("%s: %q %s", path, title, r.body)
		}
	}
	for _, q := range []string{"ruleset=nosuch", "methodology=nosuch"} {
		if r := e.do(t, "GET", "/api/badge/MSFT.svg?"+q, nil, nil); r.StatusCode != http.StatusUnprocessableEntity || r.errCode(t) != shariah.EVALIDATION {
			t.Fatalf("%s: %d %s", q, r.StatusCode, r.body)
		}
	}
}

// TestBadgeWhileTheStoreIsDown: with Redis stopped, a screened symbol's badge is the neutral one with
// 200 and no-cache (never a 5xx); once Redis is back (empty: the test's Redis keeps nothing), the
// badge is cacheable again.
func TestBadgeWhileTheStoreIsDown(t *testing.T) {
	t.Parallel()
	own, _ := redistest.StartWithDefaultPack(t)
	e := setup(t, options{redisURL: own.RedisURL()})
	k := key(e.newKey(t, account.PlanPro))
	status := e.do(t, "GET", "/api/screen/MSFT", nil, k).json(t)["compliance_status"].(string)
	screened := "MSFT: " + svgchart.VerdictText(status)
	if title := svgDoc(t, e.do(t, "GET", "/api/badge/MSFT.svg", nil, nil)); !strings.HasPrefix(title, screened) {
		t.Fatalf("before the outage: %q", title)
	}
	own.Stop()
	waitFor(t, 40*time.Second, "the neutral badge while Redis is down", func() bool {
		r := e.do(t, "GET", "/api/badge/MSFT.svg", nil, nil)
		title := svgDoc(t, r) // 200, an SVG, on every request
		return strings.HasPrefix(title, "MSFT: Not screened") && r.Header.Get("Cache-Control") == "no-cache"
	})
	for range 20 {
		r := e.do(t, "GET", "/api/badge/AAPL.svg", nil, nil)
		if title := svgDoc(t, r); !strings.Contains(title, "Not screened") {
			t.Fatalf("with Redis down: %q", title)
		}
	}
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "a cacheable badge once Redis is back", func() bool {
		r := e.do(t, "GET", "/api/badge/MSFT.svg", nil, nil)
		return svgDoc(t, r) != "" && r.Header.Get("Cache-Control") == "public, max-age=300"
	})
}

// TestTrajectorySVGRoute: the filed trajectory as a chart with the methodology's threshold lines and as a
// sparkline, with no key; 304 on its ETag; no filed quarters is a 200 picture saying so; an unknown
// symbol 404; a bad view, ratio, ruleset or methodology 422.
func TestTrajectorySVGRoute(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	ingestEXA(t, e)

	r := e.do(t, "GET", "/api/insights/EXA/trajectory.svg?ruleset=ftse-2024&methodology=ftse", nil, nil)
	title := svgDoc(t, r)
	if !strings.Contains(title, "EXA") || !strings.Contains(title, "FTSE thresholds (ruleset ftse-2024)") ||
		bytes.Count(r.body, []byte(`class="threshold"`)) != 4 || bytes.Count(r.body, []byte(`stroke-dasharray="6 4"`)) < 2 {
		t.Fatalf("chart: %q\n%s", title, r.body)
	}
	if r.Header.Get("Cache-Control") != "public, max-age=3600" || r.Header.Get("ETag") == "" {
		t.Fatalf("headers %v", r.Header)
	}
	if again := e.do(t, "GET", "/api/insights/EXA/trajectory.svg?ruleset=ftse-2024&methodology=ftse", nil, hdr{"If-None-Match": r.Header.Get("ETag")}); again.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d", again.StatusCode)
	}
	// A methodology measured on market capitalisation alone (S&P's ratios) leaves only the revenue line.
	if r := e.do(t, "GET", "/api/insights/EXA/trajectory.svg?methodology=sp", nil, nil); svgDoc(t, r) == "" || bytes.Count(r.body, []byte(`class="threshold"`)) != 1 {
		t.Fatalf("S&P chart:\n%s", r.body)
	}
	r = e.do(t, "GET", "/api/insights/EXA/trajectory.svg?view=sparkline&ratio=cash_to_assets&ruleset=ftse-2024&methodology=ftse", nil, nil)
	if title := svgDoc(t, r); !strings.HasPrefix(title, "EXA cash / assets: ") || !strings.Contains(title, "FTSE 33.333%") ||
		!bytes.Contains(r.body, []byte(`width="120" height="28"`)) {
		t.Fatalf("sparkline: %q\n%s", title, r.body)
	}
	if title := svgDoc(t, e.do(t, "GET", "/api/insights/MSFT/trajectory.svg", nil, nil)); !strings.Contains(title, "no filed quarters") {
		t.Fatalf("no filed quarters: %q", title)
	}
	if r := e.do(t, "GET", "/api/insights/NOPE123/trajectory.svg", nil, nil); r.StatusCode != http.StatusNotFound || r.errCode(t) != shariah.ENOTFOUND {
		t.Fatalf("unknown symbol: %d %s", r.StatusCode, r.body)
	}
	for _, q := range []string{"view=pie", "ratio=debt", "ruleset=nosuch", "methodology=nosuch"} {
		if r := e.do(t, "GET", "/api/insights/EXA/trajectory.svg?"+q, nil, nil); r.StatusCode != http.StatusUnprocessableEntity || r.errCode(t) != shariah.EVALIDATION {
			t.Fatalf("%s: %d %s", q, r.StatusCode, r.body)
		}
	}
}

// TestDashboardPageAndAssets: the page needs no key and carries a CSP without inline scripts; its
// assets are served (uPlot gzip-encoded or plain); an unknown asset is 404.
func TestDashboardPageAndAssets(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	r := e.do(t, "GET", "/dashboard", nil, nil)
	if r.StatusCode != 200 || !strings.Contains(r.Header.Get("Content-Security-Policy"), "script-src 'self'") || !bytes.Contains(r.body, []byte("X-API-Key")) == bytes.Contains(r.body, []byte("<script>")) {
		t.Fatalf("page: %d %v", r.StatusCode, r.Header)
	}
	if bytes.Contains(r.body, []byte("<script>")) || bytes.Contains(r.body, []byte("http://")) || bytes.Contains(r.body, []byte("https://")) {
		t.Fatalf("the page has an inline script or an external reference:\n%s", r.body)
	}
	for _, f := range []string{"dashboard.js", "dashboard.css", "uPlot.iife.min.js", "uPlot.min.css"} {
		plain := e.do(t, "GET", "/dashboard/assets/"+f, nil, nil)
		gz := e.do(t, "GET", "/dashboard/assets/"+f, nil, hdr{"Accept-Encoding": "gzip"})
		if plain.StatusCode != 200 || len(plain.body) == 0 || gz.StatusCode != 200 {
			t.Fatalf("%s: %d %d", f, plain.StatusCode, gz.StatusCode)
		}
	}
	if js := e.do(t, "GET", "/dashboard/assets/dashboard.js", nil, nil); bytes.Contains(js.body, []byte("localStorage.")) || bytes.Contains(js.body, []byte("document.cookie")) {
		t.Fatal("the script stores something")
	}
	if r := e.do(t, "GET", "/dashboard/assets/nope.js", nil, nil); r.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown asset: %d", r.StatusCode)
	}
}
