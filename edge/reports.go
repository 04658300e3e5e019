package edge

import (
	"encoding/csv"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/shariah-screen/shariah/screening"
)

// screeningReport answers GET /api/reports/screening/{symbol}: the result with a readable account.
func (s *Server) screeningReport(c *fiber.Ctx) error {
	o, err := s.screenOptions(c)
	if err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	r, _, err := s.Screener.Screen(c.UserContext(), a.Symbol, o)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"report_type": "screening", "generated_at": s.Now().UTC().Format(time.RFC3339), "symbol": r.Symbol,
		"name": r.Name, "summary": r.ComplianceExplanation, "sections": screening.ReportSections(r), "result": r, "disclaimers": r.Disclaimers})
}

// portfolioReport answers POST /api/reports/portfolio {symbols}.
func (s *Server) portfolioReport(c *fiber.Ctx) error {
	syms, err := bindSymbols(c, 1, 100)
	if err != nil {
		return err
	}
	o, err := s.screenOptions(c)
	if err != nil {
		return err
	}
	items, err := s.Screener.ScanPortfolio(c.UserContext(), s.catalogs, syms, o)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"report_type": "portfolio", "generated_at": s.Now().UTC().Format(time.RFC3339), "holdings": items,
		"summary": screening.SummarizePortfolio(items), "disclaimers": s.Education.DisclaimersFor("screening", "purification")})
}

// exportCSV answers GET /api/reports/export/csv: every cached result of the ruleset as RFC 4180 CSV.
func (s *Server) exportCSV(c *fiber.Ctx) error {
	o, err := s.screenOptions(c)
	if err != nil {
		return err
	}
	rs, m, _ := s.Screener.Rulesets.Resolve(o.Ruleset, o.Methodology)
	all, err := s.Screener.Results.Results(c.UserContext(), rs.Name)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="screening-results-`+rs.Name+"-"+s.Now().UTC().Format("20060102")+`.csv"`)
	w := csv.NewWriter(c)
	w.UseCRLF = true // RFC 4180
	head := []string{"symbol", "name", "ruleset", "compliance_status", "is_compliant"}
	for _, mm := range rs.Methodologies {
		head = append(head, strings.ToLower(strings.ReplaceAll(mm.Name, "&", "")))
	}
	head = append(head, "debt_to_total_assets", "cash_to_total_assets", "receivables_to_total_assets", "impure_revenue_to_total_revenue",
		"purification_rate", "purification_rate_fraction", "data_sources", "as_of", "screened_at", "explanation", "marks")
	_ = w.Write(head)
	ratio := func(r screening.Result, k string) string {
		if v := r.FinancialRatios[k]; v != nil {
			return v.String()
		}
		return ""
	}
	for _, r := range all {
		r = r.View(rs, m)
		isc := ""
		if r.IsCompliant != nil {
			isc = strconv.FormatBool(*r.IsCompliant)
		}
		row := []string{r.Symbol, r.Name, rs.Name, r.ComplianceStatus, isc}
		for _, mm := range rs.Methodologies {
			row = append(row, r.Methodologies[mm.Name])
		}
		pr, pf := "", "" // purification_rate in percent, and as a fraction
		if r.PurificationRate != nil && r.PurificationFraction != nil {
			pr, pf = r.PurificationRate.String(), r.PurificationFraction.String()
		}
		row = append(row, ratio(r, "debt_to_total_assets"), ratio(r, "cash_to_total_assets"), ratio(r, "receivables_to_total_assets"),
			ratio(r, "impure_revenue_to_total_revenue"), pr, pf, strings.Join(r.DataQuality.Sources, " "), r.DataQuality.AsOf,
			r.ScreenedAt.Format(time.RFC3339), r.ComplianceExplanation, screening.MarksOf(r).Label())
		for i := range row {
			row[i] = csvSafe(row[i])
		}
		_ = w.Write(row)
	}
	w.Flush()
	return w.Error()
}
