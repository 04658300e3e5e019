package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	shariah "github.com/shariah-screen/shariah"
)

// Auth, when Required, makes the HTTP transports demand an X-API-Key and meters every tool call with
// the REST token cost of the route it mirrors. stdio and local HTTP need no key by default.
type Auth struct {
	Required bool
	Keys     shariah.KeyStore
	Meter    shariah.Meter
	Costs    shariah.TokenCosts
}

// toolRoutes maps each tool to the REST route whose token cost it carries.
var toolRoutes = map[string]string{
	"screen_stock": "POST /api/screen/{symbol}", "get_screening_result": "GET /api/result/{symbol}", "get_all_screening_results": "GET /api/results",
	"screen_etf": "POST /api/etf/{symbol}/screen", "bulk_screen": "GET /api/screen-bulk/status", "get_quote": "POST /api/quotes/batch",
	"get_stock_info": "GET /api/database/stock/{symbol}", "get_price_history": "GET /api/ohlc/{symbol}", "get_trending_stocks": "GET /api/trending",
	"search_stocks": "GET /api/database/search", "get_etf_info": "GET /api/etf/{symbol}/holdings", "etf_purification": "POST /api/etf/{symbol}/purification",
	"compare_etfs": "POST /api/etf/compare", "scan_portfolio": "POST /api/portfolio/scan", "manage_watchlist": "POST /api/watchlists",
	"compare_stocks": "POST /api/compare", "get_dividends": "GET /api/dividends/{symbol}", "calculate_zakat": "POST /api/zakat/calculate",
	"get_news": "GET /api/news", "get_sec_filings": "GET /api/filings/{symbol}", "generate_report": "GET /api/reports/screening/{symbol}",
	"islamic_finance_education": "GET /api/education/glossary", "screen_sukuk": "GET /api/sukuk/search",
	"get_compliance_insights": "GET /api/insights/{symbol}/alternatives", "get_disclaimers": "GET /api/disclaimers",
}

// cost is the tokens a call costs: its route's, per item for batches, fresh for force_refresh; a bulk
// trigger costs what POST /api/screen-bulk costs.
func (a *Auth) cost(req mcp.CallToolRequest) int {
	route := toolRoutes[req.Params.Name]
	args := req.GetArguments()
	if req.Params.Name == "bulk_screen" && args["action"] == "trigger" {
		route = "POST /api/screen-bulk"
	}
	body, _ := json.Marshal(args)
	items := shariah.BatchItems(body)
	fresh, _ := args["force_refresh"].(bool)
	for _, c := range a.Costs {
		if c.Method+" "+c.Path == route {
			return c.Charge(items, fresh)
		}
	}
	return 0
}

type keyInfo struct{ hash, user string }
type keyCtx struct{}

// withKey resolves the request's X-API-Key into the context (nothing when absent or invalid).
func (a *Auth) withKey(ctx context.Context, r *http.Request) context.Context {
	full := r.Header.Get("X-API-Key")
	if !shariah.WellFormedKey(full) {
		return ctx
	}
	k, err := a.Keys.KeyByHash(ctx, shariah.HashKey(full))
	if err != nil || !k.Active {
		return ctx
	}
	ctx = context.WithValue(ctx, keyCtx{}, keyInfo{hash: k.Hash, user: k.UserID})
	return context.WithValue(ctx, userKey{}, k.UserID)
}

// guard refuses HTTP requests without a valid key (401, the REST error envelope).
func (a *Auth) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := a.withKey(r.Context(), r).Value(keyCtx{}).(keyInfo); !ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]any{"code": shariah.EKEYREQUIRED, "message": "A valid API key is required in the X-API-Key header.", "detail": nil})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// meter charges each tool call before it runs and refunds calls that fail; a refusal (quota, key)
// is a tool result with isError.
func (a *Auth) meter() server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			k, ok := ctx.Value(keyCtx{}).(keyInfo)
			if !ok {
				return mcp.NewToolResultError(shariah.EKEYREQUIRED + ": a valid API key is required in the X-API-Key header."), nil
			}
			ch, err := a.Meter.Charge(ctx, k.hash, a.cost(req), time.Now())
			if err != nil {
				return errorResult(err), nil
			}
			res, err := next(ctx, req)
			if err != nil || res == nil || res.IsError {
				_ = a.Meter.Refund(context.WithoutCancel(ctx), ch)
			}
			return res, err
		}
	}
}
