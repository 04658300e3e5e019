package screening

import (
	"context"
	"errors"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/market"
)

// PortfolioItem is one symbol of a portfolio scan.
type PortfolioItem struct {
	Input       string `json:"input"`
	Symbol      string `json:"symbol"`
	Status      string `json:"status"` // ScanStatus: COMPLIANT, NON_COMPLIANT, QUESTIONABLE, INSUFFICIENT_DATA, NOT_FOUND, NOT_SCREENABLE
	IsCompliant *bool  `json:"is_compliant"`
	Explanation string `json:"explanation"`
	// ErrorMessage, for a symbol not screened (NOT_FOUND, NOT_SCREENABLE), is the message of the error
	// its single-symbol screening answers: "Symbol X not found in any database." for NOT_FOUND, as the
	// 404. Absent for a screened symbol.
	ErrorMessage string `json:"error_message,omitempty"`
	Cached       bool   `json:"cached"`
	// DataSource is what the screening's fundamentals stand on (filed, illustrative, no_fundamentals);
	// empty for symbols not screened.
	DataSource string  `json:"data_source,omitempty"`
	Result     *Result `json:"result,omitempty"`
	company    string  // CompanyKey of the symbol, for the summary's distinct companies
}

// PortfolioSummary counts a scan's statuses.
type PortfolioSummary struct {
	Total            int `json:"total"`
	Compliant        int `json:"compliant"`
	NonCompliant     int `json:"non_compliant"`
	Questionable     int `json:"questionable"`
	InsufficientData int `json:"insufficient_data"`
	NotFound         int `json:"not_found"`
	NotScreenable    int `json:"not_screenable"`
	// ComplianceRatePct is a number (percent, 2 decimals) like the summary's other figures: compliant
	// among the symbols with a verdict, 0 when none has one.
	ComplianceRatePct shariah.Number `json:"compliance_rate_pct"`
	// Pending counts the symbols without a yes or no (is_compliant null: insufficient data, not found,
	// not screenable): compliant + non_compliant + pending = total.
	Pending int `json:"pending"`
	// AvgPurificationRate is the mean purification rate in percent over the screened symbols that have
	// one (AvgPurificationRateCount of them); null when none has.
	AvgPurificationRate      *shariah.Number `json:"avg_purification_rate"`
	AvgPurificationRateCount int             `json:"avg_purification_rate_count"`
	Note                     string          `json:"note"`
	// DataSources counts the screened symbols by what their fundamentals stand on.
	DataSources shariah.SourceCounts `json:"data_sources"`
	// CompanyDataSources counts the distinct companies among them (share classes and a symbol given
	// twice count once; CompanySources).
	CompanyDataSources shariah.SourceCounts `json:"company_data_sources"`
}

// PortfolioEntry is one symbol of a scan's results as the ecosystem's clients read them: the full
// screening result (absent for NOT_FOUND and NOT_SCREENABLE) with the scan's own fields, which win
// over the result's fields of the same name.
type PortfolioEntry struct {
	*Result
	Input        string `json:"input"`
	Symbol       string `json:"symbol"`
	Status       string `json:"status"`
	IsCompliant  *bool  `json:"is_compliant"`
	Explanation  string `json:"explanation"`
	ErrorMessage string `json:"error_message,omitempty"`
	Cached       bool   `json:"cached"`
	DataSource   string `json:"data_source,omitempty"`
}

// PortfolioKey is a symbol of a scan as the caller wrote it, upper-cased and trimmed: the key of its
// entry in the results. Symbols with the same key are one holding, screened and counted once.
func PortfolioKey(raw string) string { return strings.ToUpper(strings.TrimSpace(raw)) }

// PortfolioResults keys a scan's items by PortfolioKey.
func PortfolioResults(items []PortfolioItem) map[string]PortfolioEntry {
	out := make(map[string]PortfolioEntry, len(items))
	for _, it := range items {
		out[PortfolioKey(it.Input)] = PortfolioEntry{Result: it.Result, Input: it.Input, Symbol: it.Symbol,
			Status: it.Status, IsCompliant: it.IsCompliant, Explanation: it.Explanation, ErrorMessage: it.ErrorMessage, Cached: it.Cached,
			DataSource: it.DataSource}
	}
	return out
}

// ScanPortfolio screens each symbol (cached unless o.ForceRefresh), reporting unknown and unscreenable
// ones as such instead of failing the whole scan; each item keeps its whole result. A symbol given
// again under the same PortfolioKey ("KO", "ko") is skipped: the items, the keyed results and the
// summary all count it once.
func (s *Screener) ScanPortfolio(ctx context.Context, cats *catalog.Cache, syms []string, o ScreenOptions) ([]PortfolioItem, error) {
	out := make([]PortfolioItem, 0, len(syms))
	seen := make(map[string]bool, len(syms))
	for _, raw := range syms {
		if seen[PortfolioKey(raw)] {
			continue
		}
		seen[PortfolioKey(raw)] = true
		it := PortfolioItem{Input: raw, Symbol: PortfolioKey(raw)}
		a, wellFormed, found, err := cats.LookupRaw(ctx, raw) // as cats.Find, keeping the record for its company
		if err != nil {
			return nil, err
		}
		if !found {
			// The words of the single-symbol 404 (UnknownSymbol), which clients match on.
			it.Status, it.ErrorMessage = "NOT_FOUND", errorText(catalog.MissingSymbol(raw, wellFormed))
			it.Explanation = it.ErrorMessage
			out = append(out, it)
			continue
		}
		sym := a.Symbol
		it.Symbol = sym
		r, cached, err := s.Screen(ctx, sym, o)
		switch shariah.ErrorCode(err) {
		case "":
		case shariah.EVALIDATION, shariah.ENOTFOUND:
			it.Status, it.ErrorMessage = "NOT_SCREENABLE", errorText(err)
			it.Explanation = it.ErrorMessage
			out = append(out, it)
			continue
		default:
			return nil, err
		}
		it.Status, it.IsCompliant, it.Explanation, it.Cached = ScanStatus(r), r.IsCompliant, r.ComplianceExplanation, cached
		it.DataSource, it.company = DataSourceOf(r), shariah.CompanyKey(a)
		it.Result = &r
		out = append(out, it)
	}
	return out, nil
}

// errorText is an error's message as a client reads it: a validation error's first field message,
// else the error's own.
func errorText(err error) string {
	var de *shariah.Error
	if !errors.As(err, &de) {
		return err.Error()
	}
	if d, ok := de.Detail.(map[string]any); ok {
		if errs, ok := d["errors"].([]shariah.FieldError); ok && len(errs) > 0 {
			return errs[0].Msg
		}
	}
	return de.Message
}

// ScanStatus is a screened symbol's status in a scan, as a client that reads one word shows it:
// COMPLIANT exactly when is_compliant is true (the yes/no of the ruleset's primary methodology, even
// when the methodologies disagree), else compliance_status (NON_COMPLIANT, QUESTIONABLE,
// INSUFFICIENT_DATA). The result's own compliance_status stays beside it.
func ScanStatus(r Result) string {
	if r.IsCompliant != nil && *r.IsCompliant {
		return "COMPLIANT"
	}
	return r.ComplianceStatus
}

// SummarizePortfolio counts the statuses; the compliance rate counts compliant among symbols with a verdict.
func SummarizePortfolio(items []PortfolioItem) PortfolioSummary {
	counts := map[string]int{}
	var sources shariah.SourceCounts
	companies := shariah.CompanySources{}
	compliant, nonCompliant, pending, rated, questionable := 0, 0, 0, 0, 0
	rateSum := decimal.Zero
	for _, it := range items {
		counts[it.Status]++
		if it.Result != nil && it.Result.ComplianceStatus == "QUESTIONABLE" {
			questionable++ // the methodologies disagree, whatever the yes/no
		}
		switch {
		case it.IsCompliant == nil:
			pending++
		case *it.IsCompliant:
			compliant++
		default:
			nonCompliant++
		}
		if it.Result != nil && it.Result.PurificationRatePct != nil {
			rateSum = rateSum.Add(it.Result.PurificationRatePct.Decimal)
			rated++
		}
		if it.DataSource != "" {
			sources.Add(it.DataSource)
			company := it.company
			if company == "" {
				company = it.Symbol
			}
			companies.Add(company, it.DataSource)
		}
	}
	verdicts := counts["COMPLIANT"] + counts["NON_COMPLIANT"] + counts["QUESTIONABLE"]
	rate := market.PercentNumber(int64(counts["COMPLIANT"]), int64(verdicts))
	var avg *shariah.Number
	if rated > 0 {
		avg = num(rateSum.DivRound(decimal.NewFromInt(int64(rated)), 4))
	}
	return PortfolioSummary{Total: len(items), Compliant: compliant, NonCompliant: nonCompliant,
		Questionable: questionable, InsufficientData: counts["INSUFFICIENT_DATA"], NotFound: counts["NOT_FOUND"],
		NotScreenable: counts["NOT_SCREENABLE"], ComplianceRatePct: rate, Pending: pending, AvgPurificationRate: avg,
		AvgPurificationRateCount: rated, DataSources: sources, CompanyDataSources: companies.Counts(),
		Note: "compliant counts every is_compliant true and non_compliant every is_compliant false (the yes/no of the ruleset's primary methodology, AAOIFI by default), pending every is_compliant null; questionable counts the symbols whose methodologies disagree (compliance_status QUESTIONABLE), whatever their yes/no; compliance_rate_pct counts status COMPLIANT among symbols with a verdict (compliant, non-compliant, questionable); avg_purification_rate is in percent over the symbols with a rate."}
}
