package shariah

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// PortfolioItem is one symbol of a portfolio scan.
type PortfolioItem struct {
	Input       string  `json:"input"`
	Symbol      string  `json:"symbol"`
	Status      string  `json:"status"` // COMPLIANT, NON_COMPLIANT, QUESTIONABLE, INSUFFICIENT_DATA, NOT_FOUND, NOT_SCREENABLE
	IsCompliant *bool   `json:"is_compliant"`
	Explanation string  `json:"explanation"`
	Cached      bool    `json:"cached"`
	Result      *Result `json:"result,omitempty"`
}

// PortfolioSummary counts a scan's statuses.
type PortfolioSummary struct {
	Total             int    `json:"total"`
	Compliant         int    `json:"compliant"`
	NonCompliant      int    `json:"non_compliant"`
	Questionable      int    `json:"questionable"`
	InsufficientData  int    `json:"insufficient_data"`
	NotFound          int    `json:"not_found"`
	NotScreenable     int    `json:"not_screenable"`
	ComplianceRatePct string `json:"compliance_rate_pct"`
	Note              string `json:"note"`
}

// ScanPortfolio screens each symbol (cached unless o.ForceRefresh), reporting unknown and unscreenable
// ones as such instead of failing the whole scan; full keeps each whole result.
func (s *Screener) ScanPortfolio(ctx context.Context, cats *CatalogCache, syms []string, o ScreenOptions, full bool) ([]PortfolioItem, error) {
	out := make([]PortfolioItem, 0, len(syms))
	for _, raw := range syms {
		it := PortfolioItem{Input: raw, Symbol: strings.ToUpper(strings.TrimSpace(raw))}
		sym, err := cats.Resolve(ctx, raw)
		if err != nil {
			return nil, err
		}
		if sym == "" {
			it.Status, it.Explanation = "NOT_FOUND", "Symbol is not in the database."
			out = append(out, it)
			continue
		}
		it.Symbol = sym
		r, cached, err := s.Screen(ctx, sym, o)
		switch ErrorCode(err) {
		case "":
		case EVALIDATION, ENOTFOUND:
			var de *Error
			errors.As(err, &de)
			it.Status, it.Explanation = "NOT_SCREENABLE", de.Message
			if d, ok := de.Detail.(map[string]any); ok {
				if errs, ok := d["errors"].([]FieldError); ok && len(errs) > 0 {
					it.Explanation = errs[0].Msg
				}
			}
			out = append(out, it)
			continue
		default:
			return nil, err
		}
		it.Status, it.IsCompliant, it.Explanation, it.Cached = r.ComplianceStatus, r.IsCompliant, r.ComplianceExplanation, cached
		if full {
			r := r
			it.Result = &r
		}
		out = append(out, it)
	}
	return out, nil
}

// SummarizePortfolio counts the statuses; the compliance rate counts compliant among symbols with a verdict.
func SummarizePortfolio(items []PortfolioItem) PortfolioSummary {
	counts := map[string]int{}
	for _, it := range items {
		counts[it.Status]++
	}
	verdicts := counts["COMPLIANT"] + counts["NON_COMPLIANT"] + counts["QUESTIONABLE"]
	rate := "0.00"
	if verdicts > 0 {
		rate = RatioPercent(int64(counts["COMPLIANT"]), int64(verdicts))
	}
	return PortfolioSummary{Total: len(items), Compliant: counts["COMPLIANT"], NonCompliant: counts["NON_COMPLIANT"],
		Questionable: counts["QUESTIONABLE"], InsufficientData: counts["INSUFFICIENT_DATA"], NotFound: counts["NOT_FOUND"],
		NotScreenable: counts["NOT_SCREENABLE"], ComplianceRatePct: rate,
		Note: "compliance_rate_pct counts compliant among symbols with a verdict (compliant, non-compliant, questionable)."}
}

// ReportSection is a titled paragraph of a screening report.
type ReportSection struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// MethodologyNames lists a result's methodologies in a stable order.
func MethodologyNames(r Result) []string {
	out := make([]string, 0, len(r.ByMethodology))
	for name := range r.ByMethodology {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// ReportSections renders a result as titled paragraphs (REST reports and the MCP report tool).
func ReportSections(r Result) []ReportSection {
	var biz []string
	for _, a := range r.BusinessActivities {
		kind := "doubtful"
		if a.Primary {
			kind = "prohibited"
		}
		biz = append(biz, fmt.Sprintf("%s (%s, from %s)", strings.ReplaceAll(a.Category, "_", " "), kind, a.Reason))
	}
	bizText := "Nothing prohibited or doubtful was found in the company's classification."
	if len(biz) > 0 {
		bizText = "Activities found: " + strings.Join(biz, "; ") + "."
	}
	var ratios []string
	for _, m := range MethodologyNames(r) {
		mr := r.ByMethodology[m]
		for _, rr := range mr.Ratios {
			val := "unknown (missing " + strings.Join(rr.Missing, ", ") + ")"
			if rr.ValuePct != nil {
				val = *rr.ValuePct + "%"
			}
			verdict := "unknown"
			if rr.Pass != nil {
				verdict = map[bool]string{true: "passes", false: "fails"}[*rr.Pass]
			}
			ratios = append(ratios, fmt.Sprintf("%s %s: %s against %s%% (%s)", m, rr.Label, val, rr.ThresholdPct, verdict))
		}
	}
	pur := "Unknown: the impure-revenue ratio could not be computed."
	if r.PurificationRatePct != nil {
		pur = fmt.Sprintf("Purify %s%% of dividends (%s).", r.PurificationRatePct.String(), r.PurificationMethod)
	}
	dq := fmt.Sprintf("Fundamentals as of %s (%s) from %s.", r.DataQuality.AsOf, r.DataQuality.Period, strings.Join(r.DataQuality.Sources, ", "))
	if len(r.DataQuality.MissingFields) > 0 {
		dq += " Missing: " + strings.Join(r.DataQuality.MissingFields, ", ") + "."
	}
	if r.DataQuality.Illustrative {
		dq += " Illustrative figures are not from filings."
	}
	return []ReportSection{
		{"Verdict", r.ComplianceExplanation},
		{"Business activity", bizText},
		{"Financial ratios", strings.Join(ratios, "; ") + "."},
		{"Purification", pur},
		{"Data quality", dq},
	}
}
