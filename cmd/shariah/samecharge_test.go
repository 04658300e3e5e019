package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/shariah-screen/shariah/internal/mcptest"
)

// The same operations through REST and through MCP cost the same tokens: one process (`shariah all`,
// the production composition), one key for each side, the same states of the screening cache (a
// symbol never screened, then cached, then forced). REST's charge is its X-Tokens-Charged; MCP's is what
// the key's tokens_used grew by. Before pricing was shared, screen_stock charged the cached price for a
// symbol never screened (the fresh price only with force_refresh) where POST /api/screen charged fresh.
func TestRESTAndMCPChargeTheSame(t *testing.T) {
	t.Parallel()
	s := newTestEnv(t)
	for _, args := range [][]string{{"migrate"}, {"load", "--default", "--problems", "0"}} {
		if out, err := s.command(args).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
	}
	e := startProcess(t, s, "all")
	newKey := func(email string) string {
		out, err := s.command([]string{"keys", "create", "--email", email, "--plan", "pro"}).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	restKey, mcpKey := newKey("rest-charge@example.com"), newKey("mcp-charge@example.com")

	mc, err := client.NewStreamableHttpClient(e.mcp+"/mcp", transport.WithHTTPHeaders(map[string]string{"X-API-Key": mcpKey}))
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Close()
	mcptest.Connect(t, mc)

	rest := func(method, path, body string) int {
		t.Helper()
		req, _ := http.NewRequest(method, e.base+path, strings.NewReader(body))
		req.Header.Set("X-API-Key", restKey)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		var n int
		if _, err := fmt.Sscan(resp.Header.Get("X-Tokens-Charged"), &n); err != nil {
			t.Fatalf("%s %s: X-Tokens-Charged %q", method, path, resp.Header.Get("X-Tokens-Charged"))
		}
		return n
	}
	used := func(key string) int64 {
		t.Helper()
		req, _ := http.NewRequest("GET", e.base+"/api/auth/me", nil)
		req.Header.Set("X-API-Key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var me struct {
			Quota struct {
				TokensUsed *int64 `json:"tokens_used"`
			} `json:"quota"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&me); err != nil || me.Quota.TokensUsed == nil {
			t.Fatalf("/api/auth/me: no quota.tokens_used (%v)", err)
		}
		return *me.Quota.TokensUsed
	}
	// tool calls a tool and returns what the key's tokens_used grew by: /api/auth/me settles this
	// process's leases of the key before it reads (the MCP port and the API share one meter in
	// `shariah all`), so the figure is exact as soon as the call has returned.
	tool := func(name string, args map[string]any) int64 {
		t.Helper()
		before := used(mcpKey)
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := mc.CallTool(context.Background(), req)
		if err != nil || res.IsError {
			var text bytes.Buffer
			if res != nil {
				for _, c := range res.Content {
					if tc, ok := c.(mcpgo.TextContent); ok {
						text.WriteString(tc.Text)
					}
				}
			}
			t.Fatalf("%s: %v %s", name, err, text.String())
		}
		return used(mcpKey) - before
	}

	steps := []struct {
		what       string
		method     string
		path, body string
		tool       string
		args       map[string]any
	}{
		{"a symbol never screened", "POST", "/api/screen/MSFT", "", "screen_stock", map[string]any{"symbol": "AAPL"}},
		{"the same symbol, now cached", "POST", "/api/screen/MSFT", "", "screen_stock", map[string]any{"symbol": "AAPL"}},
		{"force_refresh", "POST", "/api/screen/MSFT?force_refresh=true", "", "screen_stock", map[string]any{"symbol": "AAPL", "force_refresh": true}},
		{"three quotes", "POST", "/api/quotes/batch", `{"symbols":["AAPL","MSFT","KO"]}`, "get_quote", map[string]any{"symbols": []any{"AAPL", "MSFT", "KO"}}},
		{"a search", "GET", "/api/database/search?q=apple", "", "search_stocks", map[string]any{"query": "apple"}},
		{"the change feed", "GET", "/api/changes?limit=10&index=SP500", "", "get_verdict_changes", map[string]any{"limit": 10, "index": "SP500"}},
	}
	for _, st := range steps {
		r := rest(st.method, st.path, st.body)
		m := tool(st.tool, st.args)
		if int64(r) != m {
			t.Errorf("%s: REST %s %s charged %d tokens, MCP %s %d", st.what, st.method, st.path, r, st.tool, m)
		} else {
			t.Logf("%s: %d tokens on both", st.what, r)
		}
	}
}
