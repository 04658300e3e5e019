package bulk

import (
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// ItemView is the row of a run's results as listed (the full result is in the JSON export). The
// screening fields are the result's (seen through a methodology when one is given), derived by the
// same code as the screening result's; null (by_methodology empty) for an error.
type ItemView struct {
	Symbol               string                                 `json:"symbol"`
	Name                 string                                 `json:"name"`
	Sector               string                                 `json:"sector"`
	Industry             *string                                `json:"industry"`
	Status               string                                 `json:"status"`
	ShariahStatus        string                                 `json:"shariah_compliance_status"` // status in lower case (error for an error)
	IsCompliant          *bool                                  `json:"is_compliant"`
	AbstainReason        string                                 `json:"abstain_reason,omitempty"` // why, when INSUFFICIENT_DATA
	HasError             bool                                   `json:"has_error"`
	Error                string                                 `json:"error,omitempty"`
	PreviousStatus       string                                 `json:"previous_status,omitempty"`
	StatusChanged        bool                                   `json:"status_changed"`
	Methodologies        map[string]string                      `json:"methodologies"`
	ByMethodology        map[string]screening.MethodologyResult `json:"by_methodology"` // keyed by MethodologyKey (SP)
	BusinessScreenPass   *bool                                  `json:"business_screen_pass"`
	BusinessScreenReason *string                                `json:"business_screen_reason"`
	FinancialScreenPass  *bool                                  `json:"financial_screen_pass"`
	FinancialRatios      map[string]*shariah.Number             `json:"financial_ratios"`
	PurificationRate     *shariah.Number                        `json:"purification_rate"`          // percent: 3.37 means 3.37%
	PurificationFrac     *shariah.Number                        `json:"purification_rate_fraction"` // the same as a fraction
	MarketCap            *shariah.Number                        `json:"market_cap"`
	MarketCapCcy         *string                                `json:"market_cap_currency"`
	DebtToMarketCap      *shariah.Number                        `json:"debt_to_market_cap_ratio"`
	CashToMarketCap      *shariah.Number                        `json:"cash_to_market_cap_ratio"`
	LiquidityToMarketCap *shariah.Number                        `json:"liquidity_to_market_cap_ratio"`
	ReceivablesToAssets  *shariah.Number                        `json:"accounts_receivable_to_assets_ratio"`
	InterestToRevenue    *shariah.Number                        `json:"interest_income_to_revenue_ratio"`
	Explanation          string                                 `json:"compliance_explanation"`
	Illustrative         bool                                   `json:"illustrative"`
	Marks                []string                               `json:"marks"` // kinds of mark on the result (MarksOf)
}

// ItemQuery filters and orders a run's results.
type ItemQuery struct {
	Compliant   *bool  // on is_compliant, or on the methodology's verdict when Methodology is set
	Methodology string // methodology id or name (aaoifi, djim, ...): its verdict becomes the status
	Sector      string
	HasError    *bool
	SortBy      string // symbol, name, sector, status, purification_rate, debt_ratio
	SortDesc    bool
	Page        int
	PageSize    int
}

// ItemSortKeys are the valid sort_by values.
var ItemSortKeys = []string{"symbol", "name", "sector", "status", "purification_rate", "debt_ratio"}

// View turns a run item into its listed row, seen through a methodology when given.
func (it Item) View(methodology string) ItemView {
	v := ItemView{Symbol: it.Symbol, Name: it.Name, Sector: it.Sector, Status: it.Status, IsCompliant: it.IsCompliant,
		HasError: it.HasError, Error: it.Error, PreviousStatus: it.PreviousStatus, StatusChanged: it.StatusChanged,
		Methodologies: map[string]string{}, ByMethodology: map[string]screening.MethodologyResult{}, FinancialRatios: map[string]*shariah.Number{}, Marks: []string{}}
	if it.Result != nil {
		r := *it.Result // a copy: seeing it through a methodology changes only its own fields
		if methodology != "" {
			for name, mr := range r.ByMethodology {
				if strings.EqualFold(name, methodology) || strings.EqualFold(mr.ID, methodology) || strings.EqualFold(mr.Methodology, methodology) {
					r.SetOverall(strings.ToUpper(mr.Verdict), mr.Methodology)
					v.Status, v.IsCompliant = r.ComplianceStatus, r.IsCompliant
				}
			}
		}
		v.AbstainReason, v.Industry, v.Methodologies, v.ByMethodology, v.FinancialRatios = r.AbstainReason, r.Industry, r.Methodologies, r.ByMethodology, r.FinancialRatios
		v.BusinessScreenPass, v.BusinessScreenReason, v.FinancialScreenPass = r.BusinessScreenPass, r.BusinessScreenReason, r.FinancialScreenPass
		v.PurificationRate, v.PurificationFrac, v.MarketCap, v.MarketCapCcy = r.PurificationRate, r.PurificationFraction, r.MarketCap, r.MarketCapCurrency
		v.DebtToMarketCap, v.CashToMarketCap, v.LiquidityToMarketCap = r.DebtToMarketCap, r.CashToMarketCap, r.LiquidityToMarketCap
		v.ReceivablesToAssets, v.InterestToRevenue = r.ReceivablesToAssets, r.InterestToRevenue
		v.Explanation, v.Illustrative = r.ComplianceExplanation, r.DataQuality.Illustrative
		v.Marks = screening.MarksOf(r).Kinds()
	}
	v.ShariahStatus = strings.ToLower(v.Status)
	return v
}

// debtRatio is the first debt ratio of a row, for sorting (-1 when unknown).
func (v ItemView) debtRatio() decimal.Decimal {
	for _, k := range []string{"debt_to_total_assets", "debt_to_market_cap_avg_24m", "debt_to_market_cap_avg_36m"} {
		if n := v.FinancialRatios[k]; n != nil {
			return n.Decimal
		}
	}
	return decimal.NewFromInt(-1)
}

// QueryItems filters, sorts and pages a run's results; it returns the page and the filtered total.
func QueryItems(items []Item, q ItemQuery) ([]ItemView, int) {
	var rows []ItemView
	for _, it := range items {
		v := it.View(q.Methodology)
		if q.Compliant != nil && (v.IsCompliant == nil || *v.IsCompliant != *q.Compliant) {
			continue
		}
		if q.Sector != "" && !strings.EqualFold(v.Sector, q.Sector) {
			continue
		}
		if q.HasError != nil && v.HasError != *q.HasError {
			continue
		}
		rows = append(rows, v)
	}
	less := func(a, b ItemView) bool { return a.Symbol < b.Symbol }
	switch q.SortBy {
	case "name":
		less = func(a, b ItemView) bool { return a.Name < b.Name }
	case "sector":
		less = func(a, b ItemView) bool { return a.Sector < b.Sector }
	case "status":
		less = func(a, b ItemView) bool { return a.Status < b.Status }
	case "purification_rate":
		less = func(a, b ItemView) bool {
			ra, rb := decimal.NewFromInt(-1), decimal.NewFromInt(-1)
			if a.PurificationRate != nil {
				ra = a.PurificationRate.Decimal
			}
			if b.PurificationRate != nil {
				rb = b.PurificationRate.Decimal
			}
			return ra.LessThan(rb)
		}
	case "debt_ratio":
		less = func(a, b ItemView) bool { return a.debtRatio().LessThan(b.debtRatio()) }
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if q.SortDesc {
			return less(rows[j], rows[i])
		}
		return less(rows[i], rows[j])
	})
	total := len(rows)
	start := (q.Page - 1) * q.PageSize
	if start >= total {
		return []ItemView{}, total
	}
	return rows[start:min(start+q.PageSize, total)], total
}
