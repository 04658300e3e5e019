package edge

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
)

// symbolParam reads and checks the {symbol} path parameter: trimmed, upper-cased, plausible (else 422,
// before any store is asked), then resolved in the catalog, also through its canonical forms (BRK.B,
// AAPL.US, 700.HK); unknown is 404.
func (s *Server) symbolParam(c *fiber.Ctx) (shariah.Asset, error) {
	// fiber hands path parameters over still percent-encoded ("%5EGSPC", "%20msft").
	raw, err := url.PathUnescape(c.Params("symbol"))
	if err != nil {
		raw = c.Params("symbol")
	}
	return s.catalogs.Find(c.UserContext(), raw, "path", "symbol")
}

// searchQuery parses the database search parameters.
func searchQuery(c *fiber.Ctx) (shariah.SearchQuery, error) {
	var v shariah.Validation
	q := shariah.SearchQuery{Q: c.Query("q"), Sector: c.Query("sector"), Country: c.Query("country"), Exchange: c.Query("exchange")}
	if len(q.Q) > 100 {
		v.Add("at most 100 characters", "value_error.any_str.max_length", "query", "q")
	}
	switch at := c.Query("asset_type", "equities"); strings.ToLower(at) {
	case "all", "any":
	default:
		t, ok := shariah.ParseAssetType(at)
		if !ok {
			v.Add("must be one of equities, etfs, funds, indices, all", "value_error.enum", "query", "asset_type")
		}
		q.Type = t
	}
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

// stockRecord is the database record with the latest fundamentals on file and their provenance.
type stockRecord struct {
	shariah.Asset
	Fundamentals *shariah.Fundamentals `json:"fundamentals"` // latest period; null when none
	Periods      int                   `json:"fundamentals_periods"`
	DataQuality  dataQuality           `json:"data_quality"`
}

type dataQuality struct {
	Sources []string `json:"sources"` // filing, live, illustrative
	AsOf    string   `json:"as_of"`   // period end of the latest fundamentals
	Note    string   `json:"note,omitempty"`
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
	rec := stockRecord{Asset: a, Periods: len(fs), DataQuality: dataQuality{Sources: []string{}}}
	if len(fs) > 0 {
		latest := shariah.LatestFundamentals(fs)
		rec.Fundamentals = &latest
		rec.DataQuality.Sources = latest.Sources()
		rec.DataQuality.AsOf = latest.PeriodEnd
		for _, src := range rec.DataQuality.Sources {
			if src == shariah.SourceIllustrative {
				rec.DataQuality.Note = "Illustrative figures: not from filings."
			}
		}
	}
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

// quote serves the stored quote JSON as it is (it is the marshalled shariah.Quote): the hot path of the
// service decodes nothing, and the ETag and as-of date are memoised per symbol until the bytes change.
func (s *Server) quote(c *fiber.Ctx) error {
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	if s.Popular != nil {
		s.Popular.Add(a.Symbol)
	}
	raw, ok, err := s.Ref.QuoteJSON(c.UserContext(), a.Symbol)
	if err != nil {
		return err
	}
	if !ok {
		return shariah.Errorf(shariah.ENOTFOUND, "No price data for %s.", a.Symbol)
	}
	m, _ := s.quoteMemo.Load(a.Symbol)
	memo, _ := m.(*rawMemo)
	if memo == nil || !bytes.Equal(memo.raw, raw) {
		// Once per stored version: the body served adds the market_data disclaimer, and re-encoding
		// brings a quote stored in an earlier shape (change_percent as a string, no changePercent)
		// to the current one.
		var q shariah.Quote
		if err := json.Unmarshal(raw, &q); err != nil {
			return err
		}
		if d, ok := s.marketDataDisclaimer(); ok {
			q.Disclaimers = []shariah.Disclaimer{d}
		}
		body, err := json.Marshal(q)
		if err != nil {
			return err
		}
		memo = &rawMemo{raw: bytes.Clone(raw), body: body, etag: etagOf(body), asOf: q.AsOf}
		s.quoteMemo.Store(a.Symbol, memo)
	}
	return sendRaw(c, memo.body, memo.etag, ageMaxAge(memo.asOf, s.Now()))
}

// rawMemo is the body served for a stored version (raw), with its ETag and as-of date.
type rawMemo struct {
	raw  []byte
	body []byte
	etag string
	asOf string
}

// symbolsBody is the body of the batch routes: a list of symbols.
type symbolsBody struct {
	Symbols []string `json:"symbols"`
}

// bindSymbols reads {symbols: [...]} with 1..max entries, each a string of at most 40 characters.
func bindSymbols(c *fiber.Ctx, lo, max int) ([]string, error) {
	var in struct {
		Symbols *[]json.RawMessage `json:"symbols"`
	}
	if err := bindJSON(c, &in); err != nil {
		return nil, err
	}
	var v shariah.Validation
	if in.Symbols == nil {
		v.Add("field required", "value_error.missing", "body", "symbols")
		return nil, v.Err()
	}
	list := *in.Symbols
	if len(list) < lo || len(list) > max {
		v.Add("must hold between "+strconv.Itoa(lo)+" and "+strconv.Itoa(max)+" symbols", "value_error.list.size", "body", "symbols")
		return nil, v.Err()
	}
	out := make([]string, 0, len(list))
	for i, raw := range list {
		var sym string
		if err := json.Unmarshal(raw, &sym); err != nil {
			v.Add("must be a string", "type_error.str", "body", "symbols", i)
			continue
		}
		if len(sym) > 40 || strings.TrimSpace(sym) == "" {
			v.Add("must be a non-empty string of at most 40 characters", "value_error.symbol", "body", "symbols", i)
			continue
		}
		out = append(out, sym)
	}
	return out, v.Err()
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
	var ds []shariah.Disclaimer
	if d, ok := s.marketDataDisclaimer(); ok {
		ds = []shariah.Disclaimer{d}
	}
	out, err := shariah.BatchQuotes(c.UserContext(), s.catalogs, s.Ref, syms, count, ds)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// ohlcPoint is one candle as served.
type ohlcPoint struct {
	Date string `json:"date"`
	shariah.Bar
	Source string `json:"source"`
}

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// ohlc answers GET /api/ohlc/{symbol}?period=1y&interval=1d (shariah.PriceHistory).
func (s *Server) ohlc(c *fiber.Ctx) error {
	period, interval := c.Query("period", "1y"), c.Query("interval", "1d")
	if err := shariah.ValidatePriceHistory(period, interval, "query"); err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	bars, source, err := shariah.PriceHistory(c.UserContext(), s.Ref, a.Symbol, period, interval)
	if err != nil {
		return err
	}
	out := make([]ohlcPoint, len(bars))
	for i, b := range bars {
		out[i] = ohlcPoint{Date: b.Date.Format("2006-01-02"), Bar: b, Source: source}
	}
	return sendCacheable(c, out, ageMaxAge(out[len(out)-1].Date, s.Now()))
}

func (s *Server) trending(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 10, 1, 50)
	if err := v.Err(); err != nil {
		return err
	}
	items, err := shariah.TrendingList(c.UserContext(), s.Ref, limit)
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
	var quote *shariah.Quote
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
	per := map[string]shariah.FXRate{"USD": {Currency: "USD", PerUSD: shariah.NewNumber(decimal.NewFromInt(1)), Source: "definition"}}
	for _, r := range rates {
		per[r.Currency] = r
	}
	b, ok := per[base]
	if !ok {
		return shariah.Errorf(shariah.ENOTFOUND, "No rate for %s.", base)
	}
	type rate struct {
		Currency string         `json:"currency"`
		Rate     shariah.Number `json:"rate"`
		AsOf     string         `json:"as_of"`
		Source   string         `json:"source"`
	}
	cross := func(q shariah.FXRate) rate {
		r := q.PerUSD.Decimal.DivRound(b.PerUSD.Decimal, 8)
		asOf := q.AsOf
		if b.AsOf > asOf {
			asOf = b.AsOf
		}
		return rate{Currency: q.Currency, Rate: shariah.NewNumber(r), AsOf: asOf, Source: q.Source}
	}
	out := []rate{}
	if quote != "" {
		q, ok := per[quote]
		if !ok {
			return shariah.Errorf(shariah.ENOTFOUND, "No rate for %s.", quote)
		}
		out = append(out, cross(q))
	} else {
		for cur, q := range per {
			if cur != base {
				out = append(out, cross(q))
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
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

// cachedScreening returns the cached screening result of a symbol (default ruleset), or nil when it
// was never screened.
func (s *Server) cachedScreening(c *fiber.Ctx, symbol string) (*shariah.Result, error) {
	r, err := s.Screener.Cached(c.UserContext(), symbol, shariah.ScreenOptions{})
	if shariah.ErrorCode(err) == shariah.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// marketDataDisclaimer is the market_data disclaimer of the registry (false without one).
func (s *Server) marketDataDisclaimer() (shariah.Disclaimer, bool) {
	if s.Education == nil {
		return shariah.Disclaimer{}, false
	}
	return s.Education.Disclaimer("market_data")
}
