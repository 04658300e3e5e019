package edge_test

import (
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

func TestDisclaimersAndEducation(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	d := e.do(t, "GET", "/api/disclaimers", nil, nil)
	list := d.json(t)["disclaimers"].([]any)
	if d.StatusCode != 200 || len(list) != 6 || d.Header.Get("X-Tokens-Charged") != "" {
		t.Fatalf("disclaimers without a key: %d %d", d.StatusCode, len(list))
	}
	for _, id := range shariah.DisclaimerIDs {
		one := e.do(t, "GET", "/api/disclaimers/"+id, nil, nil).json(t)
		if one["id"] != id || one["version"] == "" || one["lang"] != "en" || one["text"] == "" || !strings.HasPrefix(one["url"].(string), "/legal/disclaimers#") {
			t.Fatalf("disclaimer %s: %v", id, one)
		}
	}
	if r := e.do(t, "GET", "/api/disclaimers/fatwa", nil, nil); r.StatusCode != 404 {
		t.Fatalf("unknown disclaimer: %d", r.StatusCode)
	}
	if r := e.do(t, "GET", "/legal/disclaimers", nil, nil); r.StatusCode != 200 || !strings.Contains(string(r.body), `id="zakat"`) {
		t.Fatalf("legal page: %d", r.StatusCode)
	}
	k := key(e.newKey(t, account.PlanFree))
	if r := e.do(t, "GET", "/api/education/glossary", nil, nil); r.StatusCode != 401 {
		t.Fatalf("education needs a key: %d", r.StatusCode)
	}
	g := e.do(t, "GET", "/api/education/glossary", nil, k)
	terms := g.json(t)["terms"].([]any)
	if len(terms) < 60 || g.Header.Get("X-Tokens-Charged") != "0" {
		t.Fatalf("glossary: %d terms", len(terms))
	}
	for _, q := range []string{"riba", "%D8%B1%D8%A8%D8%A7", "interest"} { // term, Arabic (ربا), definition
		res := e.do(t, "GET", "/api/education/glossary?q="+q, nil, k).json(t)
		if res["count"].(float64) < 1 {
			t.Errorf("glossary q=%s found nothing", q)
		}
	}
	ms := e.do(t, "GET", "/api/education/methodologies", nil, k).json(t)["methodologies"].([]any)
	if len(ms) != 6 {
		t.Fatalf("methodologies: %d", len(ms))
	}
	for _, id := range []string{"aaoifi", "sec", "djim", "msci", "ftse", "sp"} {
		r := e.do(t, "GET", "/api/education/methodologies/"+id, nil, k)
		m := r.json(t)
		if r.StatusCode != 200 || m["id"] != id || len(m["thresholds"].([]any)) == 0 {
			t.Fatalf("%s: %d %v", id, r.StatusCode, m)
		}
	}
	// thresholds come from the ruleset files: MSCI's debt is 33.33% in the spec ruleset
	msci := e.do(t, "GET", "/api/education/methodologies/msci", nil, k).json(t)
	if msci["thresholds"].([]any)[0].(map[string]any)["threshold_pct"] != "33.33" || len(msci["published_editions"].([]any)) < 2 {
		t.Fatalf("msci thresholds %v", msci["thresholds"])
	}
	if r := e.do(t, "GET", "/api/education/methodologies/hanafi", nil, k); r.StatusCode != 404 {
		t.Fatalf("unknown methodology: %d", r.StatusCode)
	}
	c := e.do(t, "GET", "/api/education/screening-criteria", nil, k).json(t)
	if c["financial_screening"].(map[string]any)["max_debt_to_total_assets"] != "30.00" {
		t.Fatalf("criteria %v", c["financial_screening"])
	}
	if p := e.do(t, "GET", "/api/education/purification", nil, k).json(t); len(p["sections"].([]any)) < 5 {
		t.Fatalf("purification guide %v", p)
	}
}
