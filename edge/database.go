package edge

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/screening"
)

// searchQuery parses the database search parameters.
func searchQuery(c *fiber.Ctx) (catalog.SearchQuery, error) {
	var v shariah.Validation
	q := catalog.SearchQuery{Q: c.Query("q"), Sector: c.Query("sector"), Country: c.Query("country"), Exchange: c.Query("exchange")}
	if len(q.Q) > 100 {
		v.Add("at most 100 characters", "value_error.any_str.max_length", "query", "q")
	}
	t, ok := shariah.ParseAssetFilter(c.Query("asset_type", "equities"))
	if !ok {
		v.Add(shariah.AssetFilterMessage, "value_error.enum", "query", "asset_type")
	}
	q.Type = t
	q.Limit = intQuery(c, &v, "limit", 100, 1, 500)
	q.Offset = intQuery(c, &v, "offset", 0, 0, 1_000_000)
	return q, v.Err()
}

// searchPage is the body of GET /api/database/search; its fields are in the order encoding/json gave
// the map it replaced, so the bytes are the same.
type searchPage struct {
	Limit   int                 `json:"limit"`
	Offset  int                 `json:"offset"`
	Results []catalog.SearchHit `json:"results"`
	Total   int                 `json:"total"`
}

func (s *Server) databaseSearch(c *fiber.Ctx) error {
	q, err := searchQuery(c)
	if err != nil {
		return err
	}
	cat, err := s.catalogs.Get(c.UserContext())
	if err != nil {
		return err
	}
	var buf [256]byte
	key := appendKey(buf[:0], "search", strings.TrimSpace(q.Q), string(q.Type), q.Sector, q.Country, q.Exchange)
	key = strconv.AppendInt(append(strconv.AppendInt(key, int64(q.Limit), 10), ' '), int64(q.Offset), 10)
	return s.catalogBodies.send(c, cat, key, func() any {
		hits, total := cat.Search(q)
		return searchPage{Limit: q.Limit, Offset: q.Offset, Results: hits, Total: total}
	})
}

func (s *Server) suggest(c *fiber.Ctx) error {
	var v shariah.Validation
	q := c.Query("q")
	if len(q) > 100 {
		v.Add("at most 100 characters", "value_error.any_str.max_length", "query", "q")
	}
	limit := intQuery(c, &v, "limit", 10, 1, 50)
	if err := v.Err(); err != nil {
		return err
	}
	cat, err := s.catalogs.Get(c.UserContext())
	if err != nil {
		return err
	}
	var buf [128]byte
	key := strconv.AppendInt(appendKey(buf[:0], "suggest", strings.TrimSpace(q)), int64(limit), 10)
	return s.catalogBodies.send(c, cat, key, func() any { return cat.Suggest(q, limit) })
}

// appendKey appends a memo key of the values, each preceded by its length (no value can run into the
// next whatever bytes it holds); numbers follow the last.
func appendKey(key []byte, values ...string) []byte {
	for _, v := range values {
		key = append(append(strconv.AppendInt(key, int64(len(v)), 10), ':'), v...)
	}
	return key
}

// catalogBodies memoises the encoded answers of search and suggest. Each is a function of the catalog
// and the request's parameters alone, and a catalog never changes (a reload builds a new one and
// CatalogCache swaps the pointer), so a body is good until its catalog is replaced; the first request
// that brings a new catalog drops them all. The memo holds its catalog, so a replaced catalog's
// address is never reused while the memo could mistake it. Repeated queries (autocompletion while
// typing, a client paging, load tests) then cost a map lookup instead of a search and an encoding.
// Bounded in bytes: a full memo forgets entries at random (Go's map order) to make room.
type catalogBodies struct {
	mu    sync.RWMutex
	cat   *catalog.Catalog
	m     map[string][]byte
	bytes int
}

// maxCatalogBodies bounds the memo's bodies and keys (a page of 500 search hits is about 200 KB).
const maxCatalogBodies = 16 << 20

// send answers with the memoised body of key under cat, or encodes answer(), memoises and sends it.
func (b *catalogBodies) send(c *fiber.Ctx, cat *catalog.Catalog, key []byte, answer func() any) error {
	b.mu.RLock()
	body, ok := b.m[string(key)]
	ok = ok && b.cat == cat
	b.mu.RUnlock()
	if !ok {
		var err error
		if body, err = json.Marshal(answer()); err != nil {
			return err
		}
		b.put(cat, string(key), body)
	}
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	return c.Send(body)
}

func (b *catalogBodies) put(cat *catalog.Catalog, key string, body []byte) {
	size := len(key) + len(body)
	if size > maxCatalogBodies/8 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cat != cat { // a newer catalog (or, briefly, a request still on the old one): start over
		b.cat, b.m, b.bytes = cat, map[string][]byte{}, 0
	}
	for k, v := range b.m {
		if b.bytes+size <= maxCatalogBodies {
			break
		}
		delete(b.m, k)
		b.bytes -= len(k) + len(v)
	}
	if old, ok := b.m[key]; ok {
		b.bytes -= len(key) + len(old)
	}
	b.m[key] = body
	b.bytes += size
}

func (s *Server) databaseStock(c *fiber.Ctx) error {
	rs, _, err := s.Screener.Rulesets.Resolve(c.Query("ruleset"), "")
	if err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	fs, err := s.Ref.Fundamentals(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	rec := screening.StockRecordOf(a, fs, rs)
	return sendCacheable(c, rec, time.Hour)
}

func (s *Server) databaseStats(c *fiber.Ctx) error {
	cat, err := s.catalogs.Get(c.UserContext())
	if err != nil {
		return err
	}
	st := cat.Stats()
	n, err := s.Screener.Results.Count(c.UserContext())
	if err != nil {
		return err
	}
	st.ScreeningResults = int(n)
	if st.ScreeningResultsBySource, err = s.Screener.Results.CountBySource(c.UserContext()); err != nil {
		return err
	}
	filed, illus, err := s.Ref.CompaniesBySource(c.UserContext())
	if err != nil {
		return err
	}
	st.Fundamentals = shariah.SourceCounts{Filed: int(filed), Illustrative: int(illus),
		NoFundamentals: max(0, st.Equities-int(filed)-int(illus))}
	return c.JSON(st)
}

// canonical answers POST /api/symbols/canonical {symbols: [...]} or {symbol: "..."}.
func (s *Server) canonical(c *fiber.Ctx) error {
	var in struct {
		Symbol  *json.RawMessage `json:"symbol"`
		Symbols *json.RawMessage `json:"symbols"`
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	var inputs []string
	if in.Symbols == nil && in.Symbol != nil {
		var v shariah.Validation
		var sym string
		if err := json.Unmarshal(*in.Symbol, &sym); err != nil || len(sym) > 40 || strings.TrimSpace(sym) == "" {
			v.Add("must be a non-empty string of at most 40 characters", "value_error.symbol", "body", "symbol")
			return v.Err()
		}
		inputs = []string{sym}
	} else {
		var err error
		if inputs, err = bindSymbols(c, 1, 50); err != nil {
			return err
		}
	}
	cat, err := s.catalogs.Get(c.UserContext())
	if err != nil {
		return err
	}
	out := make([]catalog.Resolution, len(inputs))
	for i, in := range inputs {
		out[i] = cat.Canonical(in)
	}
	return c.JSON(fiber.Map{"results": out})
}
