package edge_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/education"
	"github.com/shariah-screen/shariah/internal/testcheck"
	"github.com/shariah-screen/shariah/market"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
)

// Quotes and cached screenings are served as they were stored when written (shariah.Served): these
// tests hold the answers byte for byte to what the routes answered before, when they decoded the stored
// record and encoded it per request, and hold that a changed record is never answered with its old body.

func registry(t *testing.T) (*education.Registry, screening.Rulesets) {
	t.Helper()
	rs, err := rules.Rulesets()
	if err != nil {
		t.Fatal(err)
	}
	edu, err := education.Load(rs)
	if err != nil {
		t.Fatal(err)
	}
	return edu, rs
}

// rawValue is a key's stored value, read past every cache.
func (e *env) rawValue(t *testing.T, key string) []byte {
	t.Helper()
	b, err := e.rc.Do(context.Background(), e.rc.B().Get().Key(key).Build()).AsBytes()
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return b
}

func (e *env) setRaw(t *testing.T, key string, v []byte) {
	t.Helper()
	if err := e.rc.Do(context.Background(), e.rc.B().Set().Key(key).Value(string(v)).Build()).Error(); err != nil {
		t.Fatal(err)
	}
}

// encodedQuote is what GET /api/quote answered before: the stored quote decoded, the registry's
// market_data disclaimer set, encoded.
func encodedQuote(t *testing.T, edu *education.Registry, stored []byte) []byte {
	t.Helper()
	var q market.Quote
	if err := json.Unmarshal(stored, &q); err != nil {
		t.Fatal(err)
	}
	d, ok := edu.Disclaimer("market_data")
	if !ok {
		t.Fatal("no market_data disclaimer")
	}
	q.Disclaimers = []shariah.Disclaimer{d}
	b, err := json.Marshal(q)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// encodedResult is what GET /api/screen and /api/result answered before for a stored result: read as
// the result store reads a stored value (decoded and brought up to date; written to a key of its own
// for that), seen through the methodology (if any), encoded.
func (e *env) encodedResult(t *testing.T, rs screening.Rulesets, stored []byte, methodology string) []byte {
	t.Helper()
	const sym, ruleset = "STORED-AS-READ", "spec" // a key no route reads
	e.setRaw(t, "shr:result:{"+sym+"}:"+ruleset, stored)
	r, _, ok, err := sredis.NewResultStore(e.rc).Result(context.Background(), sym, ruleset)
	if err != nil || !ok {
		t.Fatalf("reading the stored result: %v %v", ok, err)
	}
	set, m, err := rs.Resolve(r.Ruleset.Name, methodology)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r.View(set, m))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// until polls cond (each poll a request) until it holds, or fails the test after 10 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testcheck.WaitFor(t, 10*time.Second, what, cond)
}

func framedAs(v []byte, variant string) bool {
	return bytes.HasPrefix(v, []byte(`{"_served":"`+variant+`"`))
}

func TestQuotesServedAsStored(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	edu, _ := registry(t)
	k := key(e.newKey(t, account.PlanPro))
	assets, err := e.ref.AllAssets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range assets {
		if _, ok, _ := e.ref.Quote(context.Background(), a.Symbol); !ok {
			continue
		}
		n++
		stored := e.rawValue(t, "shr:quote:{"+a.Symbol+"}")
		if !framedAs(stored, edu.QuoteBodies().Variant()) {
			t.Fatalf("%s: the loaded quote is not stored as served: %.120s", a.Symbol, stored)
		}
		want := encodedQuote(t, edu, stored)
		r := e.do(t, "GET", "/api/quote/"+a.Symbol, nil, k)
		if r.StatusCode != 200 || !bytes.Equal(r.body, want) || r.Header.Get("ETag") != shariah.ETag(want) {
			t.Fatalf("%s: %d ETag %s\n got %s\nwant %s", a.Symbol, r.StatusCode, r.Header.Get("ETag"), r.body, want)
		}
	}
	if n < 20 {
		t.Fatalf("only %d quotes in the default pack", n)
	}
}

// A new quote is served with its new body and ETag, and once it is, never the old one; a quote stored by
// an older binary (a plain record in an earlier shape) is served as the route encoded it, and stored with
// its body.
func TestQuoteChangedOrStoredByAnOlderBinary(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	edu, _ := registry(t)
	k := key(e.newKey(t, account.PlanPro))
	ctx := context.Background()
	qkey := "shr:quote:{AAPL}"
	first := e.do(t, "GET", "/api/quote/AAPL", nil, k)
	etag1 := first.Header.Get("ETag")

	q, _, err := e.ref.Quote(ctx, "AAPL")
	if err != nil {
		t.Fatal(err)
	}
	q.Price += 1_230_000
	if err := e.ref.PutQuote(ctx, q); err != nil {
		t.Fatal(err)
	}
	want := encodedQuote(t, edu, e.rawValue(t, qkey))
	var got response
	until(t, "the new quote served", func() bool {
		got = e.do(t, "GET", "/api/quote/AAPL", nil, k)
		return got.Header.Get("ETag") != etag1
	})
	etag2 := shariah.ETag(want)
	if !bytes.Equal(got.body, want) || got.Header.Get("ETag") != etag2 || etag2 == etag1 {
		t.Fatalf("new quote: ETag %s\n got %s\nwant %s", got.Header.Get("ETag"), got.body, want)
	}
	for range 20 {
		if r := e.do(t, "GET", "/api/quote/AAPL", nil, k); !bytes.Equal(r.body, want) {
			t.Fatalf("the old quote came back: %s", r.body)
		}
	}
	if r := e.do(t, "GET", "/api/quote/AAPL", nil, hdr{"X-API-Key": k["X-API-Key"], "If-None-Match": etag1}); r.StatusCode != 200 || !bytes.Equal(r.body, want) {
		t.Fatalf("If-None-Match with the old ETag: %d", r.StatusCode)
	}
	if r := e.do(t, "GET", "/api/quote/AAPL", nil, hdr{"X-API-Key": k["X-API-Key"], "If-None-Match": etag2}); r.StatusCode != 304 || r.Header.Get("ETag") != etag2 {
		t.Fatalf("If-None-Match with the new ETag: %d", r.StatusCode)
	}

	// An older binary wrote the quote alone, change_percent as a string and without the camel-case names.
	var old map[string]any
	if err := json.Unmarshal(e.rawValue(t, qkey), &old); err != nil {
		t.Fatal(err)
	}
	for f := range old {
		if strings.HasPrefix(f, "_") || f == "disclaimers" || f == "changePercent" || f == "marketCap" {
			delete(old, f)
		}
	}
	old["change_percent"] = "0.75"
	old["price"] = 199.99
	plain, _ := json.Marshal(old)
	e.setRaw(t, qkey, plain)
	want = encodedQuote(t, edu, plain)
	until(t, "the older binary's quote served", func() bool {
		got = e.do(t, "GET", "/api/quote/AAPL", nil, k)
		return got.Header.Get("ETag") != etag2
	})
	if !bytes.Equal(got.body, want) || got.Header.Get("ETag") != shariah.ETag(want) || !strings.Contains(string(want), `"changePercent":0.75`) {
		t.Fatalf("older quote:\n got %s\nwant %s", got.body, want)
	}
	if v := e.rawValue(t, qkey); !framedAs(v, edu.QuoteBodies().Variant()) || !bytes.Equal(encodedQuote(t, edu, v), want) {
		t.Fatalf("the older quote was not stored with its body: %s", v)
	}
	for range 20 {
		if r := e.do(t, "GET", "/api/quote/AAPL", nil, k); !bytes.Equal(r.body, want) {
			t.Fatalf("after the backfill: %s", r.body)
		}
	}
}

func TestScreeningsServedAsStored(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	_, rs := registry(t)
	k := key(e.newKey(t, account.PlanPro))
	for _, sym := range []string{"MSFT", "AAPL", "JPM", "7203.T", "TCS.NS", "2222.SR", "BRK-B"} {
		computed := e.do(t, "POST", "/api/screen/"+sym, nil, k)
		if computed.StatusCode != 200 || computed.Header.Get("X-Cache") != "MISS" {
			t.Fatalf("%s: %d %s", sym, computed.StatusCode, computed.body)
		}
		stored := e.rawValue(t, "shr:result:{"+sym+"}:spec")
		if !framedAs(stored, screening.ResultVariant) {
			t.Fatalf("%s: the result is not stored as served: %.120s", sym, stored)
		}
		want := e.encodedResult(t, rs, stored, "")
		if !bytes.Equal(computed.body, want) || computed.Header.Get("ETag") != "" {
			t.Fatalf("%s: computed answer (ETag %q)\n got %s\nwant %s", sym, computed.Header.Get("ETag"), computed.body, want)
		}
		for _, c := range []struct{ method, path, cache string }{
			{"GET", "/api/screen/" + sym, "HIT"},
			{"POST", "/api/screen/" + sym, "HIT"},
			{"GET", "/api/result/" + sym, ""},
		} {
			r := e.do(t, c.method, c.path, nil, k)
			if r.StatusCode != 200 || !bytes.Equal(r.body, want) || r.Header.Get("X-Cache") != c.cache {
				t.Fatalf("%s %s: %d X-Cache %q\n got %s\nwant %s", c.method, c.path, r.StatusCode, r.Header.Get("X-Cache"), r.body, want)
			}
			if et := r.Header.Get("ETag"); (c.method == "GET") != (et == shariah.ETag(want)) {
				t.Fatalf("%s %s: ETag %q", c.method, c.path, et)
			}
		}
		// A methodology's view is encoded from the result (and memoised), the same as before.
		view := e.encodedResult(t, rs, stored, "aaoifi")
		for range 2 {
			r := e.do(t, "GET", "/api/screen/"+sym+"?methodology=aaoifi", nil, k)
			if r.StatusCode != 200 || !bytes.Equal(r.body, view) || r.Header.Get("X-Cache") != "HIT" || r.Header.Get("ETag") != shariah.ETag(view) {
				t.Fatalf("%s aaoifi view: %d\n got %s\nwant %s", sym, r.StatusCode, r.body, view)
			}
		}
		if r := e.do(t, "GET", "/api/result/"+sym+"?methodology=djim", nil, k); !bytes.Equal(r.body, e.encodedResult(t, rs, stored, "djim")) {
			t.Fatalf("%s djim view of the cached result: %s", sym, r.body)
		}
	}
	// Revalidation: 304 and nothing kept, on GET.
	r := e.do(t, "GET", "/api/screen/MSFT", nil, k)
	nm := e.do(t, "GET", "/api/screen/MSFT", nil, hdr{"X-API-Key": k["X-API-Key"], "If-None-Match": r.Header.Get("ETag")})
	if nm.StatusCode != 304 || len(nm.body) != 0 || nm.Header.Get("X-Tokens-Charged") != "0" {
		t.Fatalf("revalidation: %d charged %s", nm.StatusCode, nm.Header.Get("X-Tokens-Charged"))
	}
	nm = e.do(t, "GET", "/api/result/MSFT", nil, hdr{"X-API-Key": k["X-API-Key"], "If-None-Match": r.Header.Get("ETag")})
	if nm.StatusCode != 304 || nm.Header.Get("X-Tokens-Charged") != "0" {
		t.Fatalf("result revalidation: %d charged %s", nm.StatusCode, nm.Header.Get("X-Tokens-Charged"))
	}
	if p := e.do(t, "POST", "/api/screen/MSFT", nil, hdr{"X-API-Key": k["X-API-Key"], "If-None-Match": r.Header.Get("ETag")}); p.StatusCode != 200 || p.Header.Get("X-Tokens-Charged") != "5" {
		t.Fatalf("POST with If-None-Match: %d charged %s", p.StatusCode, p.Header.Get("X-Tokens-Charged"))
	}
}

// A re-screen, by this edge or another process, is served with its new body and ETag, and once it is,
// the old body never again.
func TestRescreenServesTheNewBody(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	_, rs := registry(t)
	k := key(e.newKey(t, account.PlanEnterprise))
	rkey := "shr:result:{MSFT}:spec"
	e.do(t, "POST", "/api/screen/MSFT", nil, k)
	etag1 := e.do(t, "GET", "/api/screen/MSFT", nil, k).Header.Get("ETag")

	forced := e.do(t, "GET", "/api/screen/MSFT?force_refresh=true", nil, k)
	want := e.encodedResult(t, rs, e.rawValue(t, rkey), "")
	if forced.Header.Get("X-Cache") != "MISS" || !bytes.Equal(forced.body, want) || shariah.ETag(want) == etag1 {
		t.Fatalf("force_refresh: %v\n got %s\nwant %s", forced.Header, forced.body, want)
	}
	// This edge wrote it: served at once, before its client-side cache hears of the write.
	for range 20 {
		for _, p := range []string{"/api/screen/MSFT", "/api/result/MSFT"} {
			if r := e.do(t, "GET", p, nil, k); !bytes.Equal(r.body, want) || r.Header.Get("ETag") != shariah.ETag(want) {
				t.Fatalf("%s after the re-screen: ETag %s (old %s)", p, r.Header.Get("ETag"), etag1)
			}
		}
	}
	// Another edge over the same Redis re-screens.
	other := setup(t, options{redisURL: e.redisURL, db: e.db})
	ko := key(other.newKey(t, account.PlanEnterprise))
	if r := other.do(t, "POST", "/api/screen/MSFT?force_refresh=true", nil, ko); r.StatusCode != 200 || r.Header.Get("X-Cache") != "MISS" {
		t.Fatalf("re-screen on the other edge: %d", r.StatusCode)
	}
	etag2 := shariah.ETag(want)
	want = e.encodedResult(t, rs, e.rawValue(t, rkey), "")
	for _, p := range []string{"/api/screen/MSFT", "/api/result/MSFT"} {
		var got response
		until(t, p+" serves the other edge's result", func() bool {
			got = e.do(t, "GET", p, nil, k)
			return got.Header.Get("ETag") != etag2
		})
		if !bytes.Equal(got.body, want) || got.Header.Get("ETag") != shariah.ETag(want) {
			t.Fatalf("%s: \n got %s\nwant %s", p, got.body, want)
		}
		for range 20 {
			if r := e.do(t, "GET", p, nil, k); !bytes.Equal(r.body, want) {
				t.Fatalf("%s: the old result came back", p)
			}
		}
	}
}

// A result stored by an older binary (the plain record, no body) is served as the routes encoded it, and
// stored with its body.
func TestResultStoredByAnOlderBinary(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	_, rs := registry(t)
	k := key(e.newKey(t, account.PlanPro))
	rkey := "shr:result:{JPM}:spec"
	first := e.do(t, "POST", "/api/screen/JPM", nil, k)
	var stored struct {
		Version int64          `json:"version"`
		Result  map[string]any `json:"result"`
	}
	if err := json.Unmarshal(e.rawValue(t, rkey), &stored); err != nil {
		t.Fatal(err)
	}
	// Screened a second later by the older binary, in its layout (and without the newer fields).
	at, _ := time.Parse(time.RFC3339Nano, stored.Result["screened_at"].(string))
	stored.Result["screened_at"] = at.Add(time.Second).Format(time.RFC3339Nano)
	delete(stored.Result, "purification_rate_fraction")
	delete(stored.Result, "shariah_compliance_status")
	plain, _ := json.Marshal(map[string]any{"version": stored.Version, "result": stored.Result})
	e.setRaw(t, rkey, plain)
	want := e.encodedResult(t, rs, plain, "")
	if bytes.Equal(want, first.body) {
		t.Fatal("the older record encodes as the current one: nothing to tell them apart")
	}
	for _, p := range []string{"/api/result/JPM", "/api/screen/JPM"} {
		var got response
		until(t, p+" serves the older binary's result", func() bool {
			got = e.do(t, "GET", p, nil, k)
			return got.Header.Get("ETag") != shariah.ETag(first.body)
		})
		if !bytes.Equal(got.body, want) || got.Header.Get("ETag") != shariah.ETag(want) {
			t.Fatalf("%s:\n got %s\nwant %s", p, got.body, want)
		}
	}
	if v := e.rawValue(t, rkey); !framedAs(v, screening.ResultVariant) || !bytes.Equal(e.encodedResult(t, rs, v, ""), want) {
		t.Fatalf("the older result was not stored with its body: %.200s", v)
	}
	if r := e.do(t, "GET", "/api/screen/JPM", nil, k); r.Header.Get("X-Cache") != "HIT" || !bytes.Equal(r.body, want) {
		t.Fatalf("after the backfill: %v %s", r.Header, r.body)
	}
}

// A cached screening (about 11.5 KB) is sent gzip-encoded to a client that accepts gzip: the same bytes
// once decoded, its own ETag, Vary on both representations, 304 to either ETag, and the same charge.
// A quote (under 2 KiB) and a POST stay identity.
func TestCachedScreeningSentGzipWhenAccepted(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	if r := e.do(t, "POST", "/api/screen/MSFT", nil, k); r.StatusCode != 200 {
		t.Fatalf("screen: %d %s", r.StatusCode, r.body)
	}
	plain := e.do(t, "GET", "/api/screen/MSFT", nil, k)
	if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" || plain.Header.Get("Vary") != "Accept-Encoding" ||
		len(plain.body) < 2048 {
		t.Fatalf("identity: %d %v (%d bytes)", plain.StatusCode, plain.Header, len(plain.body))
	}
	with := func(h hdr) hdr {
		out := hdr{"X-API-Key": k["X-API-Key"]}
		for k, v := range h {
			out[k] = v
		}
		return out
	}
	gz := e.do(t, "GET", "/api/screen/MSFT", nil, with(hdr{"Accept-Encoding": "gzip, deflate, br"}))
	if gz.StatusCode != 200 || gz.Header.Get("Content-Encoding") != "gzip" || gz.Header.Get("Vary") != "Accept-Encoding" ||
		gz.Header.Get("X-Tokens-Charged") != plain.Header.Get("X-Tokens-Charged") || gz.Header.Get("Content-Type") != plain.Header.Get("Content-Type") {
		t.Fatalf("gzip: %d %v", gz.StatusCode, gz.Header)
	}
	if want := strings.TrimSuffix(plain.Header.Get("ETag"), `"`) + `-gzip"`; gz.Header.Get("ETag") != want {
		t.Fatalf("gzip ETag %q, want %q", gz.Header.Get("ETag"), want)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz.body))
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(decoded, plain.body) {
		t.Fatalf("the gzip body does not decode to the identity body (%v)", err)
	}
	if len(gz.body)*2 > len(plain.body) {
		t.Fatalf("gzip body %d bytes for %d", len(gz.body), len(plain.body))
	}
	t.Logf("cached screening: %d bytes, %d gzip-encoded", len(plain.body), len(gz.body))
	if r := e.do(t, "GET", "/api/screen/MSFT", nil, with(hdr{"Accept-Encoding": "gzip;q=0"})); r.Header.Get("Content-Encoding") != "" || !bytes.Equal(r.body, plain.body) {
		t.Fatalf("gzip;q=0: %v", r.Header)
	}
	// revalidation: either ETag matches either representation
	for _, tag := range []string{plain.Header.Get("ETag"), gz.Header.Get("ETag")} {
		for _, ae := range []string{"", "gzip"} {
			r := e.do(t, "GET", "/api/screen/MSFT", nil, with(hdr{"Accept-Encoding": ae, "If-None-Match": tag}))
			if r.StatusCode != 304 || len(r.body) != 0 || r.Header.Get("X-Tokens-Charged") != "0" || r.Header.Get("Content-Encoding") != "" {
				t.Fatalf("If-None-Match %s, Accept-Encoding %q: %d %v", tag, ae, r.StatusCode, r.Header)
			}
		}
	}
	// POST answers the body alone, identity
	if r := e.do(t, "POST", "/api/screen/MSFT", nil, with(hdr{"Accept-Encoding": "gzip"})); r.StatusCode != 200 || r.Header.Get("Content-Encoding") != "" || !bytes.Equal(r.body, plain.body) {
		t.Fatalf("POST with gzip accepted: %d %v", r.StatusCode, r.Header)
	}
	// a quote is under the threshold: identity
	if r := e.do(t, "GET", "/api/quote/AAPL", nil, with(hdr{"Accept-Encoding": "gzip"})); r.StatusCode != 200 || r.Header.Get("Content-Encoding") != "" {
		t.Fatalf("quote with gzip accepted: %d %v", r.StatusCode, r.Header)
	}
}
