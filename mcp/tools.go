package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	shariah "github.com/shariah-screen/shariah"
)

// LocalUser owns the watchlists of an assistant on stdio (over HTTP watchlists need a key).
const LocalUser = "mcp-local"

// tool is one MCP tool: its schemas (JSON Schema text), annotations and implementation. run returns the
// structured result (an object) and a readable rendering of it.
type tool struct {
	name, desc    string
	input, output string
	readOnly      bool
	destructive   bool
	idempotent    bool
	run           func(ctx context.Context, args json.RawMessage) (any, string, error)
}

// objectOut is the output schema of a tool whose result is an object with these required keys.
func objectOut(required ...string) string {
	schema := map[string]any{"type": "object", "additionalProperties": true}
	if len(required) > 0 {
		schema["required"] = required
	}
	b, _ := json.Marshal(schema)
	return string(b)
}

// addTools registers the tools whose services are present.
func addTools(s *server.MCPServer, d Deps) {
	for _, t := range d.tools() {
		t := t
		opts := []mcp.ToolOption{
			mcp.WithDescription(t.desc),
			func(tl *mcp.Tool) {
				tl.InputSchema = mcp.ToolInputSchema{}
				tl.RawInputSchema = json.RawMessage(t.input)
			},
			mcp.WithRawOutputSchema(json.RawMessage(t.output)),
			mcp.WithReadOnlyHintAnnotation(t.readOnly),
			mcp.WithDestructiveHintAnnotation(t.destructive),
			mcp.WithIdempotentHintAnnotation(t.idempotent),
			mcp.WithOpenWorldHintAnnotation(false),
		}
		s.AddTool(mcp.NewTool(t.name, opts...), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			raw, _ := json.Marshal(req.GetArguments())
			res, text, err := t.run(ctx, raw)
			if err != nil {
				return errorResult(err), nil
			}
			return mcp.NewToolResultStructured(res, text), nil
		})
	}
}

// errorResult turns an error into a tool result with isError: a domain error's message (and its
// field problems), never the text of an internal error.
func errorResult(err error) *mcp.CallToolResult {
	var de *shariah.Error
	if !errors.As(err, &de) || de.Code == shariah.EINTERNAL {
		return mcp.NewToolResultError("Internal error.")
	}
	msg := de.Message
	if d, ok := de.Detail.(map[string]any); ok {
		if list, ok := d["errors"].([]shariah.FieldError); ok {
			var parts []string
			for _, fe := range list {
				var loc []string
				for _, l := range fe.Loc {
					loc = append(loc, fmt.Sprint(l))
				}
				parts = append(parts, strings.Join(loc, ".")+": "+fe.Msg)
			}
			msg += " " + strings.Join(parts, "; ")
		}
	}
	return mcp.NewToolResultError(de.Code + ": " + msg)
}

// bind decodes the arguments; a type mismatch is a validation error naming the argument.
func bind(raw json.RawMessage, dst any) error {
	if err := json.Unmarshal(raw, dst); err != nil {
		var te *json.UnmarshalTypeError
		var v shariah.Validation
		if errors.As(err, &te) {
			v.Add("wrong type: expected "+te.Type.String(), "type_error", append([]any{"arguments"}, shariah.TypeErrorLoc(raw, dst, te)...)...)
		} else {
			v.Add("arguments are not a JSON object", "type_error", "arguments")
		}
		return v.Err()
	}
	return nil
}

// resolve finds a symbol argument (422-style error when malformed, not found when unknown).
func (d Deps) resolve(ctx context.Context, raw string) (shariah.Asset, error) {
	return d.Catalogs.Find(ctx, raw, "arguments", "symbol")
}

func verdict(r shariah.Result) string {
	s := fmt.Sprintf("%s (%s): %s under %s.", r.Symbol, r.Name, r.ComplianceStatus, r.Ruleset.Name)
	if r.ComplianceExplanation != "" {
		s += " " + r.ComplianceExplanation
	}
	if r.DataQuality.Illustrative {
		s += " [illustrative data]"
	}
	return s + " Automated analysis of public data, not a religious ruling."
}

const symbolArg = `"symbol": {"type": "string", "minLength": 1, "maxLength": 20, "description": "Ticker (AAPL, BRK-B, 7203.T)."}`

func (d Deps) tools() []tool {
	var ts []tool
	if d.Screener != nil {
		ts = append(ts, tool{name: "screen_stock", readOnly: true, idempotent: true,
			desc:   "Screen a stock for Shariah compliance (cached when fresh) under a ruleset; the same result as POST /api/screen/{symbol}.",
			input:  `{"type":"object","properties":{` + symbolArg + `,"force_refresh":{"type":"boolean","default":false},"ruleset":{"type":"string","description":"Ruleset name (spec by default): ` + strings.Join(d.Screener.Rulesets.Names(), ", ") + `"}},"required":["symbol"],"additionalProperties":false}`,
			output: objectOut("symbol", "compliance_status", "ruleset"),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				var in struct {
					Symbol       string `json:"symbol"`
					ForceRefresh bool   `json:"force_refresh"`
					Ruleset      string `json:"ruleset"`
				}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				a, err := d.resolve(ctx, in.Symbol)
				if err != nil {
					return nil, "", err
				}
				r, _, err := d.Screener.Screen(ctx, a.Symbol, shariah.ScreenOptions{Ruleset: in.Ruleset, ForceRefresh: in.ForceRefresh})
				if err != nil {
					return nil, "", err
				}
				return r, verdict(r), nil
			}},
			tool{name: "get_screening_result", readOnly: true, idempotent: true,
				desc:   "The cached screening of a symbol (no new computation); not found when it was never screened.",
				input:  `{"type":"object","properties":{` + symbolArg + `,"ruleset":{"type":"string"}},"required":["symbol"],"additionalProperties":false}`,
				output: objectOut("symbol", "compliance_status"),
				run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
					var in struct{ Symbol, Ruleset string }
					if err := bind(raw, &in); err != nil {
						return nil, "", err
					}
					a, err := d.resolve(ctx, in.Symbol)
					if err != nil {
						return nil, "", err
					}
					r, err := d.Screener.Cached(ctx, a.Symbol, shariah.ScreenOptions{Ruleset: in.Ruleset})
					if err != nil {
						return nil, "", err
					}
					return r, verdict(r), nil
				}},
			tool{name: "compare_stocks", readOnly: true, idempotent: true,
				desc:   "Screen 2 to 5 stocks side by side.",
				input:  `{"type":"object","properties":{"symbols":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":5}},"required":["symbols"],"additionalProperties":false}`,
				output: objectOut("items"),
				run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
					var in struct{ Symbols []string }
					if err := bind(raw, &in); err != nil {
						return nil, "", err
					}
					if len(in.Symbols) < 2 || len(in.Symbols) > 5 {
						var v shariah.Validation
						v.Add("give 2 to 5 symbols", "value_error.list", "arguments", "symbols")
						return nil, "", v.Err()
					}
					var items []shariah.Result
					var lines []string
					for _, s := range in.Symbols {
						a, err := d.resolve(ctx, s)
						if err != nil {
							return nil, "", err
						}
						r, _, err := d.Screener.Screen(ctx, a.Symbol, shariah.ScreenOptions{})
						if err != nil {
							return nil, "", err
						}
						items = append(items, r)
						lines = append(lines, verdict(r))
					}
					return map[string]any{"items": items}, strings.Join(lines, "\n"), nil
				}})
	}
	if d.Ref != nil {
		ts = append(ts, tool{name: "get_quote", readOnly: true, idempotent: true,
			desc:   "Latest end-of-day quote of a symbol, or of several (symbols wins over symbol); unknown symbols map to null.",
			input:  `{"type":"object","properties":{` + symbolArg + `,"symbols":{"type":"array","items":{"type":"string"},"maxItems":50}},"additionalProperties":false}`,
			output: objectOut("quotes"),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				var in struct {
					Symbol  string
					Symbols []string
				}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				if len(in.Symbols) == 0 && in.Symbol != "" {
					in.Symbols = []string{in.Symbol}
				}
				if len(in.Symbols) == 0 {
					var v shariah.Validation
					v.Add("give symbol or symbols", "value_error.missing", "arguments", "symbol")
					return nil, "", v.Err()
				}
				ds := []shariah.Disclaimer{}
				if d.Education != nil {
					ds = d.Education.DisclaimersFor("market_data")
				}
				out, err := shariah.BatchQuotes(ctx, d.Catalogs, d.Ref, in.Symbols, nil, ds)
				if err != nil {
					return nil, "", err
				}
				var lines []string
				for key, q := range out {
					if q == nil {
						lines = append(lines, key+": no quote (unknown symbol or no price data)")
						continue
					}
					lines = append(lines, fmt.Sprintf("%s: %s %s as of %s (%s)", q.Symbol, q.Price.String(), q.Currency, q.AsOf, q.Source))
				}
				sort.Strings(lines)
				if len(ds) > 0 {
					lines = append(lines, ds[0].Text)
				}
				return map[string]any{"quotes": out, "disclaimers": ds}, strings.Join(lines, "\n"), nil
			}},
			tool{name: "get_trending_stocks", readOnly: true, idempotent: true,
				desc:   "The most active and moving stocks of the latest session.",
				input:  `{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":16,"default":10}},"additionalProperties":false}`,
				output: objectOut("trending"),
				run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
					in := struct{ Limit int }{Limit: 10}
					if err := bind(raw, &in); err != nil {
						return nil, "", err
					}
					if in.Limit < 1 || in.Limit > 16 {
						var v shariah.Validation
						v.Add("must be 1 to 16", "value_error.number", "arguments", "limit")
						return nil, "", v.Err()
					}
					list, err := shariah.TrendingList(ctx, d.Ref, in.Limit)
					if err != nil {
						return nil, "", err
					}
					var syms []string
					for _, t := range list {
						syms = append(syms, t.Symbol)
					}
					return map[string]any{"trending": list}, "Trending: " + strings.Join(syms, ", "), nil
				}})
	}
	if d.Catalogs != nil {
		ts = append(ts, tool{name: "search_stocks", readOnly: true, idempotent: true,
			desc:   "Search the reference database by name or symbol.",
			input:  `{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":100},"asset_type":{"type":"string","enum":["all","equities","etf","fund","index"]},"sector":{"type":"string"},"country":{"type":"string"},"exchange":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":100,"default":20}},"required":["query"],"additionalProperties":false}`,
			output: objectOut("results", "total"),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				in := struct {
					Query, AssetType, Sector, Country, Exchange string
					Limit                                       int
				}{Limit: 20}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				cat, err := d.Catalogs.Get(ctx)
				if err != nil {
					return nil, "", err
				}
				q := shariah.SearchQuery{Q: in.Query, Sector: in.Sector, Country: in.Country, Exchange: in.Exchange, Limit: in.Limit}
				switch in.AssetType {
				case "equities":
					q.Type = shariah.Equity
				case "etf":
					q.Type = shariah.ETF
				case "fund":
					q.Type = shariah.Fund
				case "index":
					q.Type = shariah.Index
				}
				hits, total := cat.Search(q)
				var syms []string
				for _, h := range hits {
					syms = append(syms, h.Symbol)
				}
				return map[string]any{"results": hits, "total": total}, fmt.Sprintf("%d matches: %s", total, strings.Join(syms, ", ")), nil
			}})
	}
	if d.Education != nil {
		ts = append(ts, tool{name: "islamic_finance_education", readOnly: true, idempotent: true,
			desc:   "Glossary, methodologies (summary or detail), screening criteria and the purification guide.",
			input:  `{"type":"object","properties":{"topic":{"type":"string","enum":["glossary","methodologies","methodology_detail","screening_criteria","purification_guide"]},"query":{"type":"string","maxLength":100},"methodology_name":{"type":"string"}},"required":["topic"],"additionalProperties":false}`,
			output: objectOut("topic", "content"),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				var in struct {
					Topic, Query    string
					MethodologyName string `json:"methodology_name"`
				}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				var content any
				switch in.Topic {
				case "glossary":
					terms := d.Education.SearchGlossary(in.Query)
					content = map[string]any{"terms": terms}
				case "methodologies":
					content = map[string]any{"methodologies": d.Education.MethodologySummaries()}
				case "methodology_detail":
					m, ok := d.Education.Methodology(in.MethodologyName)
					if !ok {
						return nil, "", shariah.Errorf(shariah.ENOTFOUND, "No methodology %q; known: %s.", in.MethodologyName, strings.Join(d.Education.MethodologyIDs(), ", "))
					}
					content = m
				case "screening_criteria":
					content = d.Education.CriteriaWithThresholds()
				case "purification_guide":
					content = json.RawMessage(d.Education.Purification)
				default:
					var v shariah.Validation
					v.Add("must be glossary, methodologies, methodology_detail, screening_criteria or purification_guide", "value_error.enum", "arguments", "topic")
					return nil, "", v.Err()
				}
				b, _ := json.MarshalIndent(content, "", "  ")
				return map[string]any{"topic": in.Topic, "content": content}, string(b), nil
			}},
			tool{name: "get_disclaimers", readOnly: true, idempotent: true,
				desc:   "The disclaimers (all, or one by id: screening, market_data, purification, zakat, etf_lookthrough, educational).",
				input:  `{"type":"object","properties":{"id":{"type":"string","enum":["screening","market_data","purification","zakat","etf_lookthrough","educational"]}},"additionalProperties":false}`,
				output: objectOut("disclaimers"),
				run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
					var in struct{ ID string }
					if err := bind(raw, &in); err != nil {
						return nil, "", err
					}
					list := d.Education.Disclaimers
					if in.ID != "" {
						one, ok := d.Education.Disclaimer(in.ID)
						if !ok {
							return nil, "", shariah.Errorf(shariah.ENOTFOUND, "No disclaimer %q.", in.ID)
						}
						list = []shariah.Disclaimer{one}
					}
					var lines []string
					for _, x := range list {
						lines = append(lines, x.Title+": "+x.Text)
					}
					return map[string]any{"disclaimers": list}, strings.Join(lines, "\n"), nil
				}})
	}
	if d.Ref != nil {
		ts = append(ts, tool{name: "calculate_zakat", readOnly: true, idempotent: true,
			desc:   "Zakat on holdings (symbol and market_value) and cash, or dividend purification (symbol and dividend_income); the same calculators and bounds as the REST API (at most 100 holdings; amounts and shares at most 10^15 with at most 18 decimal places).",
			input:  `{"type":"object","properties":{"calculation_type":{"type":"string","enum":["zakat","purification"],"default":"zakat"},"holdings":{"type":"array","maxItems":100,"items":{"type":"object","properties":{"symbol":{"type":"string"},"market_value":{"type":"number","minimum":0,"maximum":1000000000000000},"shares":{"type":"number","minimum":0,"maximum":1000000000000000},"dividend_income":{"type":"number","minimum":0,"maximum":1000000000000000}},"required":["symbol"]}},"cash":{"type":"number","minimum":0,"maximum":1000000000000000},"receivables":{"type":"number","minimum":0,"maximum":1000000000000000},"debts":{"type":"number","minimum":0,"maximum":1000000000000000},"gold_price_per_gram":{"type":"number","exclusiveMinimum":0,"maximum":1000000000000000},"nisab_metal":{"type":"string","enum":["gold","silver","lower"]}},"additionalProperties":false}`,
			output: objectOut(),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				var in struct {
					CalculationType string `json:"calculation_type"`
					Holdings        []struct {
						Symbol         string          `json:"symbol"`
						MarketValue    *shariah.Number `json:"market_value"`
						Shares         *shariah.Number `json:"shares"`
						DividendIncome *shariah.Number `json:"dividend_income"`
					} `json:"holdings"`
					Cash             shariah.Number  `json:"cash"`
					Receivables      shariah.Number  `json:"receivables"`
					Debts            shariah.Number  `json:"debts"`
					GoldPricePerGram *shariah.Number `json:"gold_price_per_gram"`
					NisabMetal       string          `json:"nisab_metal"`
				}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				disc := func(ids ...string) []shariah.Disclaimer { return nil }
				if d.Education != nil {
					disc = d.Education.DisclaimersFor
				}
				if in.CalculationType == "purification" {
					req := shariah.PurificationRequest{}
					for _, h := range in.Holdings {
						req.Holdings = append(req.Holdings, shariah.PurificationHolding{Symbol: h.Symbol, DividendIncome: h.DividendIncome, Shares: h.Shares})
					}
					res, err := (&shariah.Purifier{Ref: d.Ref, Screener: d.Screener, Disclaimers: disc}).Calculate(ctx, req)
					if err != nil {
						return nil, "", err
					}
					return res, fmt.Sprintf("Purify %s USD in total (method %s).", res.TotalAmount.StringFixed(2), res.Method), nil
				}
				if in.CalculationType != "" && in.CalculationType != "zakat" {
					var v shariah.Validation
					v.Add("must be zakat or purification", "value_error.enum", "arguments", "calculation_type")
					return nil, "", v.Err()
				}
				req := shariah.ZakatRequest{Cash: in.Cash, Receivables: in.Receivables, Debts: in.Debts, GoldPricePerGram: in.GoldPricePerGram, NisabMetal: in.NisabMetal}
				for _, h := range in.Holdings {
					req.Holdings = append(req.Holdings, shariah.ZakatHolding{Symbol: h.Symbol, MarketValue: h.MarketValue, Shares: h.Shares})
				}
				res, err := (&shariah.Zakat{Ref: d.Ref, Disclaimers: disc}).Calculate(ctx, req)
				if err != nil {
					return nil, "", err
				}
				text := fmt.Sprintf("No zakat due: zakatable wealth %s USD does not exceed the nisab of %s USD (%s).", res.ZakatableWealth.StringFixed(2), res.Nisab.Threshold.StringFixed(2), res.Nisab.Metal)
				if res.ZakatDue {
					text = fmt.Sprintf("Zakat due: %s USD (2.5%% of %s USD; nisab %s USD, %s).", res.AmountOwed.StringFixed(2), res.ZakatableWealth.StringFixed(2), res.Nisab.Threshold.StringFixed(2), res.Nisab.Metal)
				}
				return res, text + " A simplified estimate: " + strings.Join(res.Skipped, "; ") + ".", nil
			}})
	}
	if d.Bulk != nil {
		ts = append(ts, d.bulkTool())
	}
	if d.Watchlists != nil {
		ts = append(ts, d.watchlistTool())
	}
	if d.SukukStore != nil && d.SukukRules != nil {
		ts = append(ts, d.sukukTool())
	}
	if d.News != nil {
		ts = append(ts, d.newsTool())
	}
	if d.Filings != nil {
		ts = append(ts, d.filingsTool())
	}
	if d.Insights != nil {
		ts = append(ts, d.insightsTool())
	}
	return append(append(ts, d.moreTools()...), d.lastTools()...)
}
