package edge

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
)

// NewsSourceInfo is a configured news source.
type NewsSourceInfo struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	Kind string `json:"kind"` // feed (RSS or Atom) or sec (8-K events)
}

var relevanceLevels = []string{"high", "medium", "low"}

func (s *Server) news(c *fiber.Ctx) error {
	var v shariah.Validation
	page := intQuery(c, &v, "page", 1, 1, 100000)
	size := intQuery(c, &v, "page_size", 20, 1, 100)
	q := shariah.NewsQuery{Source: c.Query("source"), Category: c.Query("category"), Q: c.Query("q"), Relevance: c.Query("compliance_relevance")}
	if q.Relevance != "" && !oneOf(q.Relevance, relevanceLevels) {
		v.Add("must be high, medium or low", "value_error.enum", "query", "compliance_relevance")
	}
	if len(q.Q) > 100 {
		v.Add("at most 100 characters", "value_error.any_str.max_length", "query", "q")
	}
	if raw := c.Query("symbol"); raw != "" {
		sym, ok := shariah.NormalizeSymbol(raw)
		if !ok {
			v.Add("not a valid symbol", "value_error.symbol", "query", "symbol")
		}
		q.Symbol = sym
	}
	if err := v.Err(); err != nil {
		return err
	}
	q.Offset, q.Limit = (page-1)*size, size
	list, total, err := s.News.News(c.UserContext(), q)
	if err != nil {
		return err
	}
	if list == nil {
		list = []shariah.Article{}
	}
	return c.JSON(fiber.Map{"articles": list, "total": total, "page": page, "page_size": size})
}

func (s *Server) newsSources(c *fiber.Ctx) error {
	health, err := s.healthByName(c)
	if err != nil {
		return err
	}
	out := make([]fiber.Map, 0, len(s.NewsSources))
	for _, src := range s.NewsSources {
		h, ok := health["news:"+src.Name]
		if src.Kind == "sec" {
			h, ok = health["sec"]
		}
		entry := fiber.Map{"name": src.Name, "url": src.URL, "kind": src.Kind, "health": nil}
		if ok {
			entry["health"] = h
		}
		out = append(out, entry)
	}
	return c.JSON(fiber.Map{"sources": out})
}

func (s *Server) healthByName(c *fiber.Ctx) (map[string]shariah.SourceHealth, error) {
	out := map[string]shariah.SourceHealth{}
	if s.Health == nil {
		return out, nil
	}
	all, err := s.Health.Health(c.UserContext())
	if err != nil {
		return nil, err
	}
	for _, h := range all {
		out[h.Name] = h
	}
	return out, nil
}

func (s *Server) symbolNews(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 20, 1, 100)
	rel := c.Query("compliance_relevance")
	if rel != "" && !oneOf(rel, relevanceLevels) {
		v.Add("must be high, medium or low", "value_error.enum", "query", "compliance_relevance")
	}
	if err := v.Err(); err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	list, total, err := s.News.News(c.UserContext(), shariah.NewsQuery{Symbol: a.Symbol, Relevance: rel, Limit: limit})
	if err != nil {
		return err
	}
	if list == nil {
		list = []shariah.Article{}
	}
	return c.JSON(fiber.Map{"symbol": a.Symbol, "articles": list, "total": total})
}

func (s *Server) filings(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 20, 1, 200)
	offset := intQuery(c, &v, "offset", 0, 0, 100000)
	ft, ok := shariah.ParseFilingType(c.Query("filing_type"))
	if !ok {
		v.Add(shariah.FilingTypeMessage, "value_error.enum", "query", "filing_type")
	}
	if err := v.Err(); err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	all, err := s.Filings.Filings(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	out, total := shariah.FilterFilings(all, ft, limit, offset)
	res := fiber.Map{"symbol": a.Symbol, "cik": a.CIK, "filings": out, "total": total, "limit": limit, "offset": offset}
	if len(all) == 0 {
		res["note"] = "No filings ingested for this symbol (the SEC ingester covers US filers it is configured for)."
	}
	return c.JSON(res)
}

func (s *Server) filingEvents(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 50, 1, 500)
	if err := v.Err(); err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	all, err := s.Filings.Filings(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	evs := shariah.EventsOf(all, s.EventRelevance)
	if evs == nil {
		evs = []shariah.FilingEvent{}
	}
	return c.JSON(fiber.Map{"symbol": a.Symbol, "events": evs[:min(limit, len(evs))], "total": len(evs)})
}

func (s *Server) filingFacts(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 200, 1, 5000)
	concept := c.Query("concept")
	if len(concept) > 120 {
		v.Add("at most 120 characters", "value_error.any_str.max_length", "query", "concept")
	}
	if err := v.Err(); err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	all, err := s.Filings.Facts(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	out, total := shariah.FilterFacts(all, concept, limit)
	return c.JSON(fiber.Map{"symbol": a.Symbol, "facts": out, "total": total})
}

// filingProvenance answers which filing each screening input of the latest period came from.
func (s *Server) filingProvenance(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	fs, err := s.Ref.Fundamentals(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	if len(fs) == 0 {
		return shariah.Errorf(shariah.ENOTFOUND, "No fundamentals on file for %s.", a.Symbol)
	}
	p := shariah.LatestFundamentals(fs)
	inputs := fiber.Map{}
	cik := strings.TrimLeft(a.CIK, "0")
	for _, f := range shariah.Fields {
		fact, ok := p.Facts[f]
		if !ok {
			inputs[string(f)] = fiber.Map{"available": false, "reason": p.Missing[f]}
			continue
		}
		entry := fiber.Map{"available": true, "value": fact.Value, "source": fact.Source, "source_ref": fact.Ref, "form": fact.Form,
			"filed": fact.Filed, "tag": fact.Tag, "note": fact.Note, "document": fact.Document, "cik": fact.CIK, "accession": nil}
		if fact.CIK != "" {
			cik = strings.TrimLeft(fact.CIK, "0")
		}
		// The filing's EDGAR address only when the accession number is known: a filing read from a
		// document whose accession is not known has the document's name as its reference instead.
		if fact.Source == shariah.SourceFiling && cik != "" && shariah.IsAccession(fact.Ref) {
			entry["accession"] = fact.Ref
			entry["url"] = fmt.Sprintf("https://www.sec.gov/Archives/edgar/data/%s/%s/%s", cik, strings.ReplaceAll(fact.Ref, "-", ""), fact.Document)
		}
		inputs[string(f)] = entry
	}
	return c.JSON(fiber.Map{"symbol": a.Symbol, "period_end": p.PeriodEnd, "period": p.Period, "sources": p.Sources(), "inputs": inputs})
}

func (s *Server) dividends(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	ds, err := s.Ref.Dividends(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	if ds == nil {
		ds = []shariah.Dividend{}
	}
	return c.JSON(fiber.Map{"symbol": a.Symbol, "currency": a.Currency, "dividends": ds, "count": len(ds)})
}

// purificationRateOf screens (cached) and returns the result behind a purification.
func (s *Server) purificationResult(c *fiber.Ctx, a shariah.Asset) (shariah.Result, error) {
	o, err := s.screenOptions(c)
	if err != nil {
		return shariah.Result{}, err
	}
	r, _, err := s.Screener.Screen(c.UserContext(), a.Symbol, o)
	return r, err
}

func (s *Server) purificationRate(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	r, err := s.purificationResult(c, a)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"symbol": a.Symbol, "purification_rate": r.PurificationRate, "purification_rate_fraction": r.PurificationFraction,
		"purification_rate_pct": r.PurificationRatePct, "method": r.PurificationMethod, "ruleset": r.Ruleset.Name, "as_of": r.DataQuality.AsOf, "sources": r.DataQuality.Sources,
		"illustrative": r.DataQuality.Illustrative, "revenue_breakdown": r.RevenueBreakdown,
		"disclaimers": s.Education.DisclaimersFor("purification")})
}

// dividendPurification answers the amount to purify per payment (dividend method: amount x rate), or,
// with method=aaoifi, per fiscal period (impure income per share x shares held, independent of
// dividends: AAOIFI Standard 21).
func (s *Server) dividendPurification(c *fiber.Ctx) error {
	var v shariah.Validation
	method := c.Query("method", "dividend")
	if method != "dividend" && method != "aaoifi" {
		v.Add("must be dividend or aaoifi", "value_error.enum", "query", "method")
	}
	var shares *decimal.Decimal
	if raw := c.Query("shares"); raw != "" {
		var n shariah.Number // read as a JSON number: NaN, Infinity and overlong text are refused
		if err := n.UnmarshalJSON([]byte(strconv.Quote(raw))); err != nil {
			v.Add("must be a positive number", "value_error.number", "query", "shares")
		} else if v.Quantity(n.Decimal, true, "query", "shares") { // at most MaxQuantity and MaxInputPlaces
			shares = &n.Decimal
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	r, err := s.purificationResult(c, a)
	if err != nil {
		return err
	}
	out := fiber.Map{"symbol": a.Symbol, "method": method, "purification_rate": r.PurificationRate,
		"purification_rate_fraction": r.PurificationFraction, "illustrative": r.DataQuality.Illustrative,
		"disclaimers": s.Education.DisclaimersFor("purification")}
	if method == "aaoifi" {
		fs, err := s.Ref.Fundamentals(c.UserContext(), a.Symbol)
		if err != nil {
			return err
		}
		periods := []fiber.Map{}
		for _, p := range shariah.ImpureIncomePerShare(fs) {
			m := fiber.Map{"period_end": p.PeriodEnd, "impure_income_per_share": p.PerShare, "source": p.Source, "source_ref": p.Ref}
			if p.Currency != "" {
				m["currency"] = p.Currency
			}
			if shares != nil {
				m["amount"] = shariah.NewNumber(p.PerShare.Mul(*shares).Round(2))
			}
			periods = append(periods, m)
		}
		out["periods"] = periods
		if len(periods) == 0 {
			out["note"] = "No fiscal year on file with both interest income and shares outstanding."
		}
		return c.JSON(out)
	}
	ds, err := s.Ref.Dividends(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	pays := shariah.PurifyPayments(ds, r.PurificationFraction, shares)
	out["payments"] = pays
	if r.PurificationFraction == nil {
		out["note"] = "The purification rate is unknown (" + r.ComplianceExplanation + ")"
	}
	return c.JSON(out)
}

// trajectory answers the last 8 quarters of the screening ratios and a one-line direction.
func (s *Server) trajectory(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	pts, err := s.Trajectory.Trajectory(c.UserContext(), a.Symbol, 8)
	if err != nil {
		return err
	}
	if pts == nil {
		pts = []shariah.TrajectoryPoint{}
	}
	return c.JSON(fiber.Map{"symbol": a.Symbol, "quarters": pts, "summary": shariah.TrajectorySummary(pts)})
}

// staleness compares the cached screening with the filings since: a material 8-K after the screening
// (or after the fundamentals it used) may have changed what the verdict rests on.
func (s *Server) staleness(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	r, err := s.Screener.Cached(c.UserContext(), a.Symbol, shariah.ScreenOptions{Ruleset: c.Query("ruleset")})
	if err != nil {
		return err
	}
	all, err := s.Filings.Filings(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	return c.JSON(shariah.StalenessOf(r, all, s.EventRelevance))
}
