package edge_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/shariah-screen/shariah/account"
)

// keyShape is a new key as the clients check it (the research agent: ^ht_[A-Za-z0-9]+).
var keyShape = regexp.MustCompile(`^ht_[0-9A-Za-z]{40}$`)

// TestKeyLifecycle: generate, use, regenerate (usage carried), revoke; the full key never appears in
// a log line or in any response but the one that issued it.
func TestKeyLifecycle(t *testing.T) {
	t.Parallel()
	e := setup(t, options{costs: map[string]int{"GET /api/keys/plans": 3}})
	email := uniqueEmail()
	r := e.do(t, "POST", "/api/keys/generate", map[string]any{"email": "  " + email + " "}, nil)
	if r.StatusCode != 200 {
		t.Fatalf("generate: %d %s", r.StatusCode, r.body)
	}
	g := r.json(t)
	full := g["api_key"].(string)
	if !keyShape.MatchString(full) || g["key_prefix"] != full[:12] || g["plan"] != "free" || g["tokens_limit"] != 50.0 || g["email"] != email {
		t.Fatalf("issued %v", g)
	}
	k := account.IssuedKey{Key: full}
	if r := e.do(t, "GET", "/api/keys/plans", nil, key(k)); r.StatusCode != 200 || r.Header.Get("X-Tokens-Charged") != "3" || r.Header.Get("X-Tokens-Remaining") != "47" {
		t.Fatalf("plans: %d %v", r.StatusCode, r.Header)
	}
	me := e.do(t, "GET", "/api/auth/me", nil, key(k))
	m := me.json(t)
	if m["plan"] != "free" || m["key_prefix"] != full[:12] || m["quota"].(map[string]any)["tokens_used"] != 3.0 || me.Header.Get("X-Tokens-Charged") != "0" {
		t.Fatalf("me: %v", m)
	}
	// Regenerate: the old key stops, the new one keeps plan and the month's usage.
	rg := e.do(t, "POST", "/api/auth/me/regenerate", nil, key(k))
	if rg.StatusCode != 200 {
		t.Fatalf("regenerate: %d %s", rg.StatusCode, rg.body)
	}
	n := rg.json(t)
	newKey := account.IssuedKey{Key: n["api_key"].(string)}
	if newKey.Key == full || n["replaces"] != full[:12] || n["plan"] != "free" {
		t.Fatalf("regenerated %v", n)
	}
	if r := e.do(t, "GET", "/api/auth/me", nil, key(k)); r.StatusCode != 403 || r.errCode(t) != "API_KEY_DEACTIVATED" {
		t.Fatalf("old key after regenerate: %d", r.StatusCode)
	}
	if q := e.do(t, "GET", "/api/auth/me", nil, key(newKey)).json(t)["quota"].(map[string]any); q["tokens_used"] != 3.0 {
		t.Fatalf("usage not carried: %v", q)
	}
	// Revoke needs proof of ownership: another account's key cannot revoke it.
	other := e.newKey(t, account.PlanPro)
	prefix := newKey.Key[:12]
	if r := e.do(t, "POST", "/api/keys/revoke", map[string]any{"key_prefix": prefix}, key(other)); r.StatusCode != 404 {
		t.Fatalf("revoke by a stranger: %d %s", r.StatusCode, r.body)
	}
	if r := e.do(t, "POST", "/api/keys/revoke", map[string]any{"key_prefix": prefix}, nil); r.StatusCode != 401 || r.errCode(t) != "API_KEY_REQUIRED" {
		t.Fatalf("revoke without any key: %d %s", r.StatusCode, r.body)
	}
	// Presenting the key itself in the body works too.
	rv := e.do(t, "POST", "/api/keys/revoke", map[string]any{"api_key": newKey.Key}, nil)
	if rv.StatusCode != 200 || rv.json(t)["revoked"] != true || rv.json(t)["key_prefix"] != prefix {
		t.Fatalf("revoke: %d %s", rv.StatusCode, rv.body)
	}
	if r := e.do(t, "GET", "/api/keys/plans", nil, key(newKey)); r.StatusCode != 403 {
		t.Fatalf("revoked key: %d", r.StatusCode)
	}
	// After the revoke, the same email may have a new free key, which keeps the month's usage.
	again := e.do(t, "POST", "/api/keys/generate", map[string]any{"email": email}, nil)
	if again.StatusCode != 200 {
		t.Fatalf("generate after revoke: %d %s", again.StatusCode, again.body)
	}
	k3 := account.IssuedKey{Key: again.json(t)["api_key"].(string)}
	if q := e.do(t, "GET", "/api/auth/me", nil, key(k3)).json(t)["quota"].(map[string]any); q["tokens_used"] != 3.0 {
		t.Fatalf("a re-generated free key got a fresh allowance: %v", q)
	}
	logs := e.logs.String()
	for _, secret := range []string{full, newKey.Key, k3.Key} {
		if contains(logs, secret) || contains(logs, account.HashKey(secret)) {
			t.Fatal("a full key or its hash appears in the logs")
		}
	}
	if !contains(logs, `"key_prefix":"`+full[:12]+`"`) {
		t.Fatal("access log does not carry the key prefix")
	}
}

// TestHTAndLegacySHRKeys: keys are issued ht_ (the clients' form); a shr_ key issued before keeps
// authenticating, is regenerated (into an ht_ key that carries its usage) and revoked by its prefix,
// as an ht_ key is.
func TestHTAndLegacySHRKeys(t *testing.T) {
	t.Parallel()
	e := setup(t, options{costs: map[string]int{"GET /api/keys/plans": 3}})
	legacyKeys := &account.Keys{Store: e.store, Plans: e.plans, Prefix: account.LegacyKeyPrefix} // as issued before issue 27
	issue := func(ks *account.Keys) account.IssuedKey {
		k, err := ks.Create(context.Background(), uniqueEmail(), account.PlanFree)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for _, c := range []struct {
		name, prefix string
		k            account.IssuedKey
	}{{"ht_", "ht_", issue(e.keys)}, {"shr_", "shr_", issue(legacyKeys)}} {
		t.Run(c.name, func(t *testing.T) {
			k := c.k
			if !strings.HasPrefix(k.Key, c.prefix) || k.Record.Prefix != k.Key[:12] {
				t.Fatalf("issued %s (prefix %s)", k.Key[:6], k.Record.Prefix)
			}
			// Authenticates: metered, and shown by its public prefix.
			if r := e.do(t, "GET", "/api/keys/plans", nil, key(k)); r.StatusCode != 200 || r.Header.Get("X-Tokens-Charged") != "3" {
				t.Fatalf("plans with a %s key: %d %s", c.prefix, r.StatusCode, r.body)
			}
			if m := e.do(t, "GET", "/api/auth/me", nil, key(k)).json(t); m["key_prefix"] != k.Key[:12] {
				t.Fatalf("me: %v", m)
			}
			// Regenerates into an ht_ key, which replaces it and carries the month's usage.
			rg := e.do(t, "POST", "/api/auth/me/regenerate", nil, key(k))
			if rg.StatusCode != 200 {
				t.Fatalf("regenerate: %d %s", rg.StatusCode, rg.body)
			}
			n := rg.json(t)
			repl := account.IssuedKey{Key: n["api_key"].(string)}
			if !keyShape.MatchString(repl.Key) || n["replaces"] != k.Key[:12] || n["key_prefix"] != repl.Key[:12] {
				t.Fatalf("regenerated: %v", n)
			}
			if r := e.do(t, "GET", "/api/auth/me", nil, key(k)); r.StatusCode != 403 || r.errCode(t) != "API_KEY_DEACTIVATED" {
				t.Fatalf("the %s key after regenerate: %d %s", c.prefix, r.StatusCode, r.body)
			}
			if q := e.do(t, "GET", "/api/auth/me", nil, key(repl)).json(t)["quota"].(map[string]any); q["tokens_used"] != 3.0 {
				t.Fatalf("usage not carried from the %s key: %v", c.prefix, q)
			}
			// Revoke by public prefix, the key presenting itself.
			other := issue(legacyKeys)
			if c.prefix == "ht_" {
				other = issue(e.keys)
			}
			rv := e.do(t, "POST", "/api/keys/revoke", map[string]any{"key_prefix": other.Key[:12]}, key(other))
			if rv.StatusCode != 200 || rv.json(t)["revoked"] != true || rv.json(t)["key_prefix"] != other.Key[:12] {
				t.Fatalf("revoke a %s key: %d %s", c.prefix, rv.StatusCode, rv.body)
			}
			if r := e.do(t, "GET", "/api/keys/plans", nil, key(other)); r.StatusCode != 403 || r.errCode(t) != "API_KEY_DEACTIVATED" {
				t.Fatalf("revoked %s key: %d %s", c.prefix, r.StatusCode, r.body)
			}
		})
	}
	// An unknown key of either prefix is 401, as a malformed one is.
	for _, bad := range []string{"ht_" + strings.Repeat("Z", 40), "shr_" + strings.Repeat("Z", 40), "ht_short", "xyzw_" + strings.Repeat("Z", 40)} {
		if r := e.do(t, "GET", "/api/auth/me", nil, hdr{"X-API-Key": bad}); r.StatusCode != 401 || r.errCode(t) != "INVALID_API_KEY" {
			t.Fatalf("%s...: %d %s", bad[:6], r.StatusCode, r.body)
		}
	}
	// A malformed prefix to revoke is 422 naming the form.
	if r := e.do(t, "POST", "/api/keys/revoke", map[string]any{"key_prefix": "ht_abc"}, key(issue(e.keys))); r.StatusCode != 422 || !contains(string(r.body), "ht_") {
		t.Fatalf("malformed prefix: %d %s", r.StatusCode, r.body)
	}
}

// TestDeprecatedKeyInPathRoutes behave as their replacements, with Deprecation and Link headers, and
// never log the key from the path.
func TestDeprecatedKeyInPathRoutes(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := e.newKey(t, account.PlanStarter)
	cases := map[string]string{
		"/api/keys/" + k.Key + "/usage":        "/api/auth/me",
		"/api/keys/" + k.Key + "/usage/daily":  "/api/auth/me/usage/daily",
		"/api/keys/" + k.Key + "/usage/recent": "/api/auth/me/usage/recent",
	}
	for old, repl := range cases {
		r := e.do(t, "GET", old, nil, nil)
		if r.StatusCode != 200 || r.Header.Get("Deprecation") == "" || r.Header.Get("Link") != "<http://example.com"+repl+`>; rel="successor-version"` {
			t.Fatalf("%s: %d %v", repl, r.StatusCode, r.Header)
		}
		n := e.do(t, "GET", repl, nil, key(k))
		if n.Header.Get("Deprecation") != "" {
			t.Fatalf("%s carries Deprecation", repl)
		}
		if repl == "/api/auth/me" && r.json(t)["key_prefix"] != n.json(t)["key_prefix"] {
			t.Fatalf("deprecated body differs: %s vs %s", r.body, n.body)
		}
	}
	rg := e.do(t, "POST", "/api/keys/"+k.Key+"/regenerate", nil, nil)
	if rg.StatusCode != 200 || rg.Header.Get("Deprecation") == "" || rg.json(t)["plan"] != "starter" {
		t.Fatalf("deprecated regenerate: %d %s", rg.StatusCode, rg.body)
	}
	if r := e.do(t, "GET", "/api/keys/"+k.Key+"/usage", nil, nil); r.StatusCode != 403 {
		t.Fatalf("old key in path after regenerate: %d", r.StatusCode)
	}
	if r := e.do(t, "GET", "/api/keys/not-a-key/usage", nil, nil); r.StatusCode != 401 || r.errCode(t) != "INVALID_API_KEY" {
		t.Fatalf("bad key in path: %d", r.StatusCode)
	}
	if contains(e.logs.String(), k.Key) {
		t.Fatal("the key from the path was logged")
	}
}

func TestPlansAndTokenCosts(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := e.newKey(t, account.PlanFree)
	plans := e.do(t, "GET", "/api/keys/plans", nil, key(k)).json(t)["plans"].([]any)
	want := map[string][3]any{
		"free": {50.0, "0.00", nil}, "starter": {2500.0, "19.00", "0.01"}, "pro": {15000.0, "49.00", "0.008"}, "enterprise": {-1.0, "199.00", nil},
	}
	if len(plans) != 4 {
		t.Fatalf("plans: %v", plans)
	}
	for _, p := range plans {
		p := p.(map[string]any)
		w, ok := want[p["id"].(string)]
		if !ok || p["tokens_per_month"] != w[0] || p["price_usd_month"] != w[1] || p["overage_usd_per_token"] != w[2] {
			t.Fatalf("plan %v, want %v", p, w)
		}
	}
	costs := e.do(t, "GET", "/api/keys/token-costs", nil, key(k)).json(t)["costs"].([]any)
	byRoute := map[string]float64{}
	for _, c := range costs {
		c := c.(map[string]any)
		byRoute[c["method"].(string)+" "+c["path"].(string)] = c["tokens"].(float64)
	}
	// Every API route the edge serves is in the table it publishes (and charges from).
	for _, r := range e.srv.Routes() {
		if contains(r, " /api/") {
			if _, ok := byRoute[r]; !ok {
				t.Errorf("route %s missing from token-costs", r)
			}
		}
	}
	for r, want := range map[string]float64{"GET /api/health": 0, "GET /api/quote/{symbol}": 2, "GET /api/database/search": 1, "POST /api/screen/{symbol}": 5, "POST /api/screen-bulk": 50} {
		if byRoute[r] != want {
			t.Errorf("%s costs %v, want %v", r, byRoute[r], want)
		}
	}
}
