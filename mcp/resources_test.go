package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/education"
	"github.com/shariah-screen/shariah/etf"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/jobs"
	"github.com/shariah-screen/shariah/mcp"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
)

// harness is an MCP server over a real Redis with the default universe, and an in-process client.
type harness struct {
	rc   rueidis.Client
	ref  *sredis.RefStore // the reference store d.Ref reads, for tests to write to
	c    *client.Client
	d    mcp.Deps
	edu  *education.Registry
	ctx  context.Context
	stop func()
}

// start serves the tools over the default pack; opts change the services before the server is made.
func start(t *testing.T, opts ...func(*mcp.Deps)) *harness {
	t.Helper()
	r, rc := redistest.StartWithDefaultPack(t)
	ctx := context.Background()
	ref := sredis.NewRefStore(rc)
	rs, _ := rules.Rulesets()
	edu, err := education.Load(rs)
	if err != nil {
		t.Fatal(err)
	}
	sk, err := rules.Sukuk()
	if err != nil {
		t.Fatal(err)
	}
	cats := &catalog.Cache{Store: ref}
	queue, err := jobs.NewQueue(r.RedisURL(), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(queue.Close)
	sc := &screening.Screener{Ref: ref, Results: sredis.NewResultStore(rc), Rulesets: rs, Disclaimers: edu.DisclaimersFor}
	d := mcp.Deps{Education: edu, Plans: account.DefaultPlans(), Costs: account.DefaultTokenCosts(),
		Bulk: &bulk.Service{Ref: ref, Runs: sredis.NewRunStore(rc), Screener: sc, Queue: queue, Concurrency: 2}, Screener: sc,
		ETFs: &etf.Service{Ref: ref, Screener: sc, Results: sredis.NewResultStore(rc), Catalogs: cats}, Ref: ref, Catalogs: cats,
		Insights: &insights.Service{Ref: ref, Screener: sc, Catalogs: cats}, Watchlists: &account.Watchlists{Store: sredis.NewWatchlistStore(rc), Resolve: cats.Resolve},
		News: sredis.NewNewsStore(rc), Filings: sredis.NewIngestStore(rc), SukukStore: sredis.NewSukukStore(rc), SukukRules: sk}
	for _, o := range opts {
		o(&d)
	}
	s := mcp.New(d)
	c, err := client.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgo.Implementation{Name: "test", Version: "0"}
	res, err := c.Initialize(ctx, init)
	if err != nil || !strings.Contains(res.Instructions, "not a religious ruling") {
		t.Fatalf("initialize: %v %+v", err, res)
	}
	return &harness{rc: rc, ref: ref, c: c, d: d, edu: edu, ctx: ctx}
}

func TestResourcesOverTheInProcessClient(t *testing.T) {
	t.Parallel()
	h := start(t)
	c, ctx, edu := h.c, h.ctx, h.edu
	list, err := c.ListResources(ctx, mcpgo.ListResourcesRequest{})
	if err != nil || len(list.Resources) != 7 {
		t.Fatalf("resources: %v %d", err, len(list.Resources))
	}
	tpl, err := c.ListResourceTemplates(ctx, mcpgo.ListResourceTemplatesRequest{})
	if err != nil || len(tpl.ResourceTemplates) != 1 {
		t.Fatalf("templates: %v %+v", err, tpl)
	}
	read := func(uri string) map[string]any {
		t.Helper()
		req := mcpgo.ReadResourceRequest{}
		req.Params.URI = uri
		out, err := c.ReadResource(ctx, req)
		if err != nil || len(out.Contents) != 1 {
			t.Fatalf("%s: %v", uri, err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out.Contents[0].(mcpgo.TextResourceContents).Text), &m); err != nil {
			t.Fatalf("%s: not JSON: %v", uri, err)
		}
		return m
	}
	// The same content the REST routes serve, from the same registry.
	if terms := read("shariah://education/glossary")["terms"].([]any); len(terms) != len(edu.SearchGlossary("")) || len(terms) == 0 {
		t.Fatalf("glossary: %d terms", len(terms))
	}
	if d := read("shariah://disclaimers")["disclaimers"].([]any); len(d) != 6 {
		t.Fatalf("disclaimers: %d", len(d))
	}
	if ix := read("shariah://screening/indices"); ix["count"].(float64) == 0 {
		t.Fatalf("indices: %v", ix)
	}
	if costs := read("shariah://plans/token-costs")["costs"].([]any); len(costs) != len(account.DefaultTokenCosts()) {
		t.Fatalf("token costs: %d", len(costs))
	}
	for _, u := range []string{"shariah://education/methodologies", "shariah://education/screening-criteria", "shariah://education/purification-guide"} {
		if len(read(u)) == 0 {
			t.Fatalf("%s is empty", u)
		}
	}
	if m := read("shariah://education/methodologies/aaoifi"); m["name"] == nil {
		t.Fatalf("methodology template: %v", m)
	}
	req := mcpgo.ReadResourceRequest{}
	req.Params.URI = "shariah://education/methodologies/astrology"
	if _, err := c.ReadResource(ctx, req); err == nil || !strings.Contains(err.Error(), "no methodology") {
		t.Fatalf("unknown methodology: %v", err)
	}
}

func timeNow() time.Time { return time.Now() }
