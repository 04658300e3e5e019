package account

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/shariah-screen/shariah"
)

// Watchlist limits (per user, and per watchlist).
const (
	MaxWatchlists        = 50
	MaxWatchlistSymbols  = 200
	MaxWatchlistNameRune = 100 // characters of a name, which Validation.Name also checks for control and bidi characters
)

// Watchlist is a user's named list of symbols, in the order they were added. Its JSON carries count,
// the number of symbols (WatchlistJSON), which is not stored.
type Watchlist struct {
	ID        string    `json:"id"` // generated at creation; the watchlist_id of the paths
	Name      string    `json:"name"`
	Symbols   []string  `json:"symbols"`
	CreatedAt time.Time `json:"created_at"`
}

// WatchlistJSON is a watchlist as served (REST and MCP): its fields and count, the number of its
// symbols (the research agent's completion shows "3 symbols").
type WatchlistJSON struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Symbols   []string  `json:"symbols"`
	Count     int       `json:"count"`
	CreatedAt time.Time `json:"created_at"`
}

// Served is the watchlist as served (WatchlistJSON).
func (w Watchlist) Served() WatchlistJSON {
	syms := w.Symbols
	if syms == nil {
		syms = []string{}
	}
	return WatchlistJSON{ID: w.ID, Name: w.Name, Symbols: syms, Count: len(syms), CreatedAt: w.CreatedAt}
}

// MarshalJSON writes the watchlist with its count.
func (w Watchlist) MarshalJSON() ([]byte, error) { return json.Marshal(w.Served()) }

// Errors of a WatchlistStore.
var (
	ErrWatchlistLimit = errors.New("watchlist limit reached")
	ErrWatchlistFull  = errors.New("watchlist full")
	ErrNoWatchlist    = errors.New("no such watchlist")
)

// WatchlistStore keeps watchlists by user; every change is atomic and checks the limits.
type WatchlistStore interface {
	// CreateWatchlist stores w unless the user has max watchlists already (ErrWatchlistLimit).
	CreateWatchlist(ctx context.Context, userID string, w Watchlist, max int) error
	Watchlists(ctx context.Context, userID string) ([]Watchlist, error) // oldest first
	Watchlist(ctx context.Context, userID, id string) (Watchlist, bool, error)
	DeleteWatchlist(ctx context.Context, userID, id string) (bool, error)
	// AddSymbol appends a symbol (already there: no change); ErrNoWatchlist, ErrWatchlistFull past max.
	AddSymbol(ctx context.Context, userID, id, symbol string, max int) error
	// RemoveSymbol removes a symbol; false when it was not in the list; ErrNoWatchlist.
	RemoveSymbol(ctx context.Context, userID, id, symbol string) (bool, error)
}

// Watchlists applies the rules of watchlists over a store: names, limits, symbols known to the
// reference data (in canonical form), and ownership (another user's watchlist does not exist).
type Watchlists struct {
	Store WatchlistStore
	// Resolve gives the canonical symbol of a known asset ("" when unknown).
	Resolve func(ctx context.Context, symbol string) (string, error)
	Now     func() time.Time
}

// ValidWatchlistID reports whether s is shaped like a watchlist id (so malformed ids are 404 without a lookup).
func ValidWatchlistID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// resolveOne canonicalises a symbol, reporting a malformed or unknown one at loc ("" then).
func (w *Watchlists) resolveOne(ctx context.Context, raw string, v *shariah.Validation, loc ...any) (string, error) {
	if _, ok := shariah.NormalizeSymbol(raw); !ok {
		v.Add("not a valid symbol", "value_error.symbol", loc...)
		return "", nil
	}
	sym, err := w.Resolve(ctx, raw)
	if err == nil && sym == "" {
		v.Add("not in the database: "+strings.ToUpper(strings.TrimSpace(raw)), "value_error.symbol_unknown", loc...)
	}
	return sym, err
}

// resolveAll canonicalises symbols (duplicates dropped), reporting bad ones at their index under loc.
func (w *Watchlists) resolveAll(ctx context.Context, raw []string, v *shariah.Validation, loc ...any) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for i, r := range raw {
		sym, err := w.resolveOne(ctx, r, v, append(append([]any{}, loc...), i)...)
		if err != nil {
			return nil, err
		}
		if sym != "" && !seen[sym] {
			seen[sym] = true
			out = append(out, sym)
		}
	}
	return out, nil
}

// Create makes a watchlist for the user.
func (w *Watchlists) Create(ctx context.Context, userID string, name *string, symbols []string) (Watchlist, error) {
	var v shariah.Validation
	n, _ := v.Name(name, MaxWatchlistNameRune, "body", "name") // no control or bidi characters (Validation.Name)
	if len(symbols) > MaxWatchlistSymbols {
		v.Add("at most 200 symbols", "value_error.list.max_items", "body", "symbols")
		symbols = nil
	}
	syms, err := w.resolveAll(ctx, symbols, &v, "body", "symbols")
	if err != nil {
		return Watchlist{}, err
	}
	if err := v.Err(); err != nil {
		return Watchlist{}, err
	}
	if syms == nil {
		syms = []string{}
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	wl := Watchlist{ID: uuid.Must(uuid.NewV7()).String(), Name: n, Symbols: syms, CreatedAt: now().UTC()}
	if err := w.Store.CreateWatchlist(ctx, userID, wl, MaxWatchlists); err != nil {
		if errors.Is(err, ErrWatchlistLimit) {
			return Watchlist{}, shariah.Errorf(shariah.ECONFLICT, "You have %d watchlists, the most allowed; delete one first.", MaxWatchlists)
		}
		return Watchlist{}, err
	}
	return wl, nil
}

// Get reads one of the user's watchlists (404 for any other).
func (w *Watchlists) Get(ctx context.Context, userID, id string) (Watchlist, error) {
	if !ValidWatchlistID(id) {
		return Watchlist{}, shariah.Errorf(shariah.ENOTFOUND, "Watchlist not found.")
	}
	wl, ok, err := w.Store.Watchlist(ctx, userID, id)
	if err != nil {
		return Watchlist{}, err
	}
	if !ok {
		return Watchlist{}, shariah.Errorf(shariah.ENOTFOUND, "Watchlist not found.")
	}
	return wl, nil
}

// Delete removes one of the user's watchlists.
func (w *Watchlists) Delete(ctx context.Context, userID, id string) error {
	if !ValidWatchlistID(id) {
		return shariah.Errorf(shariah.ENOTFOUND, "Watchlist not found.")
	}
	ok, err := w.Store.DeleteWatchlist(ctx, userID, id)
	if err != nil {
		return err
	}
	if !ok {
		return shariah.Errorf(shariah.ENOTFOUND, "Watchlist not found.")
	}
	return nil
}

// AddSymbol adds a known symbol (canonical form) and returns the watchlist.
func (w *Watchlists) AddSymbol(ctx context.Context, userID, id string, symbol *string) (Watchlist, error) {
	if _, err := w.Get(ctx, userID, id); err != nil {
		return Watchlist{}, err
	}
	var v shariah.Validation
	if symbol == nil {
		v.Add("field required", "value_error.missing", "body", "symbol")
		return Watchlist{}, v.Err()
	}
	sym, err := w.resolveOne(ctx, *symbol, &v, "body", "symbol")
	if err != nil {
		return Watchlist{}, err
	}
	if err := v.Err(); err != nil {
		return Watchlist{}, err
	}
	switch err := w.Store.AddSymbol(ctx, userID, id, sym, MaxWatchlistSymbols); {
	case errors.Is(err, ErrNoWatchlist):
		return Watchlist{}, shariah.Errorf(shariah.ENOTFOUND, "Watchlist not found.")
	case errors.Is(err, ErrWatchlistFull):
		return Watchlist{}, shariah.Errorf(shariah.ECONFLICT, "This watchlist holds %d symbols, the most allowed.", MaxWatchlistSymbols)
	case err != nil:
		return Watchlist{}, err
	}
	return w.Get(ctx, userID, id)
}

// RemoveSymbol removes a symbol (in any accepted form) and returns the watchlist.
func (w *Watchlists) RemoveSymbol(ctx context.Context, userID, id, symbol string) (Watchlist, error) {
	wl, err := w.Get(ctx, userID, id)
	if err != nil {
		return Watchlist{}, err
	}
	sym, ok := shariah.NormalizeSymbol(symbol)
	if !ok {
		var v shariah.Validation
		v.Add("not a valid symbol", "value_error.symbol", "path", "symbol")
		return Watchlist{}, v.Err()
	}
	if canon, err := w.Resolve(ctx, sym); err != nil {
		return Watchlist{}, err
	} else if canon != "" {
		sym = canon
	}
	removed, err := w.Store.RemoveSymbol(ctx, userID, id, sym)
	if errors.Is(err, ErrNoWatchlist) {
		return Watchlist{}, shariah.Errorf(shariah.ENOTFOUND, "Watchlist not found.")
	}
	if err != nil {
		return Watchlist{}, err
	}
	if !removed {
		return Watchlist{}, shariah.Errorf(shariah.ENOTFOUND, "%s is not in the watchlist %q.", sym, wl.Name)
	}
	return w.Get(ctx, userID, id)
}
