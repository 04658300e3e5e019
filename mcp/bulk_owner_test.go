package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/internal/mcptest"
	"github.com/shariah-screen/shariah/mcp"
)

// TestBulkToolRunOwnership: bulk_screen follows the REST rules. Over HTTP a session with a key acts
// as the key's account: another account's run is "not found" for status, results, summary, compare and
// cancel and is missing from list_runs; the keyless in-process session is the local user, another
// account; a scheduled rescreen is readable by all and cancellable only by an operator, who reads
// every run.
func TestBulkToolRunOwnership(t *testing.T) {
	t.Parallel()
	h := start(t)
	ctx := context.Background()
	keys := h.svc.Keys
	d := h.d
	d.Auth = h.auth(func(c *config.Config) { c.MCPRequireKey = true })
	srv := httptest.NewServer(mcp.Handler(mcp.New(d), d.Auth, config.HTTPLimits{}))
	defer srv.Close()
	session := func(plan string) func(args map[string]any) (*mcpgo.CallToolResult, map[string]any) {
		return bulkSession(t, ctx, srv.URL, keys, plan)
	}
	a, b, op := session(account.PlanEnterprise), session(account.PlanPro), session(account.PlanInternal)
	local := func(args map[string]any) (*mcpgo.CallToolResult, map[string]any) {
		return h.call(t, "bulk_screen", args)
	}
	for _, ix := range []catalog.IndexInfo{{Name: "MCPA", Symbols: []string{"MSFT", "JPM"}}, {Name: "MCPS", Symbols: []string{"NVDA"}}} {
		if err := h.ref.PutIndex(ctx, ix); err != nil {
			t.Fatal(err)
		}
	}
	res, m := a(map[string]any{"action": "trigger", "index_name": "MCPA"})
	if res.IsError {
		t.Fatalf("trigger: %s", text(res))
	}
	runA := m["run"].(map[string]any)["run_id"].(string)
	sched, err := h.d.Bulk.StartRun(ctx, shariah.ServiceCaller, "MCPS", 0, false, "", "schedule")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{runA, sched.ID} {
		if err := h.d.Bulk.Execute(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	for name, other := range map[string]func(map[string]any) (*mcpgo.CallToolResult, map[string]any){"B": b, "local": local} {
		for _, args := range []map[string]any{
			{"action": "status", "run_id": runA}, {"action": "results", "run_id": runA}, {"action": "summary", "run_id": runA},
			{"action": "compare", "run_id": runA + "," + sched.ID}, {"action": "cancel", "run_id": runA},
		} {
			if res, _ := other(args); !res.IsError || !strings.Contains(text(res), "No run") {
				t.Errorf("%s %v on A's run: %s", name, args["action"], text(res))
			}
		}
		res, m := other(map[string]any{"action": "list_runs"})
		if res.IsError || m["total"] != 1.0 || strings.Contains(text(res)+toJSON(m), runA) || !strings.Contains(toJSON(m), sched.ID) {
			t.Errorf("%s list_runs: %s", name, toJSON(m))
		}
		if res, _ := other(map[string]any{"action": "summary", "run_id": sched.ID}); res.IsError {
			t.Errorf("%s reading the scheduled run: %s", name, text(res))
		}
		if res, _ := other(map[string]any{"action": "status"}); !res.IsError && strings.Contains(text(res), runA) {
			t.Errorf("%s's current run is A's: %s", name, text(res))
		}
	}
	if res, m := a(map[string]any{"action": "status", "run_id": runA}); res.IsError || m["run"].(map[string]any)["status"] != "completed" {
		t.Fatalf("A reads its run: %s", text(res))
	}
	if res, m := op(map[string]any{"action": "list_runs"}); res.IsError || m["total"] != 2.0 {
		t.Fatalf("operator list_runs: %s", toJSON(m))
	}
	// A running scheduled rescreen: B may not cancel it, the operator may.
	sched2, err := h.d.Bulk.StartRun(ctx, shariah.ServiceCaller, "MCPA", 0, false, "", "schedule")
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := b(map[string]any{"action": "cancel", "run_id": sched2.ID}); !res.IsError || !strings.Contains(text(res), "only operators") {
		t.Fatalf("B cancelled a scheduled run: %s", text(res))
	}
	if res, m := op(map[string]any{"action": "cancel", "run_id": sched2.ID}); res.IsError || m["run"].(map[string]any)["status"] != "cancelled" {
		t.Fatalf("operator cancel: %s", text(res))
	}
}

// bulkSession is a Streamable HTTP session with a new key of the plan, calling bulk_screen.
func bulkSession(t *testing.T, ctx context.Context, url string, keys *account.Keys, plan string) func(args map[string]any) (*mcpgo.CallToolResult, map[string]any) {
	k, err := keys.Create(ctx, plan+"-owner@example.com", plan)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewStreamableHttpClient(url+"/mcp", transport.WithHTTPHeaders(map[string]string{"X-API-Key": k.Key}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	mcptest.Connect(t, c)
	return func(args map[string]any) (*mcpgo.CallToolResult, map[string]any) {
		hh := &harness{c: c, ctx: ctx}
		return hh.call(t, "bulk_screen", args)
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
