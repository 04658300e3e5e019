package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	shariah "github.com/shariah-screen/shariah"
)

// moreTools are the stock, ETF and dividend tools.
func (d Deps) moreTools() []tool {
	var ts []tool
	if d.Screener != nil {
		ts = append(ts, tool{name: "get_all_screening_results", readOnly: true, idempotent: true,
			desc:   "Every cached screening under a ruleset (newest first), up to limit.",
			input:  `{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":1000,"default":100},"ruleset":{"type":"string"}},"additionalProperties":false}`,
			output: objectOut("results", "total"),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				in := struct {
					Limit   int
					Ruleset string
				}{Limit: 100}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				if in.Limit < 1 || in.Limit > 1000 {
					return nil, "", invalid("must be 1 to 1000", "limit")
				}
				rs, _, err := d.Screener.Rulesets.Resolve(in.Ruleset, "")
				if err != nil {
					return nil, "", err
				}
				all, err := d.Screener.Results.Results(ctx, rs.Name)
				if err != nil {
					return nil, "", err
				}
				sort.SliceStable(all, func(i, j int) bool { return all[i].ScreenedAt.After(all[j].ScreenedAt) })
				total := len(all)
				all = all[:min(in.Limit, total)]
				if all == nil {
					all = []shariah.Result{}
				}
				var lines []string
				for _, r := range all {
					lines = append(lines, r.Symbol+": "+r.ComplianceStatus)
				}
				return map[string]any{"results": all, "total": total}, fmt.Sprintf("%d cached screenings under %s.\n%s", total, rs.Name, strings.Join(lines, "\n")), nil
			}})
	}
	if d.Ref != nil && d.Catalogs != nil {
		ts = append(ts, tool{name: "get_stock_info", readOnly: true, idempotent: true,
			desc:   "A symbol's database record and fundamentals with provenance; full adds the quote and the screening.",
			input:  `{"type":"object","properties":{` + symbolArg + `,"full":{"type":"boolean","default":false}},"required":["symbol"],"additionalProperties":false}`,
			output: objectOut("record"),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				var in struct {
					Symbol string
					Full   bool
				}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				a, err := d.resolve(ctx, in.Symbol)
				if err != nil {
					return nil, "", err
				}
				fs, err := d.Ref.Fundamentals(ctx, a.Symbol)
				if err != nil {
					return nil, "", err
				}
				out := map[string]any{"record": a, "fundamentals": fs}
				text := fmt.Sprintf("%s %s (%s, %s, %s): %d reporting periods on file.", a.Symbol, a.Name, a.Type, a.Country, a.Sector, len(fs))
				if in.Full {
					if q, ok, err := d.Ref.Quote(ctx, a.Symbol); err != nil {
						return nil, "", err
					} else if ok {
						out["quote"] = q
						text += fmt.Sprintf(" Price %s %s as of %s.", q.Price.String(), q.Currency, q.AsOf)
					}
					if a.Type == shariah.Equity && d.Screener != nil {
						r, _, err := d.Screener.Screen(ctx, a.Symbol, shariah.ScreenOptions{})
						if err != nil {
							return nil, "", err
						}
						out["screening"] = r
						text += " " + verdict(r)
					}
				}
				return out, text, nil
			}},
			tool{name: "get_dividends", readOnly: true, idempotent: true,
				desc:   "Dividend history; include_purification adds the purification rate and the amount to purify per share of each payment.",
				input:  `{"type":"object","properties":{` + symbolArg + `,"include_purification":{"type":"boolean","default":false}},"required":["symbol"],"additionalProperties":false}`,
				output: objectOut("symbol", "dividends"),
				run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
					var in struct {
						Symbol              string
						IncludePurification bool `json:"include_purification"`
					}
					if err := bind(raw, &in); err != nil {
						return nil, "", err
					}
					a, err := d.resolve(ctx, in.Symbol)
					if err != nil {
						return nil, "", err
					}
					ds, err := d.Ref.Dividends(ctx, a.Symbol)
					if err != nil {
						return nil, "", err
					}
					if ds == nil {
						ds = []shariah.Dividend{}
					}
					out := map[string]any{"symbol": a.Symbol, "dividends": ds}
					text := fmt.Sprintf("%d dividends on file for %s.", len(ds), a.Symbol)
					if in.IncludePurification && d.Screener != nil {
						r, _, err := d.Screener.Screen(ctx, a.Symbol, shariah.ScreenOptions{})
						if err != nil {
							return nil, "", err
						}
						out["purification_rate"] = r.PurificationRate // percent
						out["purification_rate_fraction"] = r.PurificationFraction
						out["purification"] = shariah.PurifyPayments(ds, r.PurificationFraction, nil)
						if r.PurificationRate != nil {
							text += fmt.Sprintf(" Purification rate %s%% (%s).", r.PurificationRate.Decimal.String(), r.Ruleset.Name)
						} else {
							text += " Purification rate unknown: " + r.ComplianceExplanation
						}
					}
					return out, text, nil
				}})
	}
	if d.ETFs != nil {
		ts = append(ts, tool{name: "screen_etf", readOnly: true, idempotent: true,
			desc:   "Screen an ETF through its holdings (look-through); cached unless force_refresh.",
			input:  `{"type":"object","properties":{` + symbolArg + `,"force_refresh":{"type":"boolean","default":false},"ruleset":{"type":"string"}},"required":["symbol"],"additionalProperties":false}`,
			output: objectOut("symbol", "compliance_status"),
			run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
				var in struct {
					Symbol       string
					ForceRefresh bool `json:"force_refresh"`
					Ruleset      string
				}
				if err := bind(raw, &in); err != nil {
					return nil, "", err
				}
				a, err := d.ETFs.ETFAsset(ctx, in.Symbol)
				if err != nil {
					return nil, "", err
				}
				var r shariah.ETFResult
				if !in.ForceRefresh {
					r, err = d.ETFs.Cached(ctx, a.Symbol, in.Ruleset)
				}
				if in.ForceRefresh || shariah.ErrorCode(err) == shariah.ENOTFOUND {
					r, err = d.ETFs.Screen(ctx, a.Symbol, in.Ruleset, in.ForceRefresh)
				}
				if err != nil {
					return nil, "", err
				}
				return r, fmt.Sprintf("%s (%s): %s; %s%% of the weight compliant, %s%% non-compliant, %s%% unknown (%d holdings as of %s).",
					r.Symbol, r.Name, r.ComplianceStatus, r.CompliantWeightPct, r.NonCompliantWeightPct, r.UnknownWeightPct, r.HoldingsCount, r.HoldingsAsOf), nil
			}},
			tool{name: "get_etf_info", readOnly: true, idempotent: true,
				desc:   "An ETF's holdings or its fund record.",
				input:  `{"type":"object","properties":{` + symbolArg + `,"data_type":{"type":"string","enum":["holdings","fund_info"],"default":"holdings"}},"required":["symbol"],"additionalProperties":false}`,
				output: objectOut("symbol"),
				run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
					var in struct {
						Symbol   string
						DataType string `json:"data_type"`
					}
					if err := bind(raw, &in); err != nil {
						return nil, "", err
					}
					a, err := d.ETFs.ETFAsset(ctx, in.Symbol)
					if err != nil {
						return nil, "", err
					}
					switch in.DataType {
					case "", "holdings":
						hs, err := d.ETFs.Holdings(ctx, a)
						if err != nil {
							return nil, "", err
						}
						var top []string
						for _, h := range hs[:min(10, len(hs))] {
							top = append(top, h.Symbol)
						}
						return map[string]any{"symbol": a.Symbol, "holdings": hs, "count": len(hs)}, fmt.Sprintf("%s holds %d positions; largest: %s.", a.Symbol, len(hs), strings.Join(top, ", ")), nil
					case "fund_info":
						return map[string]any{"symbol": a.Symbol, "record": a}, fmt.Sprintf("%s %s (%s, %s).", a.Symbol, a.Name, a.Exchange, a.Currency), nil
					}
					return nil, "", invalid("must be holdings or fund_info", "data_type")
				}})
	}
	return ts
}
