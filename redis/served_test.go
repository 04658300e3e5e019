package redis

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"
	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/internal/testsvc"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

var testDisclaimers = []shariah.Disclaimer{{ID: "market_data", Version: "1", Lang: "en", Severity: "data", Text: "Delayed, not advice.", URL: "https://example.com/d"}}

func testQuote(sym string, price shariah.Price) market.Quote {
	pct := shariah.NewNumber(decimal.RequireFromString("1.25"))
	prev := price - 100
	vol := int64(1000)
	return market.Quote{Symbol: sym, Name: sym + " Inc.", Currency: "USD", Price: price, PreviousClose: &prev, ChangePercent: &pct,
		Open: &price, DayHigh: &price, DayLow: &price, Volume: &vol, AsOf: "2026-10-30", Source: shariah.SourceIllustrative, Delayed: true}
}

func testResult(sym string, at time.Time) screening.Result {
	yes := true
	return screening.Result{Symbol: sym, Name: sym + " Inc.", IsCompliant: &yes, ComplianceStatus: "COMPLIANT", OverallStatus: "COMPLIANT",
		Ruleset: screening.RulesetRef{Name: "spec"}, ScreenedAt: at, Disclaimers: testDisclaimers}
}

// The stored value is the record as JSON (readers that know nothing of the header decode it as before)
// and the served body by position; anything not laid out as written is not served as stored.
func TestServedValueLayout(t *testing.T) {
	t.Parallel()
	bodies := market.NewQuoteBodies(testDisclaimers)
	q := testQuote("AAPL", 150_000_000)
	sv, err := bodies.Serve(q)
	if err != nil {
		t.Fatal(err)
	}
	v := quoteValue(bodies.Variant(), sv, q.AsOf)
	variant, etag, at, rest, ok := parseServed(v)
	if !ok || string(variant) != bodies.Variant() || string(etag) != sv.ETag || string(at) != `"2026-10-30"` || !bytes.Equal(append([]byte{'{'}, rest...), sv.Body) {
		t.Fatalf("quote value %s: %v %s %s %s", v, ok, variant, etag, at)
	}
	back, err := decodeQuote(v)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(q)
	if got, _ := json.Marshal(back); !bytes.Equal(got, want) {
		t.Fatalf("the stored value does not decode as the quote:\n%s\n%s", got, want)
	}
	if quoteValue(bodies.Variant(), sv, `2026-10-30","x":"`) != nil {
		t.Fatal("an as-of date that cannot stand in the header was framed")
	}

	r := testResult("MSFT", time.Date(2026, 11, 2, 10, 4, 5, 123456789, time.UTC))
	rsv, err := screening.ServeResult(r)
	if err != nil {
		t.Fatal(err)
	}
	rv := resultValue(rsv, 42, r.ScreenedAt)
	st, ok := parseResultValue(rv)
	if !ok || !bytes.Equal(st.Body, rsv.Body) || st.ETag != rsv.ETag || st.Version != 42 || !st.ScreenedAt.Equal(r.ScreenedAt) {
		t.Fatalf("result value %s: %v %+v", rv, ok, st)
	}
	var sr storedResult
	if err := json.Unmarshal(rv, &sr); err != nil || sr.Version != 42 || !sr.Result.ScreenedAt.Equal(r.ScreenedAt) || sr.Result.Symbol != "MSFT" {
		t.Fatalf("the stored value does not decode as the result: %v %+v", err, sr)
	}

	plain, _ := json.Marshal(storedResult{Version: 42, Result: r})
	other := bytes.Replace(rv, []byte(screening.ResultVariant), []byte("r0-old"), 1)
	reordered, _ := json.Marshal(map[string]any{"_served": screening.ResultVariant, "_etag": rsv.ETag, "_at": 1, "version": 42, "result": r})
	for name, bad := range map[string][]byte{
		"plain record (older binary)": plain,
		"another variant":             other,
		"members reordered":           reordered,
		"cut in the header":           rv[:20],
		"no version":                  bytes.Replace(rv, []byte(`"version":42,`), nil, 1),
		"a negative time":             bytes.Replace(rv, []byte(`"_at":`), []byte(`"_at":-`), 1),
	} {
		if _, ok := parseResultValue(bad); ok {
			t.Errorf("%s: parsed as a served result: %s", name, bad)
		}
	}
	for _, bad := range []string{``, `{}`, `{"_served":"x`, `{"_served":"x","_etag":"y`, `{"_served":"x","_etag":"y","_at":}`, `{"_served":"x","_etag":"y","_at":"z"}`} {
		if _, _, _, _, ok := parseServed([]byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// testClient opens a client of a Redis of the test's own, closed when the test ends.
func testClient(t *testing.T) rueidis.Client {
	t.Helper()
	c, err := Open(testsvc.MustRedis(t).RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// A quote and a result are read as their stored bodies; a record stored without one (an older binary)
// is served encoded and backfilled, one under another variant served encoded and left as it is, and a backfill never overwrites a record
// written since it was read.
func TestServedReadsAndBackfill(t *testing.T) {
	t.Parallel()
	c := testClient(t)
	checkServedStores(t, c)
}

// The same on a Redis Cluster: a record, its body and the backfill script are in one key.
func TestServedReadsOnRedisCluster(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a 3-node cluster")
	}
	c, err := Open(testsvc.MustRedisCluster(t, 3).URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checkServedStores(t, c)
}

func checkServedStores(t *testing.T, c rueidis.Client) {
	t.Helper()
	ctx := context.Background()
	bodies := market.NewQuoteBodies(testDisclaimers)
	writer := NewRefStore(c).WithQuoteBodies(bodies)
	raw := func(key string) []byte {
		t.Helper()
		b, err := c.Do(ctx, c.B().Get().Key(key).Build()).AsBytes()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, sym := range []string{"AAPL", "MSFT", "7203.T", "BRK-B", "2222.SR"} {
		q := testQuote(sym, 123_450_000)
		if err := writer.PutQuote(ctx, q); err != nil {
			t.Fatal(err)
		}
		want, _ := bodies.Serve(q)
		got, ok, err := writer.ServedQuote(ctx, sym, bodies)
		if err != nil || !ok || !bytes.Equal(got.Body, want.Body) || got.ETag != want.ETag || got.AsOf != q.AsOf {
			t.Fatalf("%s: %v %v %+v, want %s", sym, ok, err, got, want.Body)
		}
		if back, ok, err := writer.Quote(ctx, sym); err != nil || !ok || back.Disclaimers != nil || back.Price != q.Price {
			t.Fatalf("%s: Quote of a served value: %+v %v %v", sym, back, ok, err)
		}
	}
	if _, ok, err := writer.ServedQuote(ctx, "NOPE", bodies); ok || err != nil {
		t.Fatalf("absent quote: %v %v", ok, err)
	}

	// A quote stored alone (as an older binary does) is served encoded and backfilled.
	q := testQuote("KO", 60_000_000)
	if err := NewRefStore(c).PutQuote(ctx, q); err != nil {
		t.Fatal(err)
	}
	plain := raw(quoteKey("KO"))
	if bytes.HasPrefix(plain, []byte(servedPrefix)) {
		t.Fatalf("a store without the quote bodies framed the quote: %s", plain)
	}
	want, _ := bodies.Serve(q)
	got, ok, err := writer.ServedQuote(ctx, "KO", bodies)
	if err != nil || !ok || !bytes.Equal(got.Body, want.Body) || got.ETag != want.ETag {
		t.Fatalf("plain quote served %s, want %s (%v)", got.Body, want.Body, err)
	}
	if v := raw(quoteKey("KO")); !bytes.Equal(v, quoteValue(bodies.Variant(), want, q.AsOf)) {
		t.Fatalf("not backfilled: %s", v)
	}
	// Under another variant (other disclaimers, as another binary during a rolling deploy): the reader's
	// own body, and the stored value left as it is (two binaries must not overwrite each other on reads).
	others := market.NewQuoteBodies(nil)
	if others.Variant() == bodies.Variant() {
		t.Fatal("the disclaimers do not enter the variant")
	}
	got, ok, err = writer.ServedQuote(ctx, "KO", others)
	if wantOther, _ := others.Serve(q); err != nil || !ok || !bytes.Equal(got.Body, wantOther.Body) || strings.Contains(string(got.Body), "disclaimers") {
		t.Fatalf("other variant served %s (%v)", got.Body, err)
	}
	if v, _, _, _, _ := parseServed(raw(quoteKey("KO"))); string(v) != bodies.Variant() {
		t.Fatalf("stored variant %s after another variant's read, want %s kept", v, bodies.Variant())
	}
	// A backfill from a stale read changes nothing.
	newer := testQuote("KO", 61_000_000)
	if err := writer.PutQuote(ctx, newer); err != nil {
		t.Fatal(err)
	}
	before := raw(quoteKey("KO"))
	backfill(ctx, c, quoteKey("KO"), plain, []byte(`{"symbol":"KO"}`))
	if after := raw(quoteKey("KO")); !bytes.Equal(after, before) {
		t.Fatalf("a stale backfill overwrote the newer quote: %s", after)
	}

	// Results.
	results := NewResultStore(c)
	at := time.Date(2026, 11, 2, 10, 4, 5, 987654321, time.UTC)
	for i, sym := range []string{"AAPL", "MSFT", "7203.T"} {
		r := testResult(sym, at.Add(time.Duration(i)*time.Second))
		if err := results.PutResult(ctx, r, 7); err != nil {
			t.Fatal(err)
		}
		want, _ := screening.ServeResult(r)
		st, ok, err := results.ServedResult(ctx, sym, "spec")
		if err != nil || !ok || !bytes.Equal(st.Body, want.Body) || st.ETag != want.ETag || st.Version != 7 || !st.ScreenedAt.Equal(r.ScreenedAt) {
			t.Fatalf("%s: %v %v %+v", sym, ok, err, st)
		}
		back, v, ok, err := results.Result(ctx, sym, "spec")
		if err != nil || !ok || v != 7 || !back.ScreenedAt.Equal(r.ScreenedAt) {
			t.Fatalf("%s: Result of a served value: %v %v %v", sym, v, ok, err)
		}
	}
	if _, ok, err := results.ServedResult(ctx, "NOPE", "spec"); ok || err != nil {
		t.Fatalf("absent result: %v %v", ok, err)
	}
	// Stored by an older binary: served encoded (after upgradeResult, as Result reads it), and backfilled.
	r := testResult("JPM", at)
	old, _ := json.Marshal(storedResult{Version: 3, Result: r})
	if err := c.Do(ctx, c.B().Set().Key(resultKey("JPM", "spec")).Value(string(old)).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	norm, _, _, _ := results.Result(ctx, "JPM", "spec")
	wantR, _ := screening.ServeResult(norm)
	st, ok, err := results.ServedResult(ctx, "JPM", "spec")
	if err != nil || !ok || !bytes.Equal(st.Body, wantR.Body) || st.Version != 3 || !st.ScreenedAt.Equal(at) {
		t.Fatalf("older result served %s (%v), want %s", st.Body, err, wantR.Body)
	}
	if st2, ok := parseResultValue(raw(resultKey("JPM", "spec"))); !ok || !bytes.Equal(st2.Body, wantR.Body) || st2.Version != 3 {
		t.Fatalf("older result not backfilled: %s", raw(resultKey("JPM", "spec")))
	}
}
