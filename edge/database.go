package edge

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
)

// searchQuery parses the database search parameters.
func searchQuery(c *fiber.Ctx) (shariah.SearchQuery, error) {
	var v shariah.Validation
	q := shariah.SearchQuery{Q: c.Query("q"), Sector: c.Query("sector"), Country: c.Query("country"), Exchange: c.Query("exchange")}
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

func (s *Server) databaseSearch(c *fiber.Ctx) error {
	q, err := searchQuery(c)
	if err != nil {
		return err
	}
	cat, err := s.catalogs.Get(c.UserContext())
	if err != nil {
		return err
	}
	hits, total := cat.Search(q)
	return c.JSON(fiber.Map{"total": total, "limit": q.Limit, "offset": q.Offset, "results": hits})
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
	return c.JSON(cat.Suggest(q, limit))
}

func (s *Server) databaseStock(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	fs, err := s.Ref.Fundamentals(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	rec := shariah.StockRecordOf(a, fs)
	return sendCacheable(c, rec, time.Hour)
}

func (s *Server) databaseStats(c *fiber.Ctx) error {
	cat, err := s.catalogs.Get(c.UserContext())
	if err != nil {
		return err
	}
	st := cat.Stats()
	n, err := s.Ref.ScreeningResultCount(c.UserContext())
	if err != nil {
		return err
	}
	st.ScreeningResults = int(n)
	if st.ScreeningResultsBySource, err = s.Ref.ScreeningResultsBySource(c.UserContext()); err != nil {
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
	out := make([]shariah.Resolution, len(inputs))
	for i, in := range inputs {
		out[i] = cat.Canonical(in)
	}
	return c.JSON(fiber.Map{"results": out})
}
