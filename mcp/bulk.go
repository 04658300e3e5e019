package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	shariah "github.com/shariah-screen/shariah"
)

func invalid(msg, arg string) error {
	var v shariah.Validation
	v.Add(msg, "value_error", "arguments", arg)
	return v.Err()
}

func (d Deps) bulkTool() tool {
	return tool{name: "bulk_screen", readOnly: false, destructive: false, idempotent: false,
		desc: "Bulk screening of whole indices (asynchronous runs): list_indices, trigger (index_name), status (run_id or the current run), " +
			"list_runs, results (run_id; compliant, methodology, sector, page_size), summary, cancel, compare (run_id \"id1,id2\").",
		input: `{"type":"object","properties":{"action":{"type":"string","enum":["trigger","status","list_runs","results","summary","cancel","compare","list_indices"]},` +
			`"index_name":{"type":"string"},"run_id":{"type":"string"},"compliant":{"type":"boolean"},"methodology":{"type":"string"},"sector":{"type":"string"},` +
			`"page_size":{"type":"integer","minimum":1,"maximum":500,"default":50}},"required":["action"],"additionalProperties":false}`,
		output: objectOut("action"),
		run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
			in := struct {
				Action      string `json:"action"`
				IndexName   string `json:"index_name"`
				RunID       string `json:"run_id"`
				Methodology string `json:"methodology"`
				Sector      string `json:"sector"`
				Compliant   *bool  `json:"compliant"`
				PageSize    int    `json:"page_size"`
			}{PageSize: 50}
			if err := bind(raw, &in); err != nil {
				return nil, "", err
			}
			if in.PageSize < 1 || in.PageSize > 500 {
				return nil, "", invalid("must be 1 to 500", "page_size")
			}
			by, err := d.bulkCaller(ctx)
			if err != nil {
				return nil, "", err
			}
			run := func() (shariah.Run, error) {
				if in.RunID == "" {
					if in.Action == "status" {
						return d.Bulk.Current(ctx, by)
					}
					return shariah.Run{}, invalid("run_id is required for "+in.Action, "run_id")
				}
				return d.Bulk.Get(ctx, by, in.RunID)
			}
			out := map[string]any{"action": in.Action}
			switch in.Action {
			case "list_indices":
				list, _, err := d.Bulk.Indices(ctx)
				if err != nil {
					return nil, "", err
				}
				out["indices"] = list
				var names []string
				for _, ix := range list {
					names = append(names, ix.Name)
				}
				return out, fmt.Sprintf("%d indices: %s", len(list), strings.Join(names, ", ")), nil
			case "trigger":
				if in.IndexName == "" {
					return nil, "", invalid("index_name is required to trigger a run", "index_name")
				}
				r, err := d.Bulk.StartRun(ctx, by, strings.ToUpper(strings.TrimSpace(in.IndexName)), 0, false, "", "mcp")
				if err != nil {
					return nil, "", err
				}
				out["run"] = r
				return out, fmt.Sprintf("Run %s of %s queued (%d symbols); follow it with action status.", r.ID, r.IndexName, r.Total), nil
			case "status", "cancel":
				r, err := run()
				if err != nil {
					return nil, "", err
				}
				if in.Action == "cancel" {
					if r, err = d.Bulk.Cancel(ctx, by, r.ID); err != nil {
						return nil, "", err
					}
				}
				out["run"] = r
				return out, fmt.Sprintf("Run %s of %s: %s, %d of %d processed.", r.ID, r.IndexName, r.Status, r.Processed, r.Total), nil
			case "list_runs":
				rs, total, err := d.Bulk.History(ctx, by, shariah.RunFilter{IndexName: strings.ToUpper(in.IndexName)}, 0, in.PageSize)
				if err != nil {
					return nil, "", err
				}
				out["runs"], out["total"] = rs, total
				return out, fmt.Sprintf("%d runs.", total), nil
			case "results", "summary":
				r, err := run()
				if err != nil {
					return nil, "", err
				}
				_, items, err := d.Bulk.Items(ctx, by, r.ID)
				if err != nil {
					return nil, "", err
				}
				out["run"] = r
				if in.Action == "summary" {
					var cat *shariah.Catalog
					if d.Catalogs != nil {
						if cat, err = d.Catalogs.Get(ctx); err != nil {
							return nil, "", err
						}
					}
					s := shariah.Summarize(items, cat)
					out["summary"] = s
					b, _ := json.Marshal(s)
					return out, string(b), nil
				}
				rows, total := shariah.QueryItems(items, shariah.ItemQuery{Compliant: in.Compliant, Methodology: in.Methodology, Sector: in.Sector,
					SortBy: "symbol", Page: 1, PageSize: in.PageSize})
				out["results"], out["total"] = rows, total
				var lines []string
				for _, row := range rows {
					lines = append(lines, row.Symbol+": "+row.Status)
				}
				return out, fmt.Sprintf("%d results.\n%s", total, strings.Join(lines, "\n")), nil
			case "compare":
				a, b, ok := strings.Cut(in.RunID, ",")
				if !ok {
					return nil, "", invalid(`compare takes run_id "id1,id2"`, "run_id")
				}
				a, b = strings.TrimSpace(a), strings.TrimSpace(b)
				_, ia, err := d.Bulk.Items(ctx, by, a)
				if err != nil {
					return nil, "", err
				}
				_, ib, err := d.Bulk.Items(ctx, by, b)
				if err != nil {
					return nil, "", err
				}
				c := shariah.CompareRuns(a, b, ia, ib)
				out["comparison"] = c
				return out, fmt.Sprintf("%d status changes between the runs.", len(c.Changed)), nil
			}
			return nil, "", invalid("unknown action", "action")
		}}
}

func (d Deps) watchlistTool() tool {
	return tool{name: "manage_watchlist", destructive: true,
		desc: "Watchlists of the connected user (without a key: the local user): create (name, symbols), list, get, add_symbol, remove_symbol, delete (watchlist_id).",
		input: `{"type":"object","properties":{"action":{"type":"string","enum":["create","list","get","add_symbol","remove_symbol","delete"]},"name":{"type":"string","maxLength":100,"description":"No control characters (NUL, ESC, ...) or bidirectional formatting characters."},` +
			`"watchlist_id":{"type":"string"},"symbol":{"type":"string"},"symbols":{"type":"array","items":{"type":"string"},"maxItems":200}},"required":["action"],"additionalProperties":false}`,
		output: objectOut("action"),
		run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
			var in struct {
				Action      string   `json:"action"`
				Name        *string  `json:"name"`
				WatchlistID string   `json:"watchlist_id"`
				Symbol      *string  `json:"symbol"`
				Symbols     []string `json:"symbols"`
			}
			if err := bind(raw, &in); err != nil {
				return nil, "", err
			}
			w, user := d.Watchlists, userOf(ctx)
			out := map[string]any{"action": in.Action}
			var wl shariah.Watchlist
			var err error
			switch in.Action {
			case "list":
				list, err := w.Store.Watchlists(ctx, user)
				if err != nil {
					return nil, "", err
				}
				out["watchlists"] = list
				var names []string
				for _, x := range list {
					names = append(names, fmt.Sprintf("%s (%s): %s", x.Name, x.ID, strings.Join(x.Symbols, ", ")))
				}
				return out, fmt.Sprintf("%d watchlists.\n%s", len(list), strings.Join(names, "\n")), nil
			case "create":
				wl, err = w.Create(ctx, user, in.Name, in.Symbols)
			case "get":
				wl, err = w.Get(ctx, user, in.WatchlistID)
			case "add_symbol":
				wl, err = w.AddSymbol(ctx, user, in.WatchlistID, in.Symbol)
			case "remove_symbol":
				if in.Symbol == nil {
					return nil, "", invalid("symbol is required", "symbol")
				}
				wl, err = w.RemoveSymbol(ctx, user, in.WatchlistID, *in.Symbol)
			case "delete":
				if err := w.Delete(ctx, user, in.WatchlistID); err != nil {
					return nil, "", err
				}
				out["deleted"] = true
				return out, "Deleted.", nil
			default:
				return nil, "", invalid("unknown action", "action")
			}
			if err != nil {
				return nil, "", err
			}
			out["watchlist"] = wl
			return out, fmt.Sprintf("%s (%s): %s", wl.Name, wl.ID, strings.Join(wl.Symbols, ", ")), nil
		}}
}

// userKey carries the user of an authenticated MCP session (HTTP with a key).
type userKey struct{}

// bulkCaller is who acts on runs through the bulk tool: the account of the session's key (an operator
// for a key of the internal plan), else the local user, as the watchlists are.
func (d Deps) bulkCaller(ctx context.Context) (shariah.Caller, error) {
	by := shariah.Caller{UserID: userOf(ctx)}
	if k, ok := ctx.Value(keyCtx{}).(keyInfo); ok && d.Auth != nil && d.Auth.Keys != nil {
		rec, err := d.Auth.Keys.KeyByHash(ctx, k.hash)
		if err != nil {
			return shariah.Caller{}, err
		}
		by = shariah.CallerOf(rec)
	}
	return by, nil
}

func userOf(ctx context.Context) string {
	if u, ok := ctx.Value(userKey{}).(string); ok && u != "" {
		return u
	}
	return LocalUser
}

func (d Deps) sukukTool() tool {
	return tool{name: "screen_sukuk", readOnly: true, idempotent: true,
		desc: "Sukuk with AAOIFI dispositions before and after Standard 62 (draft): by isin, by issuer_lei, or a search (issuer, country, structure, currency, maturity_from, maturity_to).",
		input: `{"type":"object","properties":{"isin":{"type":"string"},"issuer_lei":{"type":"string"},"issuer":{"type":"string"},"country":{"type":"string"},` +
			`"structure":{"type":"string","enum":["ijarah","murabaha","wakala","mudarabah","musharakah","asset-backed","hybrid"]},"currency":{"type":"string"},` +
			`"maturity_from":{"type":"string"},"maturity_to":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":500,"default":100}},"additionalProperties":false}`,
		output: objectOut("instruments"),
		run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
			var in struct {
				ISIN         string `json:"isin"`
				IssuerLEI    string `json:"issuer_lei"`
				Issuer       string `json:"issuer"`
				Country      string `json:"country"`
				Structure    string `json:"structure"`
				Currency     string `json:"currency"`
				MaturityFrom string `json:"maturity_from"`
				MaturityTo   string `json:"maturity_to"`
				Limit        int    `json:"limit"`
			}
			if err := bind(raw, &in); err != nil {
				return nil, "", err
			}
			var list []shariah.Sukuk
			switch {
			case in.ISIN != "":
				isin, ok := shariah.NormalizeISIN(in.ISIN)
				if !ok {
					return nil, "", invalid("not an ISIN (check digit)", "isin")
				}
				s, found, err := d.SukukStore.Sukuk(ctx, isin)
				if err != nil {
					return nil, "", err
				}
				if !found {
					return nil, "", shariah.Errorf(shariah.ENOTFOUND, "No sukuk with ISIN %s in the database.", isin)
				}
				list = []shariah.Sukuk{s}
			default:
				all, err := d.SukukStore.AllSukuk(ctx)
				if err != nil {
					return nil, "", err
				}
				if in.IssuerLEI != "" {
					lei, ok := shariah.NormalizeLEI(in.IssuerLEI)
					if !ok {
						return nil, "", invalid("not an LEI (check digits)", "issuer_lei")
					}
					var mine []shariah.Sukuk
					for _, s := range all {
						if s.IssuerLEI == lei {
							mine = append(mine, s)
						}
					}
					all = mine
				}
				q := shariah.SukukQuery{Issuer: in.Issuer, Country: in.Country, Structure: in.Structure, Currency: in.Currency,
					MaturityFrom: in.MaturityFrom, MaturityTo: in.MaturityTo, Limit: in.Limit}
				if err := q.Validate(); err != nil {
					return nil, "", err
				}
				list, _ = shariah.SearchSukuk(all, q)
			}
			out := []shariah.SukukView{}
			var lines []string
			for _, s := range list {
				v := d.SukukRules.View(s)
				out = append(out, v)
				lines = append(lines, fmt.Sprintf("%s %s (%s): %s before Standard 62, %s under the draft", s.ISIN, s.Name, s.Structure, v.Pre62.Status, v.Post62.Status))
			}
			return map[string]any{"instruments": out, "total": len(out)}, strings.Join(lines, "\n"), nil
		}}
}

func (d Deps) newsTool() tool {
	return tool{name: "get_news", readOnly: true, idempotent: true,
		desc: "News with sentiment and compliance relevance (filters: symbol, source, category, query, compliance_relevance).",
		input: `{"type":"object","properties":{` + symbolArg + `,"source":{"type":"string"},"category":{"type":"string"},"query":{"type":"string","maxLength":100},` +
			`"compliance_relevance":{"type":"string","enum":["high","medium","low"]},"page":{"type":"integer","minimum":1,"default":1},"limit":{"type":"integer","minimum":1,"maximum":100,"default":20}},"additionalProperties":false}`,
		output: objectOut("articles", "total"),
		run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
			in := struct {
				Symbol, Source, Category, Query string
				Relevance                       string `json:"compliance_relevance"`
				Page, Limit                     int
			}{Page: 1, Limit: 20}
			if err := bind(raw, &in); err != nil {
				return nil, "", err
			}
			if in.Limit < 1 || in.Limit > 100 || in.Page < 1 {
				return nil, "", invalid("page must be at least 1 and limit 1 to 100", "limit")
			}
			q := shariah.NewsQuery{Source: in.Source, Category: in.Category, Q: in.Query, Relevance: in.Relevance, Offset: (in.Page - 1) * in.Limit, Limit: in.Limit}
			if in.Symbol != "" {
				a, err := d.resolve(ctx, in.Symbol)
				if err != nil {
					return nil, "", err
				}
				q.Symbol = a.Symbol
			}
			list, total, err := d.News.News(ctx, q)
			if err != nil {
				return nil, "", err
			}
			if list == nil {
				list = []shariah.Article{}
			}
			var lines []string
			for _, a := range list {
				lines = append(lines, fmt.Sprintf("%s %s [%s, %s]", a.Published.Format("2006-01-02"), a.Title, a.ComplianceRelevance, a.SentimentLabel))
			}
			return map[string]any{"articles": list, "total": total}, fmt.Sprintf("%d articles.\n%s", total, strings.Join(lines, "\n")), nil
		}}
}

func (d Deps) filingsTool() tool {
	return tool{name: "get_sec_filings", readOnly: true, idempotent: true,
		desc:   "SEC filings or XBRL facts of a US filer. Filings default to the periodic and current reports (10-K, 10-Q, 8-K, 20-F, 40-F, 6-K and amendments); filing_type narrows to one form or 'all' adds insider forms (3, 4, 5, 144).",
		input:  `{"type":"object","properties":{` + symbolArg + `,"data_type":{"type":"string","enum":["filings","facts"],"default":"filings"},"filing_type":{"type":"string","enum":["10-K","10-Q","8-K","20-F","40-F","6-K","all"],"description":"one form (its amendments included) or all; without it the periodic and current reports"},"concept":{"type":"string","maxLength":120,"description":"XBRL concept for data_type facts (Assets or us-gaap:Assets)"},"limit":{"type":"integer","minimum":1,"maximum":200,"default":20},"offset":{"type":"integer","minimum":0,"maximum":100000,"default":0,"description":"matching filings to skip (newest first)"}},"required":["symbol"],"additionalProperties":false}`,
		output: objectOut("symbol"),
		run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
			in := struct {
				Symbol     string
				DataType   string `json:"data_type"`
				FilingType string `json:"filing_type"`
				Concept    string `json:"concept"`
				Limit      int
				Offset     int
			}{Limit: 20}
			if err := bind(raw, &in); err != nil {
				return nil, "", err
			}
			a, err := d.resolve(ctx, in.Symbol)
			if err != nil {
				return nil, "", err
			}
			if in.Limit < 1 || in.Limit > 200 {
				return nil, "", invalid("must be 1 to 200", "limit")
			}
			if in.Offset < 0 || in.Offset > 100000 {
				return nil, "", invalid("must be 0 to 100000", "offset")
			}
			ft, ok := shariah.ParseFilingType(in.FilingType)
			if !ok {
				return nil, "", invalid(shariah.FilingTypeMessage, "filing_type")
			}
			if in.DataType == "facts" {
				all, err := d.Filings.Facts(ctx, a.Symbol)
				if err != nil {
					return nil, "", err
				}
				facts, total := shariah.FilterFacts(all, in.Concept, in.Limit)
				return map[string]any{"symbol": a.Symbol, "facts": facts, "total": total}, fmt.Sprintf("%d XBRL facts on file for %s.", total, a.Symbol), nil
			}
			all, err := d.Filings.Filings(ctx, a.Symbol)
			if err != nil {
				return nil, "", err
			}
			out, total := shariah.FilterFilings(all, ft, in.Limit, in.Offset)
			lines := []string{fmt.Sprintf("%d of %d matching filings.", len(out), total)}
			for _, f := range out {
				lines = append(lines, fmt.Sprintf("%s %s %s", f.FilingDate, f.Form, f.URL))
			}
			return map[string]any{"symbol": a.Symbol, "filings": out, "total": total, "limit": in.Limit, "offset": in.Offset}, strings.Join(lines, "\n"), nil
		}}
}

func (d Deps) insightsTool() tool {
	return tool{name: "get_compliance_insights", readOnly: true, idempotent: true,
		desc:   "Per-symbol insights: alternatives (compliant sector peers), peer_percentiles, cashflow, trajectory (8 quarters).",
		input:  `{"type":"object","properties":{` + symbolArg + `,"kind":{"type":"string","enum":["alternatives","staleness","trajectory","peer_percentiles","cashflow"]},"limit":{"type":"integer","minimum":1,"maximum":50,"default":5}},"required":["symbol","kind"],"additionalProperties":false}`,
		output: objectOut("symbol", "kind"),
		run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
			in := struct {
				Symbol, Kind string
				Limit        int
			}{Limit: 5}
			if err := bind(raw, &in); err != nil {
				return nil, "", err
			}
			a, err := d.resolve(ctx, in.Symbol)
			if err != nil {
				return nil, "", err
			}
			var res any
			switch in.Kind {
			case "alternatives":
				res, err = d.Insights.Alternatives(ctx, a.Symbol, shariah.ScreenOptions{}, max(1, min(in.Limit, 50)))
			case "peer_percentiles":
				res, err = d.Insights.PeerPercentiles(ctx, a.Symbol)
			case "cashflow":
				if d.Filings == nil {
					return nil, "", shariah.Errorf(shariah.EUNAVAILABLE, "Filings are not available here.")
				}
				facts, ferr := d.Filings.Facts(ctx, a.Symbol)
				res, err = shariah.CashflowOf(facts, a.CIK), ferr
			case "trajectory":
				if d.Trajectory == nil {
					return nil, "", shariah.Errorf(shariah.EUNAVAILABLE, "The trajectory series is not available here.")
				}
				pts, terr := d.Trajectory.Trajectory(ctx, a.Symbol, 8)
				if pts == nil {
					pts = []shariah.TrajectoryPoint{}
				}
				res, err = map[string]any{"quarters": pts, "summary": shariah.TrajectorySummary(pts)}, terr
			case "staleness":
				if d.Filings == nil {
					return nil, "", shariah.Errorf(shariah.EUNAVAILABLE, "Filings are not available here.")
				}
				r, serr := d.Screener.Cached(ctx, a.Symbol, shariah.ScreenOptions{})
				if serr != nil {
					return nil, "", serr
				}
				fs, ferr := d.Filings.Filings(ctx, a.Symbol)
				res, err = shariah.StalenessOf(r, fs, d.EventRelevance), ferr
			default:
				return nil, "", invalid("unknown kind", "kind")
			}
			if err != nil {
				return nil, "", err
			}
			b, _ := json.Marshal(res)
			return map[string]any{"symbol": a.Symbol, "kind": in.Kind, "insight": res}, string(b), nil
		}}
}
