package edge

import (
	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/screening"
)

func (s *Server) filings(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 20, 1, 200)
	offset := intQuery(c, &v, "offset", 0, 0, 100000)
	ft, ok := filings.ParseFilingType(c.Query("filing_type"))
	if !ok {
		v.Add(filings.TypeMessage, "value_error.enum", "query", "filing_type")
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
	out, total := filings.FilterFilings(all, ft, limit, offset)
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
	evs := filings.EventsOf(all, s.EventRelevance)
	if evs == nil {
		evs = []filings.Event{}
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
	out, total := filings.FilterFacts(all, concept, limit)
	return c.JSON(fiber.Map{"symbol": a.Symbol, "facts": out, "total": total})
}

// filingProvenance answers which filing each screening input came from: the inputs the screening
// under the ruleset (spec by default) uses, each with the period it was taken from.
func (s *Server) filingProvenance(c *fiber.Ctx) error {
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
	if len(fs) == 0 {
		return shariah.Errorf(shariah.ENOTFOUND, "No fundamentals on file for %s.", a.Symbol)
	}
	sp := screening.PeriodsFor(fs, rs)
	p := sp.Screened
	inputs := screening.ScreenedInputProvenances(sp, a.CIK)
	return c.JSON(fiber.Map{"symbol": a.Symbol, "period_end": p.PeriodEnd, "period": p.Period, "period_label": screening.PeriodLabel(*p),
		"ruleset": rs.Name, "sources": sp.Sources(), "inputs": inputs})
}
