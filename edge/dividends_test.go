package edge_test

import (
	"math"
	"testing"

	"github.com/shariah-screen/shariah/account"
)

func TestDividendsAndPurification(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))

	r := e.do(t, "GET", "/api/dividends/AAPL", nil, k)
	m := r.json(t)
	ds := m["dividends"].([]any)
	if r.StatusCode != 200 || len(ds) == 0 || int(m["count"].(float64)) != len(ds) {
		t.Fatalf("dividends: %d %s", r.StatusCode, r.body)
	}
	r = e.do(t, "GET", "/api/dividends/AAPL/purification-rate", nil, k)
	m = r.json(t)
	rate, ok := m["purification_rate_fraction"].(float64)
	if pct, _ := m["purification_rate"].(float64); r.StatusCode != 200 || !ok || rate < 0 || rate > 0.05 || math.Abs(pct-rate*100) > 1e-9 {
		t.Fatalf("purification rate: %d %s", r.StatusCode, r.body)
	}
	r = e.do(t, "GET", "/api/dividends/AAPL/purification?shares=100", nil, k)
	m = r.json(t)
	pays := m["payments"].([]any)
	if len(pays) != len(ds) {
		t.Fatalf("payments: %s", r.body)
	}
	p := pays[0].(map[string]any)
	dps, per, amt := p["dividend_per_share"].(float64), p["purify_per_share"].(float64), p["amount"].(float64)
	if d := per - dps*rate; d > 1e-6 || d < -1e-6 {
		t.Fatalf("purify per share %v != %v x %v", per, dps, rate)
	}
	if d := amt - per*100; d > 0.006 || d < -0.006 {
		t.Fatalf("amount %v != 100 x %v", amt, per)
	}
	r = e.do(t, "GET", "/api/dividends/AAPL/purification?method=aaoifi&shares=10", nil, k)
	if m = r.json(t); r.StatusCode != 200 || m["method"] != "aaoifi" || m["periods"] == nil {
		t.Fatalf("aaoifi method: %d %s", r.StatusCode, r.body)
	}
	for _, bad := range []string{"?shares=-1", "?shares=abc", "?method=zakat"} {
		if r = e.do(t, "GET", "/api/dividends/AAPL/purification"+bad, nil, k); r.StatusCode != 422 {
			t.Fatalf("%s: %d", bad, r.StatusCode)
		}
	}
}
