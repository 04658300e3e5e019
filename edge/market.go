package edge

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// quote serves the quote's body as it was stored with the quote (market.QuoteBodies: the quote with
// the market_data disclaimer): a local lookup in the client-side cache and a write, no encoding. A quote
// stored without that body (by an older binary, or with other disclaimers) is encoded by the store and
// stored with its body for the next request.
func (s *Server) quote(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	if s.Popular != nil {
		s.Popular.Add(a.Symbol)
	}
	q, ok, err := s.Ref.ServedQuote(c.UserContext(), a.Symbol, s.quoteBodies)
	if err != nil {
		return err
	}
	if !ok {
		return shariah.Errorf(shariah.ENOTFOUND, "No price data for %s.", a.Symbol)
	}
	return sendRaw(c, q.Body, q.ETag, ageMaxAge(q.AsOf, s.Now()))
}

// quotesBatch answers POST /api/quotes/batch: each requested symbol (as given, trimmed and upper-cased)
// maps to its quote, or null when it is malformed, unknown or has no price data.
func (s *Server) quotesBatch(c *fiber.Ctx) error {
	syms, err := bindSymbols(c, 1, 50)
	if err != nil {
		return err
	}
	var count func(string)
	if s.Popular != nil {
		count = s.Popular.Add
	}
	// Each quote with the disclaimers a single quote is served with.
	out, err := market.BatchQuotes(c.UserContext(), s.catalogs, s.Ref, syms, count, s.quoteBodies.Disclaimers())
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// ohlcPoint is one candle as served: open, high, low and volume null where the source has none.
type ohlcPoint struct {
	shariah.Candle
	Source string `json:"source"`
}

// ohlc answers GET /api/ohlc/{symbol}?period=1y&interval=1d (market.PriceHistory).
func (s *Server) ohlc(c *fiber.Ctx) error {
	period, interval := c.Query("period", "1y"), c.Query("interval", "1d")
	if err := market.ValidatePriceHistory(period, interval, "query"); err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	bars, source, err := market.PriceHistory(c.UserContext(), s.Ref, a.Symbol, period, interval)
	if err != nil {
		return err
	}
	out := make([]ohlcPoint, len(bars))
	for i, b := range bars {
		out[i] = ohlcPoint{Candle: b.Candle(), Source: source}
	}
	return sendCacheable(c, out, ageMaxAge(out[len(out)-1].Date, s.Now()))
}

func (s *Server) trending(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 10, 1, 50)
	if err := v.Err(); err != nil {
		return err
	}
	items, err := market.TrendingList(c.UserContext(), s.Ref, limit)
	if err != nil {
		return err
	}
	return c.JSON(items)
}

// assetFull answers GET /api/asset/{symbol}/full: the database record, the latest quote (null without
// price data) and the cached screening result (null until the symbol is screened).
func (s *Server) assetFull(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	q, ok, err := s.Ref.Quote(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	var quote *market.Quote
	if ok {
		quote = &q
	}
	screening, err := s.cachedScreening(c, a.Symbol)
	if err != nil {
		return err
	}
	out := fiber.Map{"symbol": a.Symbol, "record": a, "quote": quote, "screening": screening}
	if screening == nil {
		out["screening_note"] = "Not screened yet: POST /api/screen/" + a.Symbol + " computes it."
	}
	return c.JSON(out)
}

// fx answers GET /api/fx?base=USD&quote=EUR: the latest rate of every currency against base, or one
// pair. Rates are units of the quote currency per one unit of base (cross rates through USD).
func (s *Server) fx(c *fiber.Ctx) error {
	var v shariah.Validation
	base := strings.ToUpper(strings.TrimSpace(c.Query("base", "USD")))
	quote := strings.ToUpper(strings.TrimSpace(c.Query("quote")))
	if !currencyCode(base) {
		v.Add("must be an ISO 4217 code such as USD", "value_error.currency", "query", "base")
	}
	if quote != "" && !currencyCode(quote) {
		v.Add("must be an ISO 4217 code such as EUR", "value_error.currency", "query", "quote")
	}
	if err := v.Err(); err != nil {
		return err
	}
	rates, err := s.Ref.FX(c.UserContext())
	if err != nil {
		return err
	}
	out, err := market.CrossRates(rates, base, quote)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"base": base, "rates": out,
		"note": "Units of each currency per one " + base + "; monthly averages of the Federal Reserve's H.10 series where loaded."})
}

func currencyCode(s string) bool {
	if len(s) != 3 {
		return false
	}
	for _, r := range s {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// cachedScreening returns the cached screening result of a symbol (default ruleset), or nil when it
// was never screened.
func (s *Server) cachedScreening(c *fiber.Ctx, symbol string) (*screening.Result, error) {
	r, err := s.Screener.Cached(c.UserContext(), symbol, screening.ScreenOptions{})
	if shariah.ErrorCode(err) == shariah.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}
