package edge

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

// runView is a run with its progress.
type runView struct {
	bulk.Run
	Progress bulk.Progress `json:"progress"`
}

func (s *Server) view(r bulk.Run) runView {
	return runView{Run: r, Progress: bulk.ProgressOf(r, s.Now())}
}

var runIDRE = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// caller is the account of the request's key (bulk routes are authenticated, so it is charged).
func caller(c *fiber.Ctx) shariah.Caller {
	if ch := chargeOf(c); ch != nil {
		return account.CallerOf(ch.Key)
	}
	return shariah.Caller{}
}

// runParam reads {run_id} (or a query parameter) of a run the caller may read: malformed ids and other
// accounts' runs are 404 like unknown ones.
func (s *Server) runParam(c *fiber.Ctx, id string) (bulk.Run, error) {
	if !runIDRE.MatchString(id) {
		return bulk.Run{}, shariah.Errorf(shariah.ENOTFOUND, "No run %q.", id)
	}
	return s.Bulk.Get(c.UserContext(), caller(c), id)
}

// runItems reads a run the caller may read and its results.
func (s *Server) runItems(c *fiber.Ctx, id string) (bulk.Run, []bulk.Item, error) {
	if !runIDRE.MatchString(id) {
		return bulk.Run{}, nil, shariah.Errorf(shariah.ENOTFOUND, "No run %q.", id)
	}
	return s.Bulk.Items(c.UserContext(), caller(c), id)
}

func (s *Server) bulkIndices(c *fiber.Ctx) error {
	list, _, err := s.Bulk.Indices(c.UserContext())
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"indices": list, "count": len(list)})
}

// startBulk answers POST /api/screen-bulk {index_name, limit, force_refresh}: 202 with the run id.
func (s *Server) startBulk(c *fiber.Ctx) error {
	var in struct {
		IndexName    *string `json:"index_name"`
		Limit        *int    `json:"limit"`
		ForceRefresh *bool   `json:"force_refresh"`
		Ruleset      *string `json:"ruleset"`
	}
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	var v shariah.Validation
	if in.IndexName == nil || strings.TrimSpace(*in.IndexName) == "" {
		v.Add("field required", "value_error.missing", "body", "index_name")
	}
	limit := 0
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 5000 {
			v.Add("must be between 1 and 5000", "value_error.number.range", "body", "limit")
		}
		limit = *in.Limit
	}
	if err := v.Err(); err != nil {
		return err
	}
	ruleset := c.Query("ruleset")
	if in.Ruleset != nil {
		ruleset = *in.Ruleset
	}
	force := in.ForceRefresh != nil && *in.ForceRefresh
	r, err := s.Bulk.StartRun(c.UserContext(), caller(c), *in.IndexName, limit, force, ruleset, "api")
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/screen-bulk/status?run_id="+r.ID)
	return c.Status(fiber.StatusAccepted).JSON(fiber.Map{"run_id": r.ID, "status": r.Status, "index_name": r.IndexName,
		"total": r.Total, "ruleset": r.Ruleset, "status_url": "/api/screen-bulk/status?run_id=" + r.ID})
}

func (s *Server) bulkStatus(c *fiber.Ctx) error {
	var r bulk.Run
	var err error
	if id := c.Query("run_id"); id != "" {
		r, err = s.runParam(c, id)
	} else {
		r, err = s.Bulk.Current(c.UserContext(), caller(c))
	}
	if err != nil {
		return err
	}
	return c.JSON(s.view(r))
}

func (s *Server) bulkRuns(c *fiber.Ctx) error {
	var v shariah.Validation
	page := intQuery(c, &v, "page", 1, 1, 100000)
	size := intQuery(c, &v, "page_size", 20, 1, 200)
	status := c.Query("status")
	if status != "" && !oneOf(status, bulk.States) {
		v.Add("must be one of "+strings.Join(bulk.States, ", "), "value_error.enum", "query", "status")
	}
	if err := v.Err(); err != nil {
		return err
	}
	runs, total, err := s.Bulk.History(c.UserContext(), caller(c), bulk.Filter{IndexName: strings.ToUpper(c.Query("index_name")), Status: status}, (page-1)*size, size)
	if err != nil {
		return err
	}
	out := make([]runView, len(runs))
	for i, r := range runs {
		out[i] = s.view(r)
	}
	return c.JSON(fiber.Map{"runs": out, "total": total, "page": page, "page_size": size})
}

func (s *Server) bulkCompare(c *fiber.Ctx) error {
	var v shariah.Validation
	a, b := c.Query("run_a"), c.Query("run_b")
	if a == "" {
		v.Add("field required", "value_error.missing", "query", "run_a")
	}
	if b == "" {
		v.Add("field required", "value_error.missing", "query", "run_b")
	}
	if err := v.Err(); err != nil {
		return err
	}
	_, ia, err := s.runItems(c, a)
	if err != nil {
		return err
	}
	_, ib, err := s.runItems(c, b)
	if err != nil {
		return err
	}
	return c.JSON(bulk.CompareRuns(a, b, ia, ib))
}

func (s *Server) bulkCancel(c *fiber.Ctx) error {
	if _, err := s.runParam(c, c.Params("run_id")); err != nil {
		return err
	}
	r, err := s.Bulk.Cancel(c.UserContext(), caller(c), c.Params("run_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"cancelled": true, "run": s.view(r)})
}

func (s *Server) bulkDelete(c *fiber.Ctx) error {
	if _, err := s.runParam(c, c.Params("run_id")); err != nil {
		return err
	}
	if err := s.Bulk.Delete(c.UserContext(), caller(c), c.Params("run_id")); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"deleted": true, "run_id": c.Params("run_id")})
}

// bulkResults answers GET /api/screen-bulk/{run_id}/results with filters, sorting and pages.
func (s *Server) bulkResults(c *fiber.Ctx) error {
	r, items, err := s.runItems(c, c.Params("run_id"))
	if err != nil {
		return err
	}
	var v shariah.Validation
	q := bulk.ItemQuery{Methodology: c.Query("methodology"), Sector: c.Query("sector"), SortBy: c.Query("sort_by", "symbol")}
	if c.Query("compliant") != "" {
		b := boolQuery(c, &v, "compliant")
		q.Compliant = &b
	}
	if c.Query("has_error") != "" {
		b := boolQuery(c, &v, "has_error")
		q.HasError = &b
	}
	if !oneOf(q.SortBy, bulk.ItemSortKeys) {
		v.Add("must be one of "+strings.Join(bulk.ItemSortKeys, ", "), "value_error.enum", "query", "sort_by")
	}
	switch strings.ToLower(c.Query("sort_order", "asc")) {
	case "asc":
	case "desc":
		q.SortDesc = true
	default:
		v.Add("must be asc or desc", "value_error.enum", "query", "sort_order")
	}
	if q.Methodology != "" {
		rs, _, err := s.Screener.Rulesets.Resolve(r.Ruleset, "")
		if err == nil {
			if _, ok := rs.Methodology(q.Methodology); !ok {
				v.Add("unknown methodology; valid: "+strings.Join(rs.MethodologyIDs(), ", "), "value_error.methodology", "query", "methodology")
			}
		}
	}
	q.Page = intQuery(c, &v, "page", 1, 1, 100000)
	q.PageSize = intQuery(c, &v, "page_size", 50, 1, 500)
	if err := v.Err(); err != nil {
		return err
	}
	rows, total := bulk.QueryItems(items, q)
	return c.JSON(fiber.Map{"run_id": r.ID, "status": r.Status, "results": rows, "total": total, "page": q.Page, "page_size": q.PageSize})
}

func (s *Server) bulkSummary(c *fiber.Ctx) error {
	r, items, err := s.runItems(c, c.Params("run_id"))
	if err != nil {
		return err
	}
	cat, err := s.catalogs.Get(c.UserContext())
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"run": s.view(r), "summary": bulk.Summarize(items, cat)})
}

// bulkExportCSV streams every symbol of a run as RFC 4180 CSV.
func (s *Server) bulkExportCSV(c *fiber.Ctx) error {
	r, items, err := s.runItems(c, c.Params("run_id"))
	if err != nil {
		return err
	}
	rs, _, _ := s.Screener.Rulesets.Resolve(r.Ruleset, "")
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="run-`+r.IndexName+"-"+r.ID+`.csv"`)
	c.Context().SetBodyStreamWriter(func(bw *bufio.Writer) {
		w := csv.NewWriter(bw)
		w.UseCRLF = true
		head := []string{"symbol", "name", "sector", "status", "is_compliant", "has_error", "error", "previous_status"}
		for _, m := range rs.Methodologies {
			head = append(head, strings.ToLower(strings.ReplaceAll(m.Name, "&", "")))
		}
		head = append(head, "debt_to_total_assets", "cash_to_total_assets", "receivables_to_total_assets",
			"debt_to_market_cap_avg_24m", "debt_to_market_cap_avg_36m", "impure_revenue_to_total_revenue", "purification_rate", "purification_rate_fraction", "explanation", "marks")
		_ = w.Write(head)
		for _, it := range items {
			v := it.View("")
			isc := ""
			if v.IsCompliant != nil {
				isc = strconv.FormatBool(*v.IsCompliant)
			}
			row := []string{v.Symbol, v.Name, v.Sector, v.Status, isc, strconv.FormatBool(v.HasError), v.Error, v.PreviousStatus}
			for _, m := range rs.Methodologies {
				row = append(row, v.Methodologies[m.Name])
			}
			for _, k := range []string{"debt_to_total_assets", "cash_to_total_assets", "receivables_to_total_assets",
				"debt_to_market_cap_avg_24m", "debt_to_market_cap_avg_36m", "impure_revenue_to_total_revenue"} {
				if n := v.FinancialRatios[k]; n != nil {
					row = append(row, n.String())
				} else {
					row = append(row, "")
				}
			}
			pr, pf := "", "" // purification_rate in percent, and as a fraction
			if v.PurificationRate != nil && v.PurificationFrac != nil {
				pr, pf = v.PurificationRate.String(), v.PurificationFrac.String()
			}
			marks := make([]string, len(v.Marks))
			for i, k := range v.Marks {
				marks[i] = screening.MarkLabel(k)
			}
			row = append(row, pr, pf, v.Explanation, strings.Join(marks, ", "))
			for i := range row {
				row[i] = csvSafe(row[i])
			}
			_ = w.Write(row)
			w.Flush()
		}
		w.Flush()
	})
	return nil
}

// bulkExportJSON streams the complete dataset of a run: the run and every full result.
func (s *Server) bulkExportJSON(c *fiber.Ctx) error {
	r, items, err := s.runItems(c, c.Params("run_id"))
	if err != nil {
		return err
	}
	view := s.view(r)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="run-`+r.IndexName+"-"+r.ID+`.json"`)
	c.Context().SetBodyStreamWriter(func(bw *bufio.Writer) {
		enc := json.NewEncoder(bw)
		bw.WriteString(`{"run":`)
		_ = enc.Encode(view)
		bw.WriteString(`,"results":[`)
		for i, it := range items {
			if i > 0 {
				bw.WriteString(",")
			}
			_ = enc.Encode(it)
			bw.Flush()
		}
		bw.WriteString("]}")
	})
	return nil
}

// sourceHealth reports the state of the data a run depends on (ingest sources add theirs).
func (s *Server) sourceHealth(c *fiber.Ctx) error {
	ctx := c.UserContext()
	sources := []fiber.Map{}
	cat, err := s.catalogs.Get(ctx)
	if err != nil {
		return err
	}
	st := cat.Stats()
	version, _ := s.Ref.Version(ctx)
	status := "ok"
	if st.Equities == 0 {
		status = "missing"
	}
	sources = append(sources, fiber.Map{"name": "reference_data", "status": status,
		"detail": fiber.Map{"equities": st.Equities, "etfs": st.ETFs, "indices": st.Indices, "version": version}})
	tr, err := s.Ref.Trending(ctx)
	if err != nil {
		return err
	}
	prices := fiber.Map{"name": "prices", "status": "missing", "detail": fiber.Map{}}
	if len(tr) > 0 {
		prices = fiber.Map{"name": "prices", "status": market.PricesStatus(tr[0].AsOf, s.Now()), "detail": fiber.Map{"latest_session": tr[0].AsOf, "source": tr[0].Source}}
	}
	sources = append(sources, prices)
	if s.QueueHealth != nil {
		sources = append(sources, s.QueueHealth(ctx))
	}
	if s.Health != nil {
		hs, err := s.Health.Health(ctx)
		if err != nil {
			return err
		}
		for _, h := range hs {
			sources = append(sources, fiber.Map{"name": "ingest:" + h.Name, "status": h.Status, "detail": h})
		}
	}
	return c.JSON(fiber.Map{"checked_at": s.Now().UTC().Format(time.RFC3339), "sources": sources})
}
