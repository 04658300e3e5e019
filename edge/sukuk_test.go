package edge_test

import (
	"testing"

	"github.com/shariah-screen/shariah/account"
)

func TestSukukEndpoints(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))

	r := e.do(t, "GET", "/api/sukuk/search", nil, k)
	m := r.json(t)
	if r.StatusCode != 200 || m["total"].(float64) != 10 || m["limit"].(float64) != 100 {
		t.Fatalf("search: %d %s", r.StatusCode, r.body)
	}
	r = e.do(t, "GET", "/api/sukuk/search?structure=wakala&currency=usd&maturity_from=2028-01-01&maturity_to=2028-12-31", nil, k)
	if m = r.json(t); m["total"].(float64) != 1 || m["results"].([]any)[0].(map[string]any)["isin"] != "XS0000000058" {
		t.Fatalf("filtered search: %s", r.body)
	}
	r = e.do(t, "GET", "/api/sukuk/search?limit=3&offset=9", nil, k)
	if m = r.json(t); len(m["results"].([]any)) != 1 || m["total"].(float64) != 10 {
		t.Fatalf("paging: %s", r.body)
	}
	for _, bad := range []string{"?limit=501", "?limit=0", "?offset=-1", "?structure=bond", "?maturity_from=2028-13-01", "?maturity_from=2030-01-01&maturity_to=2029-01-01"} {
		if r = e.do(t, "GET", "/api/sukuk/search"+bad, nil, k); r.StatusCode != 422 {
			t.Errorf("%s: %d", bad, r.StatusCode)
		}
	}

	// Ijarah with a purchase undertaking at par: compliant before Standard 62, questionable under the draft.
	r = e.do(t, "GET", "/api/sukuk/xs0000000025", nil, k)
	m = r.json(t)
	pre, post := m["disposition_pre_62"].(map[string]any), m["disposition_post_62"].(map[string]any)
	if r.StatusCode != 200 || pre["status"] != "compliant" || post["status"] != "questionable" || m["illustrative"] != true || len(m["methodology_grid"].([]any)) == 0 {
		t.Fatalf("ijarah at par: %s", r.body)
	}
	// Structure attributes unknown: insufficient data naming them, nothing guessed.
	r = e.do(t, "GET", "/api/sukuk/XS0000000108", nil, k)
	post = r.json(t)["disposition_post_62"].(map[string]any)
	if post["status"] != "insufficient_data" || len(post["missing_attributes"].([]any)) == 0 {
		t.Fatalf("unknown attributes: %s", r.body)
	}
	if r = e.do(t, "GET", "/api/sukuk/XS0000000026", nil, k); r.StatusCode != 422 {
		t.Fatalf("bad check digit: %d", r.StatusCode)
	}
	if r = e.do(t, "GET", "/api/sukuk/US0378331005", nil, k); r.StatusCode != 404 {
		t.Fatalf("valid but unknown ISIN: %d", r.StatusCode)
	}

	r = e.do(t, "GET", "/api/sukuk/issuer/5493000EXSOV0000A191", nil, k)
	if m = r.json(t); r.StatusCode != 200 || m["total"].(float64) != 3 {
		t.Fatalf("issuer: %d %s", r.StatusCode, r.body)
	}
	if r = e.do(t, "GET", "/api/sukuk/issuer/5493000EXSOV0000A192", nil, k); r.StatusCode != 422 {
		t.Fatalf("bad LEI check digits: %d", r.StatusCode)
	}
	if r = e.do(t, "GET", "/api/sukuk/issuer/HWUPKR0MPOU8FGXBT394", nil, k); r.StatusCode != 404 {
		t.Fatalf("valid LEI without sukuk: %d", r.StatusCode)
	}
}

// TestSukukPortfolioImpactHandComputed: asset-backed 100 (compliant before and after), ijarah at par 200
// (compliant, then questionable), mudarabah with a fixed return 700 (compliant, then non-compliant), and
// an ISIN not in the database. Before: 1000 compliant (100%). After: 100 compliant (10%), 200
// questionable (20%), 700 non-compliant (70%); 2 instruments change; 900 at stake.
func TestSukukPortfolioImpactHandComputed(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	body := `{"holdings":[{"isin":"XS0000000017","nominal":100},{"isin":"XS0000000025","market_value":200},
		{"isin":"XS0000000074","nominal":700},{"isin":"US0378331005","nominal":50}]}`
	r := e.do(t, "POST", "/api/sukuk/portfolio-impact", body, k)
	if r.StatusCode != 200 {
		t.Fatalf("impact: %d %s", r.StatusCode, r.body)
	}
	m := r.json(t)
	pre, post := m["pre"].(map[string]any), m["post"].(map[string]any)
	bucket := func(s map[string]any, name string) (float64, float64) {
		b := s[name].(map[string]any)
		return b["value"].(float64), b["percent"].(float64)
	}
	if v, p := bucket(pre, "compliant"); v != 1000 || p != 100 || pre["total_value"].(float64) != 1000 {
		t.Fatalf("before: %v", pre)
	}
	for name, want := range map[string][2]float64{"compliant": {100, 10}, "questionable": {200, 20}, "non_compliant": {700, 70}} {
		if v, p := bucket(post, name); v != want[0] || p != want[1] {
			t.Fatalf("after, %s: %v %v (%v)", name, v, p, post)
		}
	}
	if m["changes"].(float64) != 2 || m["value_at_stake"].(float64) != 900 || len(m["not_found"].([]any)) != 1 {
		t.Fatalf("changes and stake: %s", r.body)
	}
	// Tokens: 2 per holding, capped at 50.
	if r.Header.Get("X-Tokens-Charged") != "8" {
		t.Fatalf("charged %s for 4 holdings", r.Header.Get("X-Tokens-Charged"))
	}
	for _, bad := range []string{`{"holdings":[]}`, `{"holdings":[{"isin":"XS0000000018","nominal":1}]}`, `{"holdings":[{"isin":"XS0000000017"}]}`,
		`{"holdings":[{"isin":"XS0000000017","nominal":-1}]}`, `{"holdings":[{"isin":"XS0000000017","nominal":1,"market_value":1}]}`} {
		if r = e.do(t, "POST", "/api/sukuk/portfolio-impact", bad, k); r.StatusCode != 422 {
			t.Errorf("%s: %d", bad, r.StatusCode)
		}
	}
}
