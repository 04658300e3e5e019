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
	"github.com/shariah-screen/shariah/mcp"
	sredis "github.com/shariah-screen/shariah/redis"
)

// TestHTTPKeyRequirementAndMetering serves Streamable HTTP with the key requirement on: no key is 401;
// with a Free key each call is charged its REST cost, a failing call is refunded, and past the Free
// allowance a call is an isError result naming the quota.
func TestHTTPKeyRequirementAndMetering(t *testing.T) {
	h := start(t)
	rc := h.rc
	plans := shariah.DefaultPlans()
	store := sredis.NewKeyStore(rc)
	keys := &shariah.Keys{Store: store, Plans: plans}
	d := h.d
	d.Auth = &mcp.Auth{Required: true, Keys: store, Meter: sredis.NewMeter(rc, plans), Costs: shariah.DefaultTokenCosts()}
	srv := httptest.NewServer(mcp.Handler(mcp.New(d), d.Auth))
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
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "test", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	used := func() int64 {
		st, err := store.MeterState(ctx, k.Record.Hash, shariah.PeriodOf(timeNow()))
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
