package edge

import (
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// screenOptions reads ruleset, methodology and force_refresh; unknown names are 422 listing the valid ones.
func (s *Server) screenOptions(c *fiber.Ctx) (screening.ScreenOptions, error) {
	var v shariah.Validation
	o := screening.ScreenOptions{Ruleset: c.Query("ruleset"), Methodology: c.Query("methodology"), ForceRefresh: boolQuery(c, &v, "force_refresh")}
	if err := v.Err(); err != nil {
		return o, err
	}
	if _, _, err := s.Screener.Rulesets.Resolve(o.Ruleset, o.Methodology); err != nil {
		return o, err
	}
	return o, nil
}

// screenRequest is a screening request read and looked up once: its options, its symbol (the catalog's
// Find, the one parser MCP's tools use too) and the stored body of a fresh cached result in its default
// view. The price hook (screenFresh) runs first and prepares it; the handler (screen) takes it over.
type screenRequest struct {
	opts   screening.ScreenOptions
	asset  shariah.Asset
	err    error // options or symbol refused: the handler answers it, and the charge is refunded
	served shariah.Served
	found  bool // served is the answer, to send as stored
}

// prepareScreen returns the request's screenRequest, preparing it on the first call.
func (s *Server) prepareScreen(c *fiber.Ctx) *screenRequest {
	if r, ok := c.Locals(screenKey).(*screenRequest); ok {
		return r
	}
	r := &screenRequest{}
	r.opts, r.err = s.screenOptions(c)
	if r.err == nil {
		r.asset, r.err = s.symbolParam(c)
	}
	if r.err == nil {
		r.served, r.found = s.Screener.ServedFresh(c.UserContext(), r.asset.Symbol, r.opts)
	}
	c.Locals(screenKey, r)
	return r
}

// screenFresh prices a screening request before it runs: the fresh price of the token table when it
// computes afresh (screening.Screener.NeedsFresh, MCP's screen_stock prices by it too), else the base
// price.
func (s *Server) screenFresh(c *fiber.Ctx) bool {
	r := s.prepareScreen(c)
	if r.err != nil || r.found {
		return false // refused by the handler and refunded, or sent as stored
	}
	return s.Screener.NeedsFresh(c.UserContext(), r.asset.Symbol, r.opts)
}

// screen answers GET and POST /api/screen/{symbol}: the same behaviour on both methods. A fresh cached
// result asked for in its default view is served as stored (no decoding or encoding); anything else is
// screened (or read from the screener's memory) and encoded.
func (s *Server) screen(c *fiber.Ctx) error {
	r := s.prepareScreen(c)
	if r.err != nil {
		return r.err
	}
	if r.found {
		c.Response().Header.SetCanonical(hdrXCache, hdrHit)
		return sendServed(c, r.served, 0)
	}
	res, cached, err := s.Screener.Screen(c.UserContext(), r.asset.Symbol, r.opts)
	if err != nil {
		return err
	}
	c.Set("X-Cache", map[bool]string{true: "HIT", false: "MISS"}[cached])
	return s.sendResult(c, res)
}

// viewMemo is the served body of a methodology's view of a result, reused while the same result
// (symbol, ruleset, view, screened_at) is asked for again: a view is encoded per request otherwise (the
// stored body is the default view's). maxViewMemo bounds it (results are about 12 KB each).
const maxViewMemo = 2000

type viewMemo struct {
	at time.Time
	sv shariah.Served
}

// sendResult encodes a result (screening.ServeResult, as the stored bodies are) and sends it; a
// methodology's view is memoised.
func (s *Server) sendResult(c *fiber.Ctx, r screening.Result) error {
	if r.Methodology == "" {
		sv, err := screening.ServeResult(r)
		if err != nil {
			return err
		}
		return sendServed(c, sv, 0)
	}
	key := r.Symbol + "|" + r.Ruleset.Name + "|" + r.Methodology
	s.memoMu.Lock()
	m, ok := s.viewMemo[key]
	s.memoMu.Unlock()
	if ok && m.at.Equal(r.ScreenedAt) {
		return sendServed(c, m.sv, 0)
	}
	sv, err := screening.ServeResult(r)
	if err != nil {
		return err
	}
	s.memoMu.Lock()
	if s.viewMemo == nil {
		s.viewMemo = map[string]*viewMemo{}
	}
	if len(s.viewMemo) >= maxViewMemo { // drop an arbitrary tenth (map order is random)
		n := 0
		for k := range s.viewMemo {
			delete(s.viewMemo, k)
			if n++; n >= maxViewMemo/10 {
				break
			}
		}
	}
	s.viewMemo[key] = &viewMemo{at: r.ScreenedAt, sv: sv}
	s.memoMu.Unlock()
	return sendServed(c, sv, 0)
}

// result answers GET /api/result/{symbol}: the cached result only (as stored, in its default view);
// 404 when never screened.
func (s *Server) result(c *fiber.Ctx) error {
	o, err := s.screenOptions(c)
	if err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	sv, ok, err := s.Screener.ServedCached(c.UserContext(), a.Symbol, o)
	if err != nil {
		return err
	}
	if ok {
		return sendServed(c, sv, 0)
	}
	r, err := s.Screener.Cached(c.UserContext(), a.Symbol, o)
	if err != nil {
		return err
	}
	return s.sendResult(c, r)
}

func (s *Server) results(c *fiber.Ctx) error {
	o, err := s.screenOptions(c)
	if err != nil {
		return err
	}
	rs, m, _ := s.Screener.Rulesets.Resolve(o.Ruleset, o.Methodology)
	all, err := s.Screener.Results.Results(c.UserContext(), rs.Name)
	if err != nil {
		return err
	}
	for i := range all {
		all[i] = all[i].View(rs, m)
	}
	if all == nil {
		all = []screening.Result{}
	}
	return c.JSON(all)
}

// parseSince accepts RFC 3339 timestamps (with or without fractional seconds) and plain dates.
func parseSince(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// resultsUpdates answers GET /api/results/updates?since=ISO8601[&run_id=]: results written after since,
// oldest first, from the time-ordered index. Bad parameters are 400 (not 422), as openapi.yaml documents.
func (s *Server) resultsUpdates(c *fiber.Ctx) error {
	var v shariah.Validation
	raw := c.Query("since")
	since, ok := parseSince(raw)
	if raw == "" {
		v.Add("field required (an ISO 8601 timestamp such as 2026-11-01T00:00:00Z)", "value_error.missing", "query", "since")
	} else if !ok {
		v.Add("not an ISO 8601 timestamp (e.g. 2026-11-01T00:00:00Z or 2026-11-01)", "value_error.datetime", "query", "since")
	}
	runID := c.Query("run_id")
	if len(runID) > 64 {
		v.Add("at most 64 characters", "value_error.any_str.max_length", "query", "run_id")
	}
	if err := v.Err(); err != nil {
		e := err.(*shariah.Error)
		return &shariah.Error{Code: shariah.EINVALID, Message: "Invalid parameters.", Detail: e.Detail}
	}
	o, err := s.screenOptions(c)
	if err != nil {
		return err
	}
	rs, m, _ := s.Screener.Rulesets.Resolve(o.Ruleset, o.Methodology)
	list, err := s.Screener.Results.UpdatedSince(c.UserContext(), since, rs.Name)
	if err != nil {
		return err
	}
	out := []screening.Result{}
	for _, r := range list {
		if runID == "" || r.RunID == runID {
			out = append(out, r.View(rs, m))
		}
	}
	return c.JSON(out)
}

// portfolioScan answers POST /api/portfolio/scan {symbols (1-100), force_refresh}. force_refresh is
// honoured only for the enterprise and internal plans, and silently false for the others
// (shariah.Plan.MayForceRefresh).
func (s *Server) portfolioScan(c *fiber.Ctx) error {
	var in struct {
		ForceRefresh *bool `json:"force_refresh"`
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	syms, err := bindSymbols(c, 1, 100)
	if err != nil {
		return err
	}
	o, err := s.screenOptions(c)
	if err != nil {
		return err
	}
	// Asked for in the body or the query alike, and applied only when the plan may.
	asked := o.ForceRefresh || (in.ForceRefresh != nil && *in.ForceRefresh)
	o.ForceRefresh = false
	if ch := chargeOf(c); asked && ch != nil {
		if p, ok := s.plans.Lookup(ch.Key.Plan); ok && p.MayForceRefresh() {
			o.ForceRefresh = true
		}
	}
	items, err := s.Screener.ScanPortfolio(c.UserContext(), s.catalogs, syms, o)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"results": screening.PortfolioResults(items), "summary": screening.SummarizePortfolio(items),
		"force_refresh_applied": o.ForceRefresh, "disclaimers": s.Education.DisclaimersFor("screening", "purification")})
}

// compare answers POST /api/compare {symbols: 2-5}; another count is 400 (not 422), as openapi.yaml
// documents.
func (s *Server) compare(c *fiber.Ctx) error {
	syms, err := bindSymbols(c, 1, 1000)
	if err != nil {
		return err
	}
	if len(syms) < 2 || len(syms) > 5 {
		return &shariah.Error{Code: shariah.EINVALID, Message: "Compare takes between 2 and 5 symbols.",
			Detail: map[string]any{"errors": []shariah.FieldError{{Loc: []any{"body", "symbols"}, Msg: "must hold between 2 and 5 symbols", Type: "value_error.list.size"}}}}
	}
	o, err := s.screenOptions(c)
	if err != nil {
		return err
	}
	cat, err := s.catalogs.Get(c.UserContext())
	if err != nil {
		return err
	}
	items, err := s.Screener.CompareStocks(c.UserContext(), cat, s.Ref, syms, o)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"items": items})
}
