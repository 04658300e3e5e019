package edge

import (
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/finance"
	"github.com/shariah-screen/shariah/screening"
)

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
func (s *Server) purificationResult(c *fiber.Ctx, a shariah.Asset) (screening.Result, error) {
	o, err := s.screenOptions(c)
	if err != nil {
		return screening.Result{}, err
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
		periods := finance.PurifyPeriods(fs, shares)
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
	pays := finance.PurifyPayments(ds, r.PurificationFraction, shares)
	out["payments"] = pays
	if r.PurificationFraction == nil {
		out["note"] = "The purification rate is unknown (" + r.ComplianceExplanation + ")"
	}
	return c.JSON(out)
}
