package catalog

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/shariah-screen/shariah"
)

// AssetSource is what the catalog reads of the reference store: its data version and every asset.
type AssetSource interface {
	Version(ctx context.Context) (int64, error)
	AllAssets(ctx context.Context) ([]shariah.Asset, error)
}

// Cache keeps a Catalog of the stored reference data and rebuilds it when the store's version
// changes. Reading the version is a client-side-cached Redis GET, so checking it per request is cheap;
// while one request rebuilds, others keep using the previous catalog.
type Cache struct {
	Store AssetSource
	mu    sync.Mutex
	cur   atomic.Pointer[catalogEntry]
}

type catalogEntry struct {
	version int64
	cat     *Catalog
}

// Get returns the current catalog.
func (c *Cache) Get(ctx context.Context) (*Catalog, error) {
	v, err := c.Store.Version(ctx)
	if err != nil {
		if e := c.cur.Load(); e != nil {
			return e.cat, nil // serve the last good catalog while the store is unreachable
		}
		return nil, err
	}
	if e := c.cur.Load(); e != nil && e.version == v {
		return e.cat, nil
	}
	if e := c.cur.Load(); e != nil {
		if !c.mu.TryLock() {
			return e.cat, nil // another request is rebuilding
		}
	} else {
		c.mu.Lock()
	}
	defer c.mu.Unlock()
	if e := c.cur.Load(); e != nil && e.version == v {
		return e.cat, nil
	}
	assets, err := c.Store.AllAssets(ctx)
	if err != nil {
		if e := c.cur.Load(); e != nil {
			return e.cat, nil
		}
		return nil, err
	}
	cat := New(assets)
	c.cur.Store(&catalogEntry{version: v, cat: cat})
	return cat, nil
}

// LookupRaw finds the asset of a raw symbol: the symbol itself or its canonical form (BRK.B, AAPL.US,
// 700.HK, an ISIN). wellFormed is false when raw is not shaped like a symbol.
func (c *Cache) LookupRaw(ctx context.Context, raw string) (a shariah.Asset, wellFormed, found bool, err error) {
	sym, ok := shariah.NormalizeSymbol(raw)
	if !ok {
		return shariah.Asset{}, false, false, nil
	}
	cat, err := c.Get(ctx)
	if err != nil {
		return shariah.Asset{}, true, false, err
	}
	if a, ok := cat.Lookup(sym); ok {
		return a, true, true, nil
	}
	if r := cat.Canonical(sym); r.Symbol != "" {
		a, ok := cat.Lookup(r.Symbol)
		return a, true, ok, nil
	}
	return shariah.Asset{}, true, false, nil
}

// Find resolves a symbol given by a client: a malformed one is a VALIDATION_ERROR at loc (before any
// store is asked), an unknown one ENOTFOUND. REST, MCP and the terminal agent all resolve through it.
func (c *Cache) Find(ctx context.Context, raw string, loc ...any) (shariah.Asset, error) {
	a, wellFormed, found, err := c.LookupRaw(ctx, raw)
	switch {
	case err != nil:
		return shariah.Asset{}, err
	case !found:
		return shariah.Asset{}, MissingSymbol(raw, wellFormed, loc...)
	}
	return a, nil
}

// MissingSymbol is Find's error for a symbol it did not find: VALIDATION_ERROR at loc when malformed,
// else UnknownSymbol.
func MissingSymbol(raw string, wellFormed bool, loc ...any) error {
	if !wellFormed {
		var v shariah.Validation
		v.Add("not a valid symbol (letters, digits, '.', '-', '=', '&', optional leading '^'; at most 20 characters)", "value_error.symbol", loc...)
		return v.Err()
	}
	sym, _ := shariah.NormalizeSymbol(raw)
	return UnknownSymbol(sym)
}

// UnknownSymbol is the 404 of a symbol no database holds. Its wording, "Symbol X not found in any
// database.", is what the existing clients (SDKs, bots) match on: keep it.
func UnknownSymbol(sym string) error {
	return shariah.Errorf(shariah.ENOTFOUND, "Symbol %s not found in any database.", sym)
}

// Resolve gives the canonical symbol of a known asset; "" when the input is malformed or unknown.
func (c *Cache) Resolve(ctx context.Context, raw string) (string, error) {
	a, _, _, err := c.LookupRaw(ctx, raw)
	return a.Symbol, err
}
