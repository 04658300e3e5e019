package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/config"
)

// Auth is the MCP port's access policy. Over HTTP an X-API-Key, when sent, must be valid (else 401, or
// 403 when revoked) and identifies the caller: its tool calls are metered at the REST cost of the route
// each tool mirrors, and its watchlists are its user's. Required demands a key on every HTTP request.
// Without a key, Keyless decides: "readonly" (the default) runs only the tools whose readOnlyHint is
// true and the read actions of the others, without force_refresh; "full" runs every tool but the
// watchlists. stdio (no HTTP request) runs every tool, unmetered, as the local user. Over HTTP, callers
// without a key are also bounded by KeylessLimits (zero: config's defaults) per client address (the
// peer, or X-Forwarded-For from TrustedProxies), and browsers only from Origins (nil: config's
// default, localhost).
type Auth struct {
	Required       bool
	Keyless        string // config.KeylessReadOnly ("" too) or config.KeylessFull
	KeylessLimits  config.KeylessLimits
	Origins        config.Origins
	TrustedProxies []netip.Prefix
	Keys           account.KeyStore
	Meter          account.Meter
	Costs          account.TokenCosts
	// CallBudget marks a request's context with the store's call budget, so that a hung Redis fails
	// every call made for the request within callTimeout (cmd: redis.WithCallTimeout; MCP imports no
	// adapter); nil: the calls keep their own deadlines.
	CallBudget func(ctx context.Context, callTimeout time.Duration) context.Context

	// fresh decides whether a call computes afresh (set by New from the tools' services: Deps.fresh)
	fresh func(ctx context.Context, tool string, args map[string]any) bool
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
	"get_index_drift": "GET /api/insights/drift", "get_verdict_changes": "GET /api/changes",
}

// cost is the tokens a call costs, priced as its REST route prices the same request
// (account.TokenCost.Charge): per item for batches, the fresh price when the call computes afresh, by
// the rule of the route (fresh; nil: force_refresh alone). A bulk trigger costs what POST
// /api/screen-bulk costs.
func (a *Auth) cost(ctx context.Context, req mcp.CallToolRequest) int {
	method, path, _ := strings.Cut(toolRoutes[req.Params.Name], " ")
	args := req.GetArguments()
	if req.Params.Name == "bulk_screen" && args["action"] == "trigger" {
		method, path = "POST", "/api/screen-bulk"
	}
	c, ok := a.Costs.Lookup(method, path)
	if !ok {
		return 0
	}
	body, _ := json.Marshal(args)
	fresh, _ := args["force_refresh"].(bool)
	if a.fresh != nil {
		fresh = a.fresh(ctx, req.Params.Name, args)
	}
	return c.Charge(account.BatchItems(body), fresh)
}

// readActions are the actions of a tool whose readOnlyHint is false that only read: a keyless
// read-only caller may run them.
var readActions = map[string]map[string]bool{
	"bulk_screen": {"list_indices": true, "status": true, "list_runs": true, "results": true, "summary": true, "compare": true},
}

// userTools keep data per user: over HTTP they need a key (no shared local user).
var userTools = map[string]bool{"manage_watchlist": true}

type keyInfo struct{ hash, user string }
type keyCtx struct{}
type httpCtx struct{} // set on every request that came over HTTP

// guard checks the X-API-Key of every HTTP request and puts the caller in the request's context (which
// both transports hand to the tool handlers). No key: 401 when keys are required, else keyless. Every
// Redis call made for the request, the key lookup and its tool calls' charges and reads, has the
// deadline redisTimeout (CallBudget), so a hung Redis costs a call about that long.
func (a *Auth) guard(redisTimeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if a.CallBudget != nil {
			ctx = a.CallBudget(ctx, redisTimeout)
		}
		ctx = context.WithValue(ctx, httpCtx{}, true)
		full := r.Header.Get("X-API-Key")
		if full == "" {
			if a.Required {
				writeError(w, http.StatusUnauthorized, shariah.EKEYREQUIRED, "A valid API key is required in the X-API-Key header.", nil)
				return
			}
			next.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		var k account.APIKey
		err := errors.New("no key store")
		if a.Keys != nil {
			k, err = account.ActiveKey(ctx, a.Keys, full)
		}
		if err != nil {
			code, msg := shariah.ErrorCode(err), err.Error()
			if de := (*shariah.Error)(nil); errors.As(err, &de) && code != shariah.EINTERNAL {
				msg = de.Message
			}
			switch code {
			case shariah.EKEYREQUIRED, shariah.EBADKEY, shariah.EKEYINACTIVE, shariah.EUNAVAILABLE:
			default: // the key service failed in a way a caller cannot act on
				code, msg = shariah.EUNAVAILABLE, "The key service is unavailable. Retry shortly."
				w.Header().Set("Retry-After", "1")
			}
			status, _ := shariah.HTTPStatus(code)
			writeError(w, status, code, msg, nil)
			return
		}
		ctx = context.WithValue(ctx, keyCtx{}, keyInfo{hash: k.Hash, user: k.UserID})
		ctx = context.WithValue(ctx, userKey{}, k.UserID)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// policy runs each tool call under the access policy: a call with a key is charged before it runs and
// refunded when it fails; a keyless HTTP call to what needs a key is refused. A refusal (no key, quota)
// is a tool result with isError (the model sees why), not a JSON-RPC error.
func (a *Auth) policy(lookup func(name string) *server.ServerTool) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			k, keyed := ctx.Value(keyCtx{}).(keyInfo)
			if !keyed {
				if ctx.Value(httpCtx{}) == nil {
					return next(ctx, req) // stdio or in process: the local user, every tool
				}
				if why := a.keylessRefusal(req, lookup(req.Params.Name)); why != "" {
					return mcp.NewToolResultError(shariah.EKEYREQUIRED + ": " + why + " Send an API key in the X-API-Key header (get a free one with POST /api/keys/generate)."), nil
				}
				return next(ctx, req)
			}
			if a.Meter == nil {
				return next(ctx, req)
			}
			ch, err := a.Meter.Charge(ctx, k.hash, a.cost(ctx, req), time.Now())
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

// keylessRefusal says why a keyless HTTP call may not run ("" when it may).
func (a *Auth) keylessRefusal(req mcp.CallToolRequest, t *server.ServerTool) string {
	name := req.Params.Name
	if a.Required {
		return "A valid API key is required."
	}
	if userTools[name] {
		return name + " keeps data per user: it needs an API key over HTTP."
	}
	if wl, _ := req.GetArguments()["watchlist_id"].(string); wl != "" && name == "get_index_drift" {
		return "A watchlist is kept per user: reading one needs an API key over HTTP."
	}
	if a.Keyless == config.KeylessFull {
		return ""
	}
	args := req.GetArguments()
	if t != nil && (t.Tool.Annotations.ReadOnlyHint == nil || !*t.Tool.Annotations.ReadOnlyHint) {
		if action, _ := args["action"].(string); !readActions[name][action] {
			return fmt.Sprintf("%s changes state (action %q): without a key only read-only tools run.", name, args["action"])
		}
	}
	if fresh, _ := args["force_refresh"].(bool); fresh {
		return "force_refresh recomputes at the fresh price: it needs an API key."
	}
	return ""
}
