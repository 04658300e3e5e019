package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	shariah "github.com/shariah-screen/shariah"
)

// lastTools are price history, ETF purification and comparison, portfolio scans and reports.
func (d Deps) lastTools() []tool {
	var ts []tool
	if d.Ref != nil && d.Catalogs != nil {
		ts = append(ts, tool{name: "get_price_history", readOnly: true, idempotent: true,
			desc: "Daily, weekly or monthly candles of a period, counted back from the latest candle (intraday intervals are not held).",
			input: `{"type":"object","properties":{` + symbolArg + `,"period":{"type":"string","enum":["1d","5d","1mo","3mo","6mo","1y","2y","5y","10y","max"],"default":"1y"},` +
				`"interval":{"type":"string","enum":["1m","5m","15m","1h","1d","1wk","1mo"],"default":"1d"}},"required":["symbol"],"additionalProperties":false}`,
			output: objectOut("symbol", "candles"),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				in := struct{ Symbol, Period, Interval string }{Period: "1y", Interval: "1d"}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				if err := shariah.ValidatePriceHistory(in.Period, in.Interval, "arguments"); err != nil {
					return nil, "", err
				}
				a, err := d.resolve(ctx, in.Symbol)
				if err != nil {
					return nil, "", err
				}
				bars, source, err := shariah.PriceHistory(ctx, d.Ref, a.Symbol, in.Period, in.Interval)
				if err != nil {
					return nil, "", err
				}
				type candle struct {
					Date string `json:"date"`
					shariah.Bar
				}
				out := make([]candle, len(bars))
				for i, b := range bars {
					out[i] = candle{b.Date.Format("2006-01-02"), b}
				}
				first, last := bars[0], bars[len(bars)-1]
				return map[string]any{"symbol": a.Symbol, "period": in.Period, "interval": in.Interval, "source": source, "candles": out},
					fmt.Sprintf("%s: %d candles from %s (close %s) to %s (close %s), source %s.", a.Symbol, len(bars),
						first.Date.Format("2006-01-02"), first.Close.String(), last.Date.Format("2006-01-02"), last.Close.String(), source), nil
			}})
	}
	if d.ETFs != nil {
		ts = append(ts, tool{name: "etf_purification", readOnly: true, idempotent: true,
			desc:   "Amount to purify on an ETF investment: dividend income (given, or estimated from the last 12 months) x the holdings-weighted purification rate.",
			input:  `{"type":"object","properties":{` + symbolArg + `,"investment_amount":{"type":"number","exclusiveMinimum":0,"maximum":1000000000000000},"dividend_income":{"type":"number","minimum":0,"maximum":1000000000000000}},"required":["symbol","investment_amount"],"additionalProperties":false}`,
			output: objectOut("symbol", "purification_amount"),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				var in struct {
					Symbol string `json:"symbol"`
					shariah.ETFPurificationRequest
				}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				if err := in.Validate("arguments"); err != nil {
					return nil, "", err
				}
				p, err := d.ETFs.Purify(ctx, in.Symbol, "", in.Investment.Decimal, in.DividendDecimal())
				if err != nil {
					return nil, "", err
				}
				if d.Education != nil {
					p.Disclaimers = d.Education.DisclaimersFor("purification", "etf_lookthrough")
				}
				text := p.Note
				if p.PurificationAmount != nil {
					text = fmt.Sprintf("Purify %s USD of %s USD dividends (%s).", p.PurificationAmount.StringFixed(2), p.DividendIncome.StringFixed(2), p.DividendBasis)
				}
				return p, text, nil
			}},
			tool{name: "compare_etfs", readOnly: true, idempotent: true,
				desc:   "Compare 2 to 5 ETFs: holdings, look-through screening and pairwise overlap.",
				input:  `{"type":"object","properties":{"symbols":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":5}},"required":["symbols"],"additionalProperties":false}`,
				output: objectOut("items", "overlap"),
				run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
					var in struct{ Symbols []string }
					if err := bind(raw, &in); err != nil {
						return nil, "", err
					}
					if len(in.Symbols) < 2 || len(in.Symbols) > 5 {
						return nil, "", invalid("give 2 to 5 symbols", "symbols")
					}
					c, err := d.ETFs.Compare(ctx, in.Symbols, "")
					if err != nil {
						return nil, "", err
					}
					var lines []string
					for _, it := range c.Items {
						lines = append(lines, fmt.Sprintf("%s: %s, %s%% compliant weight", it.Symbol, it.ComplianceStatus, it.CompliantWeightPct))
					}
					for _, o := range c.Overlap {
						lines = append(lines, fmt.Sprintf("%s/%s overlap %s%%", o.A, o.B, o.OverlapPct))
					}
					return c, strings.Join(lines, "\n"), nil
				}})
	}
	if d.Screener != nil && d.Catalogs != nil {
		// force_refresh is honoured, as on REST, only for enterprise and internal keys: never over MCP.
		scan := func(ctx context.Context, syms []string) ([]shariah.PortfolioItem, shariah.PortfolioSummary, error) {
			if len(syms) == 0 || len(syms) > 100 {
				return nil, shariah.PortfolioSummary{}, invalid("give 1 to 100 symbols", "symbols")
			}
			items, err := d.Screener.ScanPortfolio(ctx, d.Catalogs, syms, shariah.ScreenOptions{})
			return items, shariah.SummarizePortfolio(items), err
		}
		render := func(items []shariah.PortfolioItem, s shariah.PortfolioSummary) string {
			var lines []string
			for _, it := range items {
				lines = append(lines, it.Symbol+": "+it.Status)
			}
			return fmt.Sprintf("%d symbols, %d compliant (%s%% of those with a verdict). Fundamentals of the screened symbols: %s (companies: %s).\n%s",
				s.Total, s.Compliant, s.ComplianceRatePct, s.DataSources, s.CompanyDataSources, strings.Join(lines, "\n"))
		}
		ts = append(ts, tool{name: "scan_portfolio", readOnly: true, idempotent: true,
			desc:   "Screen up to 100 symbols; unknown and unscreenable ones are reported, not fatal.",
			input:  `{"type":"object","properties":{"symbols":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":100},"force_refresh":{"type":"boolean","default":false}},"required":["symbols"],"additionalProperties":false}`,
			output: objectOut("results", "summary"),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				var in struct {
					Symbols      []string
					ForceRefresh bool `json:"force_refresh"`
				}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				items, sum, err := scan(ctx, in.Symbols)
				if err != nil {
					return nil, "", err
				}
				out := map[string]any{"results": shariah.PortfolioResults(items), "summary": sum, "force_refresh_applied": false}
				if d.Education != nil {
					out["disclaimers"] = d.Education.DisclaimersFor("screening", "purification")
				}
				return out, render(items, sum), nil
			}},
			tool{name: "generate_report", readOnly: true, idempotent: true,
				desc:   "A screening report of a symbol (verdict, business activity, ratios, purification, data quality) or a portfolio report.",
				input:  `{"type":"object","properties":{"report_type":{"type":"string","enum":["screening","portfolio"]},` + symbolArg + `,"symbols":{"type":"array","items":{"type":"string"},"maxItems":100}},"required":["report_type"],"additionalProperties":false}`,
				output: objectOut("report_type"),
				run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
					var in struct {
						ReportType string `json:"report_type"`
						Symbol     string
						Symbols    []string
					}
					if err := bind(raw, &in); err != nil {
						return nil, "", err
					}
					now := time.Now().UTC().Format(time.RFC3339)
					switch in.ReportType {
					case "screening":
						a, err := d.resolve(ctx, in.Symbol)
						if err != nil {
							return nil, "", err
						}
						r, _, err := d.Screener.Screen(ctx, a.Symbol, shariah.ScreenOptions{})
						if err != nil {
							return nil, "", err
						}
						sections := shariah.ReportSections(r)
						var lines []string
						for _, s := range sections {
							lines = append(lines, s.Title+": "+s.Body)
						}
						return map[string]any{"report_type": "screening", "generated_at": now, "symbol": r.Symbol, "name": r.Name,
							"summary": r.ComplianceExplanation, "sections": sections, "result": r, "disclaimers": r.Disclaimers}, strings.Join(lines, "\n"), nil
					case "portfolio":
						items, sum, err := scan(ctx, in.Symbols)
						if err != nil {
							return nil, "", err
						}
						out := map[string]any{"report_type": "portfolio", "generated_at": now, "holdings": items, "summary": sum}
						if d.Education != nil {
							out["disclaimers"] = d.Education.DisclaimersFor("screening", "purification")
						}
						return out, render(items, sum), nil
					}
					return nil, "", invalid("must be screening or portfolio", "report_type")
				}})
	}
	return ts
}
