package edge

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

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

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// boolQuery reads an optional boolean query parameter (true/false/1/0).
func boolQuery(c *fiber.Ctx, v *shariah.Validation, name string) bool {
	switch strings.ToLower(c.Query(name)) {
	case "", "false", "0":
		return false
	case "true", "1":
		return true
	}
	v.Add("value is not a valid boolean (true or false)", "type_error.bool", "query", name)
	return false
}

// csvSafe neutralises a cell a spreadsheet would run as a formula (= + - @, tab, carriage return).
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// intQuery reads an optional integer query parameter within [lo, hi].
func intQuery(c *fiber.Ctx, v *shariah.Validation, name string, def, lo, hi int) int {
	raw := c.Query(name)
	if raw == "" {
		return def
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		v.Add("value is not a valid integer", "type_error.integer", "query", name)
		return def
	}
	if n < lo || n > hi {
		v.Add("value must be between "+strconv.Itoa(lo)+" and "+strconv.Itoa(hi), "value_error.number.range", "query", name)
		return def
	}
	return n
}
