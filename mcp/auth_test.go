package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/internal/mcptest"
	"github.com/shariah-screen/shariah/mcp"
)

// TestHTTPKeyRequirementAndMetering serves Streamable HTTP with the key requirement on: no key is 401;
// with a Free key each call is charged its REST cost, a failing call is refunded, and past the Free
// allowance a call is an isError result naming the quota.
func TestHTTPKeyRequirementAndMetering(t *testing.T) {
	t.Parallel()
	h := start(t)
	store, keys := h.svc.KeyStore, h.svc.Keys
	d := h.d
	d.Auth = h.auth(func(c *config.Config) { c.MCPRequireKey = true })
	srv := httptest.NewServer(mcp.Handler(mcp.New(d), d.Auth, config.HTTPLimits{}))
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no key: %v %v", resp.StatusCode, err)
	}
	resp.Body.Close()

	k, err := keys.GenerateFree(context.Background(), "mcp-user@example.com")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewStreamableHttpClient(srv.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"X-API-Key": k.Key}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	mcptest.Connect(t, c)
	used := func() int64 {
		st, err := store.MeterState(ctx, k.Record.Hash, account.PeriodOf(timeNow()))
		if err != nil {
			t.Fatal(err)
		}
		return st.Used
	}
	call := func(name string, args map[string]any) *mcpgo.CallToolResult {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call("get_quote", map[string]any{"symbol": "AAPL"}); res.IsError || used() != 2 {
		t.Fatalf("quote: %v, used %d", res.IsError, used())
	}
	if res := call("screen_stock", map[string]any{"symbol": "NOPE123"}); !res.IsError || used() != 2 {
		t.Fatalf("a failing call must be refunded: used %d", used())
	}
	// Free: 50 tokens. A fresh screening costs 10, a cached one 5: spend the rest, then be refused.
	var refused *mcpgo.CallToolResult
	for i := 0; i < 20; i++ {
		if res := call("screen_stock", map[string]any{"symbol": "MSFT"}); res.IsError {
			refused = res
			break
		}
	}
	if refused == nil || !strings.Contains(text(refused), shariah.EQUOTA) || used() > 50 {
		t.Fatalf("past the allowance: %v, used %d", refused, used())
	}
}

// httpClient connects an MCP client over Streamable HTTP (or SSE) with the given headers and initializes.
func httpClient(t *testing.T, url string, sse bool, headers map[string]string) *client.Client {
	t.Helper()
	var c *client.Client
	var err error
	if sse {
		c, err = client.NewSSEMCPClient(url+"/sse", transport.WithHeaders(headers))
	} else {
		c, err = client.NewStreamableHttpClient(url+"/mcp", transport.WithHTTPHeaders(headers))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	mcptest.Connect(t, c)
	return c
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// TestHTTPKeylessIsReadOnlyAndKeysMeter: with keys not required (the default), a keyless HTTP caller
// (Streamable HTTP and SSE) runs read-only tools but not bulk triggers, cancels, force_refresh or
// watchlists; an X-API-Key still identifies the caller: its calls are metered at the REST cost and its
// watchlists are its user's; an unknown key is 401 and a revoked one 403. With SHARIAH_MCP_KEYLESS=full
// a keyless caller may also change state, except the watchlists.
func TestHTTPKeylessIsReadOnlyAndKeysMeter(t *testing.T) {
	t.Parallel()
	h := start(t)
	ctx := context.Background()
	store, keys := h.svc.KeyStore, h.svc.Keys
	d := h.d
	d.Auth = h.auth(func(c *config.Config) { c.MCPKeyless = config.KeylessReadOnly })
	srv := httptest.NewServer(mcp.Handler(mcp.New(d), d.Auth, config.HTTPLimits{}))
	t.Cleanup(srv.Close) // after the clients' cleanups (LIFO): their streams end first

	refused := func(res *mcpgo.CallToolResult) bool {
		return res.IsError && strings.Contains(text(res), shariah.EKEYREQUIRED)
	}
	for _, sse := range []bool{false, true} {
		c := httpClient(t, srv.URL, sse, nil)
		if res := callTool(t, c, "get_quote", map[string]any{"symbol": "AAPL"}); res.IsError {
			t.Fatalf("keyless read-only tool (sse %v): %s", sse, text(res))
		}
		if res := callTool(t, c, "bulk_screen", map[string]any{"action": "list_indices"}); res.IsError {
			t.Fatalf("keyless read action of bulk_screen (sse %v): %s", sse, text(res))
		}
		for _, call := range []struct {
			name string
			args map[string]any
		}{
			{"bulk_screen", map[string]any{"action": "trigger", "index_name": "SP500"}},
			{"bulk_screen", map[string]any{"action": "cancel", "run_id": "whatever"}},
			{"screen_stock", map[string]any{"symbol": "MSFT", "force_refresh": true}},
			{"manage_watchlist", map[string]any{"action": "create", "name": "Mine", "symbols": []any{"AAPL"}}},
			{"manage_watchlist", map[string]any{"action": "list"}},
		} {
			if res := callTool(t, c, call.name, call.args); !refused(res) {
				t.Fatalf("keyless %s %v (sse %v) ran: %s", call.name, call.args, sse, text(res))
			}
		}
	}
	if runs, _, err := d.Bulk.Runs.Runs(ctx, bulk.Filter{}, 0, 10); err != nil || len(runs) != 0 {
		t.Fatalf("a keyless caller started a run: %v %v", runs, err)
	}
	if lists, err := d.Watchlists.Store.Watchlists(ctx, mcp.LocalUser); err != nil || len(lists) != 0 {
		t.Fatalf("keyless watchlists stored for the shared local user: %v %v", lists, err)
	}

	// With a key: metered at the REST cost, watchlists of the key's user.
	k, err := keys.GenerateFree(ctx, "keyless-mode@example.com")
	if err != nil {
		t.Fatal(err)
	}
	used := func() int64 {
		st, err := store.MeterState(ctx, k.Record.Hash, account.PeriodOf(timeNow()))
		if err != nil {
			t.Fatal(err)
		}
		return st.Used
	}
	for _, sse := range []bool{false, true} {
		c := httpClient(t, srv.URL, sse, map[string]string{"X-API-Key": k.Key})
		before := used()
		if res := callTool(t, c, "get_quote", map[string]any{"symbol": "AAPL"}); res.IsError || used() != before+2 {
			t.Fatalf("keyed get_quote (sse %v): %s, used %d -> %d, want +2 (POST /api/quotes/batch, one symbol)", sse, text(res), before, used())
		}
	}
	c := httpClient(t, srv.URL, false, map[string]string{"X-API-Key": k.Key})
	if res := callTool(t, c, "manage_watchlist", map[string]any{"action": "create", "name": "Keyed", "symbols": []any{"AAPL"}}); res.IsError {
		t.Fatalf("keyed watchlist: %s", text(res))
	}
	if lists, err := d.Watchlists.Store.Watchlists(ctx, k.Record.UserID); err != nil || len(lists) != 1 || lists[0].Name != "Keyed" {
		t.Fatalf("the key's user's watchlists: %v %v", lists, err)
	}

	post := func(key string) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, bad := range []string{"nonsense", "shr_" + strings.Repeat("A", 40), "ht_" + strings.Repeat("A", 40)} {
		if resp := post(bad); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("bad key %q in keyless mode: %d", bad, resp.StatusCode)
		}
	}
	// New keys are ht_; a shr_ key issued before the prefix changed still identifies its caller.
	legacy, err := (&account.Keys{Store: store, Plans: h.env.Plans, Prefix: account.LegacyKeyPrefix}).Create(ctx, "legacy-mcp@example.com", account.PlanFree)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k.Key, "ht_") || !strings.HasPrefix(legacy.Key, "shr_") {
		t.Fatalf("keys %s..., %s...", k.Record.Prefix, legacy.Record.Prefix)
	}
	lc := httpClient(t, srv.URL, false, map[string]string{"X-API-Key": legacy.Key})
	if res := callTool(t, lc, "get_quote", map[string]any{"symbol": "AAPL"}); res.IsError {
		t.Fatalf("get_quote with a shr_ key: %s", text(res))
	}
	if st, err := store.MeterState(ctx, legacy.Record.Hash, account.PeriodOf(timeNow())); err != nil || st.Used != 2 {
		t.Fatalf("the shr_ key's meter: %+v %v, want 2 used", st, err)
	}
	if _, err := keys.Revoke(ctx, k.Record.Prefix, &k.Record); err != nil {
		t.Fatal(err)
	}
	if resp := post(k.Key); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("revoked key: %d", resp.StatusCode)
	}

	// Keyless full: state changes run, watchlists still need a key.
	d.Auth = h.auth(func(c *config.Config) { c.MCPKeyless = config.KeylessFull })
	full := httptest.NewServer(mcp.Handler(mcp.New(d), d.Auth, config.HTTPLimits{}))
	t.Cleanup(full.Close)
	c = httpClient(t, full.URL, false, nil)
	if res := callTool(t, c, "screen_stock", map[string]any{"symbol": "MSFT", "force_refresh": true}); res.IsError {
		t.Fatalf("keyless force_refresh in full mode: %s", text(res))
	}
	if res := callTool(t, c, "manage_watchlist", map[string]any{"action": "list"}); !refused(res) {
		t.Fatalf("keyless watchlists in full mode: %s", text(res))
	}
}
