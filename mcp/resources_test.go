package mcp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/app"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/education"
	"github.com/shariah-screen/shariah/internal/redistest"
	"github.com/shariah-screen/shariah/internal/testsvc"
	"github.com/shariah-screen/shariah/mcp"
	sredis "github.com/shariah-screen/shariah/redis"
)

// harness is an MCP server over a real Redis with the default universe and a ClickHouse database of
// its own (not migrated: the tests that read it migrate it), its services composed as the binary
// composes them (app.Compose), and an in-process client.
type harness struct {
	svc  *app.Services
	env  app.Env
	rc   rueidis.Client
	ref  *sredis.RefStore // the reference store without a cache, for tests to write to
	db   *analytics.DB
	c    *client.Client
	d    mcp.Deps
	edu  *education.Registry
	ctx  context.Context
	stop func()
}

// start serves the tools over the default pack; configure changes the configuration the services are
// composed from.
func start(t *testing.T, configure ...func(*config.Config)) *harness {
	t.Helper()
	r, rc := redistest.StartWithDefaultPack(t)
	ctx := context.Background()
	db, err := analytics.Open(testsvc.ClickHouseDB(t)) // connects on first use
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cfg := config.Defaults()
	cfg.RedisURL, cfg.BulkConcurrency = r.RedisURL(), 2
	for _, c := range configure {
		c(&cfg)
	}
	ae := app.Env{Config: cfg, Plans: account.DefaultPlans(), Log: slog.Default()}
	svc, err := app.Compose(ae, app.Clients{Redis: rc, ClickHouse: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	d := app.MCPDeps(ae, svc)
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
	return &harness{svc: svc, env: ae, rc: rc, ref: svc.Raw, db: db, c: c, d: d, edu: svc.Education, ctx: ctx}
}

// auth is the MCP port's policy as the binary composes it (app.MCPDeps) over the harness's services,
// from its configuration changed by configure.
func (h *harness) auth(configure ...func(*config.Config)) *mcp.Auth {
	e := h.env
	for _, c := range configure {
		c(&e.Config)
	}
	return app.MCPDeps(e, h.svc).Auth
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
