package edge

import (
	"context"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/etf"
	"github.com/shariah-screen/shariah/jobs"
	"github.com/shariah-screen/shariah/market"
)

// etfParam resolves {symbol} to an ETF record.
func (s *Server) etfParam(c *fiber.Ctx) (shariah.Asset, error) {
	a, err := s.symbolParam(c)
	if err != nil {
		return a, err
	}
	return s.ETFs.ETFAsset(c.UserContext(), a.Symbol)
}

func (s *Server) etfHoldings(c *fiber.Ctx) error {
	a, err := s.etfParam(c)
	if err != nil {
		return err
	}
	hs, err := s.ETFs.Holdings(c.UserContext(), a)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"symbol": a.Symbol, "name": a.Name, "as_of": hs[0].AsOf, "source": hs[0].Source, "count": len(hs),
		"weight_total_pct": etf.HoldingsWeightPct(hs), "holdings": hs})
}

func (s *Server) etfInfo(c *fiber.Ctx) error {
	a, err := s.etfParam(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	hs, err := s.Ref.Holdings(ctx, a.Symbol)
	if err != nil {
		return err
	}
	q, ok, err := s.Ref.Quote(ctx, a.Symbol)
	if err != nil {
		return err
	}
	var quote *market.Quote
	if ok {
		quote = &q
	}
	asOf := ""
	if len(hs) > 0 {
		asOf = hs[0].AsOf
	}
	_, screenErr := s.ETFs.Cached(ctx, a.Symbol, "")
	return c.JSON(fiber.Map{"symbol": a.Symbol, "record": a, "quote": quote, "holdings_count": len(hs), "holdings_as_of": asOf,
		"top_holdings": etf.TopHoldings(hs, 10), "has_screening": screenErr == nil})
}

func (s *Server) etfScreening(c *fiber.Ctx) error {
	a, err := s.etfParam(c)
	if err != nil {
		return err
	}
	r, err := s.ETFs.Cached(c.UserContext(), a.Symbol, c.Query("ruleset"))
	if err != nil {
		return err
	}
	return c.JSON(r)
}

// etfScreen answers POST /api/etf/{symbol}/screen: the look-through runs on a worker; the request
// waits up to ETFWait for it and otherwise answers 202 with the location of the result.
func (s *Server) etfScreen(c *fiber.Ctx) error {
	var v shariah.Validation
	force := boolQuery(c, &v, "force_refresh")
	if err := v.Err(); err != nil {
		return err
	}
	a, err := s.etfParam(c)
	if err != nil {
		return err
	}
	rs, _, err := s.Screener.Rulesets.Resolve(c.Query("ruleset"), "")
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	if _, err := s.ETFs.Holdings(ctx, a); err != nil {
		return err
	}
	enqueue := func(ctx context.Context) error {
		return s.ETFQueue.EnqueueETF(ctx, jobs.ETFPayload{Symbol: a.Symbol, Ruleset: rs.Name, Force: force})
	}
	r, ok, err := etf.AwaitScreening(ctx, enqueue, s.ETFs.Results, a.Symbol, rs.Name, s.Now().UTC(), s.ETFWait)
	if err != nil {
		return err
	}
	if ok {
		return c.JSON(r)
	}
	loc := "/api/etf/" + a.Symbol + "/screening?ruleset=" + rs.Name
	c.Set(fiber.HeaderLocation, loc)
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"status": "queued", "symbol": a.Symbol, "location": loc,
		"message": "The look-through is running on a worker; GET the location for the result."})
}

// etfPurification answers POST /api/etf/{symbol}/purification {investment_amount, dividend_income?}.
func (s *Server) etfPurification(c *fiber.Ctx) error {
	var in etf.PurificationRequest
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	if err := in.Validate("body"); err != nil {
		return err
	}
	a, err := s.etfParam(c)
	if err != nil {
		return err
	}
	out, err := s.ETFs.Purify(c.UserContext(), a.Symbol, c.Query("ruleset"), in.Investment.Decimal, in.DividendDecimal())
	if err != nil {
		return err
	}
	out.Disclaimers = s.Education.DisclaimersFor("purification", "etf_lookthrough")
	return c.JSON(out)
}

// etfCompare answers POST /api/etf/compare {symbols: 2-5}: holdings, screening and pairwise overlap.
func (s *Server) etfCompare(c *fiber.Ctx) error {
	syms, err := bindSymbols(c, 1, 1000)
	if err != nil {
		return err
	}
	if len(syms) < 2 || len(syms) > 5 {
		return &shariah.Error{Code: shariah.EINVALID, Message: "ETF compare takes between 2 and 5 symbols.",
			Detail: map[string]any{"errors": []shariah.FieldError{{Loc: []any{"body", "symbols"}, Msg: "must hold between 2 and 5 symbols", Type: "value_error.list.size"}}}}
	}
	out, err := s.ETFs.Compare(c.UserContext(), syms, c.Query("ruleset"))
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// etfScreenBulk answers POST /api/etf/screen-bulk {symbols: 1-100}: each ETF's look-through (cached
// ones reused); an ETF without holdings or unknown is reported, not fatal.
func (s *Server) etfScreenBulk(c *fiber.Ctx) error {
	syms, err := bindSymbols(c, 1, 100)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	cat, err := s.catalogs.Get(ctx)
	if err != nil {
		return err
	}
	out, counts, err := s.ETFs.ScreenMany(ctx, cat, syms, c.Query("ruleset"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"results": out, "summary": counts})
}

// etfDirectory answers GET /api/etf/directory?q=&limit=&offset=: the ETFs of the database, with
// whether their holdings are loaded (only those can be screened).
func (s *Server) etfDirectory(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 100, 1, 500)
	offset := intQuery(c, &v, "offset", 0, 0, 1_000_000)
	onlyHoldings := boolQuery(c, &v, "with_holdings")
	if len(c.Query("q")) > 100 {
		v.Add("at most 100 characters", "value_error.any_str.max_length", "query", "q")
	}
	if err := v.Err(); err != nil {
		return err
	}
	ctx := c.UserContext()
	cat, err := s.catalogs.Get(ctx)
	if err != nil {
		return err
	}
	with, err := s.Ref.ETFsWithHoldings(ctx)
	if err != nil {
		return err
	}
	hits, _ := cat.Search(catalog.SearchQuery{Q: c.Query("q"), Type: shariah.ETF})
	all := etf.Directory(hits, with, onlyHoldings)
	page := []etf.DirectoryEntry{}
	if offset < len(all) {
		page = all[offset:min(offset+limit, len(all))]
	}
	return c.JSON(fiber.Map{"total": len(all), "limit": limit, "offset": offset, "results": page})
}
