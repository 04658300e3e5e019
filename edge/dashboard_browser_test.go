package edge_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/insights"
)

// chromiumPath is Debian's Chromium; SHARIAH_CHROMIUM names another binary.
func chromiumPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("SHARIAH_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the dashboard's browser test needs Chromium at %s (%v): install it with scripts/install-services.sh "+
			"(apt-get install chromium), or name another binary in SHARIAH_CHROMIUM", p, err)
	}
	return p
}

// pageProblems collects what must not happen on the page: console errors, uncaught exceptions, browser
// log errors (CSP violations, failed loads), failed requests and error statuses.
type pageProblems struct {
	mu   sync.Mutex
	list []string
	urls []string // every URL the page requested
}

func (p *pageProblems) add(s string) {
	p.mu.Lock()
	p.list = append(p.list, s)
	p.mu.Unlock()
}

func (p *pageProblems) listen(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			p.add(fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		desc := ""
		if d.Exception != nil {
			desc = d.Exception.Description
		}
		p.add(fmt.Sprintf("exception: %s %s at %s:%d", d.Text, desc, d.URL, d.LineNumber))
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			p.add(fmt.Sprintf("browser log %s: %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventLoadingFailed:
		if !ev.Canceled { // an image whose src changed is cancelled, not failed
			p.add(fmt.Sprintf("request failed: %s %s", ev.ErrorText, ev.BlockedReason))
		}
	case *network.EventRequestWillBeSent:
		p.mu.Lock()
		p.urls = append(p.urls, ev.Request.URL)
		p.mu.Unlock()
	case *network.EventResponseReceived:
		if ev.Response.Status >= 400 {
			p.add(fmt.Sprintf("HTTP %d: %s", ev.Response.Status, ev.Response.URL))
		}
	}
}

func (p *pageProblems) get() ([]string, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.list...), append([]string(nil), p.urls...)
}

// TestDashboardInChromium starts a real server over real Redis and ClickHouse with seeded data (an
// operator key, its usage, filed trajectories of a few S&P 500 constituents, a cached screening), drives
// headless Chromium through the page: the key entered, the operator view (a row per route used, the
// charts), the analyst view (a drift row per seeded company, their sparklines) and a symbol page (badge,
// verdicts, ratios, trajectory chart). No console error, no failed request, and the key is in no
// storage, cookie or URL. A screenshot of each view goes to SHARIAH_SCREENSHOTS (make screenshots:
// docs/img), else to the test's temporary directory.
func TestDashboardInChromium(t *testing.T) {
	chromium := chromiumPath(t)
	e := setup(t, options{})
	ctx := context.Background()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = e.srv.App().Listener(ln) }()
	t.Cleanup(func() { _ = e.srv.Shutdown(context.Background()) })
	base := "http://" + ln.Addr().String()

	// Seed: filed quarters of three S&P 500 constituents whose debt/assets climbs toward the 33% lines.
	_, members, err := e.bulk.Indices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sp := append([]string(nil), members["SP500"]...)
	sort.Strings(sp)
	if len(sp) < 3 {
		t.Fatalf("SP500 has %d constituents in the default pack", len(sp))
	}
	seeded := sp[:3]
	for i, sym := range seeded {
		var pts []insights.TrajectoryPoint
		for q := range 8 {
			d, c, l, in := 0.18+0.015*float64(q)+0.01*float64(i), 0.05+0.002*float64(q), 0.20+0.01*float64(q), 0.01
			pts = append(pts, insights.TrajectoryPoint{PeriodEnd: fmt.Sprintf("%d-%02d-28", 2024+q/4, 3*(q%4)+3), Period: fmt.Sprintf("Q%d", q%4+1),
				FiscalYear: 2024 + q/4, DebtAssets: &d, CashAssets: &c, LiquidityAssets: &l, InterestRevenue: &in,
				Source: shariah.SourceFiling, Accession: fmt.Sprintf("0000000000-%02d-%06d", 24+q/4, i*10+q)})
		}
		if err := e.traj.PutTrajectory(ctx, sym, pts); err != nil {
			t.Fatal(err)
		}
	}
	// The operator's usage: requests through the real server, then the usage writer flushed.
	op := e.newKey(t, account.PlanInternal)
	get := func(path string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("X-API-Key", op.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	screened := seeded[0]
	if st := get("/api/screen/" + screened); st != 200 {
		t.Fatalf("screening %s: %d", screened, st)
	}
	// MSFT stands on illustrative inputs in the default pack: its symbol page must say so.
	if st := get("/api/screen/MSFT"); st != 200 {
		t.Fatalf("screening MSFT: %d", st)
	}
	for range 3 {
		get("/api/auth/me")
	}
	get("/api/quote/NOPE123") // a 404 for the errors column
	if err := e.writer.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	dir := os.Getenv("SHARIAH_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true), chromedp.WindowSize(1400, 1000))...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	var problems pageProblems
	if err := chromedp.Listen(bctx, problems.listen); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}
	// Every step is bounded: a page that never shows what is waited for fails here, with what it showed.
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(bctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			body, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
			p, _ := problems.get()
			t.Fatalf("%s: %v\npage:\n%.3000s\nproblems: %v", what, err, body, p)
		}
	}
	wait := func(expr string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond))(ctx, tg)
			return err
		})
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector(`+jsString(sel)+`).innerText`))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}
	shot := func(name string) {
		t.Helper()
		b, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The key, entered once; the operator view opens first.
	run("load the page and enter the key",
		chromedp.Navigate(base+"/dashboard"),
		chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.SendKeys(chromedp.ID("key"), op.Key),
		chromedp.Click(chromedp.ID("use-key")),
		wait(`document.querySelectorAll('#op-routes tbody tr').length >= 3 && document.querySelectorAll('#chart-usage .uplot').length === 1 &&
			document.querySelectorAll('#chart-latency .uplot').length === 1`))
	routes := text("#op-routes")
	for _, r := range []string{"/api/screen/{symbol}", "/api/auth/me", "/api/quote/{symbol}"} {
		if !strings.Contains(routes, r) {
			t.Errorf("the routes table has no row for %s:\n%s", r, routes)
		}
	}
	if keys := text("#op-keys"); !strings.Contains(keys, account.PublicPrefix(op.Key)) {
		t.Errorf("the top keys table lacks the operator's key prefix %s:\n%s", account.PublicPrefix(op.Key), keys)
	}
	shot("dashboard-operator.png")

	// The analyst view: S&P 500 chosen, a drift row per seeded company with its sparkline loaded.
	run("the analyst view",
		chromedp.Click(chromedp.CSS(`button[data-view="analyst"]`)),
		wait(`document.querySelectorAll('#an-drift tbody tr.drift-row').length >= 3 &&
			[...document.querySelectorAll('#an-drift img')].every(i => i.complete && i.naturalWidth > 0) &&
			document.querySelectorAll('#an-sectors tbody tr').length >= 1`))
	drift := text("#an-drift")
	for _, sym := range seeded {
		if !strings.Contains(drift, sym) {
			t.Errorf("no drift row for %s:\n%s", sym, drift)
		}
	}
	shot("dashboard-analyst.png")

	// The symbol page of the screened company: badge, verdicts, ratios, trajectory chart.
	run("the symbol page",
		chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('#an-drift tr.drift-row')].find(r => r.cells[0].innerText === `+jsString(screened)+`).click()`),
		wait(`document.querySelectorAll('#sym-verdicts tbody tr').length >= 2 && document.querySelectorAll('#sym-ratios tbody tr').length >= 2 &&
			['sym-badge', 'sym-trajectory'].every(id => { const i = document.getElementById(id); return i.complete && i.naturalWidth > 0 })`))
	if title := text("#sym-title"); !strings.HasPrefix(title, screened+" - ") {
		t.Errorf("symbol page title %q", title)
	}
	shot("dashboard-symbol.png")

	// An illustrative symbol's page: a banner saying so, the verdict and every ratio marked.
	run("the symbol page of an illustrative symbol",
		chromedp.SetValue(chromedp.ID("an-symbol"), "MSFT"),
		chromedp.Click(chromedp.ID("an-open")),
		wait(`document.getElementById('sym-title').innerText.startsWith('MSFT - ') && document.querySelectorAll('#sym-ratios tbody tr').length >= 2 &&
			document.getElementById('sym-badge').complete && document.getElementById('sym-badge').naturalWidth > 0`))
	banner, err := chromedp.Run(bctx, chromedp.Evaluate[map[string]any](`(() => { const b = document.getElementById('sym-marks');
		const rows = [...document.querySelectorAll('#sym-ratios tbody tr')];
		return {visible: !b.hidden && b.offsetHeight > 0, text: b.innerText, title: document.getElementById('sym-title').innerText,
			rows: rows.length, marked: rows.filter(r => r.querySelector('.mark[data-mark="illustrative"]') && r.cells[5].innerText.includes('illustrative')).length,
			asOf: [...document.querySelectorAll('#sym-verdicts tbody tr')].every(r => r.cells[3].innerText.endsWith('(illustrative)'))}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if banner["visible"] != true || !strings.Contains(banner["text"].(string), "illustrative") || !strings.Contains(banner["title"].(string), "(illustrative)") ||
		banner["rows"].(float64) < 2 || banner["marked"] != banner["rows"] || banner["asOf"] != true {
		t.Errorf("the illustrative symbol's page is not marked: %v", banner)
	}
	shot("dashboard-symbol-illustrative.png")

	// The key is nowhere but in the script's memory.
	state, err := chromedp.Run(bctx, chromedp.Evaluate[map[string]string](`({local: JSON.stringify(Object.assign({}, localStorage)),
		session: JSON.stringify(Object.assign({}, sessionStorage)), cookie: document.cookie, url: location.href,
		html: document.documentElement.outerHTML, history: String(history.length)})`))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range state {
		if strings.Contains(v, op.Key) {
			t.Errorf("the key is in the page's %s", k)
		}
	}
	cookies, err := chromedp.Call(bctx, network.GetCookies, network.GetCookiesParams{URLs: []string{base}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cookies.Cookies) > 0 {
		t.Errorf("cookies set: %v", cookies.Cookies)
	}
	p, urls := problems.get()
	for _, u := range urls {
		if strings.Contains(u, op.Key) {
			t.Errorf("the key went into a URL: %s", u)
		}
		if !strings.HasPrefix(u, base) && !strings.HasPrefix(u, "data:") {
			t.Errorf("a request left the server: %s", u)
		}
	}
	if len(p) > 0 {
		t.Errorf("problems on the page:\n%s", strings.Join(p, "\n"))
	}
	t.Logf("screenshots in %s", dir)
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}
