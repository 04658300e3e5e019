package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/shariah-screen/shariah/account"
)

func (d Deps) watchlistTools() []tool {
	return []tool{newTool("manage_watchlist", "Watchlists of the connected user (over HTTP, the user of the X-API-Key; on stdio, the local user): create (name, symbols), list, get, add_symbol, remove_symbol, delete (watchlist_id).",
		hints{destructive: true}, objectOut("action"), d.manageWatchlist)}
}

type watchlistArgs struct {
	Action      string   `json:"action" schema:"required,enum=create|list|get|add_symbol|remove_symbol|delete"`
	Name        *string  `json:"name" jsonschema:"No control characters (NUL, ESC, ...) or bidirectional formatting characters." schema:"maxLength=100"`
	WatchlistID string   `json:"watchlist_id"`
	Symbol      *string  `json:"symbol"`
	Symbols     []string `json:"symbols" schema:"maxItems=200"`
}

func (d Deps) manageWatchlist(ctx context.Context, in watchlistArgs) (any, string, error) {
	w, user := d.Watchlists, userOf(ctx)
	out := map[string]any{"action": in.Action}
	var wl account.Watchlist
	var err error
	switch in.Action {
	case "list":
		list, err := w.Store.Watchlists(ctx, user)
		if err != nil {
			return nil, "", err
		}
		out["watchlists"] = list
		var names []string
		for _, x := range list {
			names = append(names, fmt.Sprintf("%s (%s): %s", x.Name, x.ID, strings.Join(x.Symbols, ", ")))
		}
		return out, fmt.Sprintf("%d watchlists.\n%s", len(list), strings.Join(names, "\n")), nil
	case "create":
		wl, err = w.Create(ctx, user, in.Name, in.Symbols)
	case "get":
		wl, err = w.Get(ctx, user, in.WatchlistID)
	case "add_symbol":
		wl, err = w.AddSymbol(ctx, user, in.WatchlistID, in.Symbol)
	case "remove_symbol":
		if in.Symbol == nil {
			return nil, "", invalid("symbol is required", "symbol")
		}
		wl, err = w.RemoveSymbol(ctx, user, in.WatchlistID, *in.Symbol)
	case "delete":
		if err := w.Delete(ctx, user, in.WatchlistID); err != nil {
			return nil, "", err
		}
		out["deleted"] = true
		return out, "Deleted.", nil
	default:
		return nil, "", invalid("unknown action", "action")
	}
	if err != nil {
		return nil, "", err
	}
	out["watchlist"] = wl
	return out, fmt.Sprintf("%s (%s): %s", wl.Name, wl.ID, strings.Join(wl.Symbols, ", ")), nil
}

// userKey carries the user of an authenticated MCP session (HTTP with a key).
type userKey struct{}

func userOf(ctx context.Context) string {
	if u, ok := ctx.Value(userKey{}).(string); ok && u != "" {
		return u
	}
	return LocalUser
}
