package screening

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/shariah-screen/shariah"
)

// RatioResult is one ratio of one methodology.
type RatioResult struct {
	ID            string          `json:"id"`
	Label         string          `json:"label"`
	Numerator     *shariah.Number `json:"numerator"`   // null when an input is missing
	Denominator   *shariah.Number `json:"denominator"` // null when an input is missing
	DenominatorOf string          `json:"denominator_basis"`
	Value         *shariah.Number `json:"value"`     // fraction, 8 decimals; null when unknown
	ValuePct      *string         `json:"value_pct"` // percent, 4 decimals
	ThresholdBP   shariah.Number  `json:"threshold_bp"`
	ThresholdPct  string          `json:"threshold_pct"`
	Comparator    string          `json:"comparator"` // lt (strict) or le
	Pass          *bool           `json:"pass"`       // null when unknown
	MarginPct     *string         `json:"margin_pct"` // threshold minus value, percentage points (negative: failing)
	Missing       []string        `json:"missing,omitempty"`
	Note          string          `json:"note,omitempty"`
	// Marks are the kinds of mark on the ratio's inputs (illustrative, carried_forward; see MarksOf).
	Marks []string `json:"marks,omitempty"`
	// Bound is how the ratio was decided on a bound of an input the period does not report
	// (data_quality.bounded); absent otherwise.
	Bound *RatioBound `json:"bound,omitempty"`
}

// BusinessScreen is a methodology's business-activity screen.
type BusinessScreen struct {
	Pass       *bool      `json:"pass"` // null when the company has no classification to screen
	Prohibited []Activity `json:"prohibited"`
	Doubtful   []Activity `json:"doubtful"`
	// Reason names the classification read (SIC code and description, industry name) and its source,
	// and what was found in it; or says there is none.
	Reason string `json:"reason"`
}

// MethodologyResult is one entry of by_methodology.
type MethodologyResult struct {
	Methodology string         `json:"methodology"` // display name: AAOIFI, DJIM, FTSE, MSCI, S&P
	ID          string         `json:"id"`
	Verdict     string         `json:"verdict"`
	IsCompliant *bool          `json:"is_compliant"` // true: compliant; false: non-compliant or questionable; null: insufficient data
	Status      string         `json:"status"`       // the verdict again (client ecosystem name)
	Disposition string         `json:"disposition"`  // the verdict again (client ecosystem name)
	Verified    bool           `json:"verified"`     // always true (spec rule 3): the verdict was computed here
	Ruleset     string         `json:"ruleset"`
	Edition     string         `json:"edition"`
	Business    BusinessScreen `json:"business_screen"`
	Ratios      []RatioResult  `json:"ratios"`
	Buffer      *BufferState   `json:"buffer,omitempty"`
	// Marks are the kinds of mark on this methodology's verdict (MarksOf(...).For): those on its ratios.
	Marks  []string `json:"marks,omitempty"`
	Reason string   `json:"reason"` // what decided the verdict
	AsOf   string   `json:"as_of"`
	Source []string `json:"sources"`
}

// MethodologyKey is a methodology's key in by_methodology: its display name with everything but
// letters and digits removed, in upper case (AAOIFI, DJIM, FTSE, MSCI, S&P -> SP, SC Malaysia ->
// SCMALAYSIA). The methodologies map keeps the display names.
func MethodologyKey(name string) string {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

// BufferState reports DJIM's buffer evaluation over the periods on file.
type BufferState struct {
	Ratio            string `json:"ratio"`
	UpperPct         string `json:"upper_pct"`
	PeriodsEvaluated int    `json:"periods_evaluated"`
	BreachesInBand   int    `json:"consecutive_breaches_in_band"`
	PassingPeriods   int    `json:"consecutive_passing_periods"`
	Held             bool   `json:"status_held_by_buffer"` // the raw ratio fails but the buffer keeps the status
}

// RevenueBreakdown splits the period's revenue.
type RevenueBreakdown struct {
	TotalRevenue       *shariah.Number `json:"total_revenue"`
	InterestIncome     *shariah.Number `json:"interest_income"`
	ImpureRevenue      *shariah.Number `json:"impure_revenue"` // from prohibited activities, interest excluded
	PermissibleRevenue *shariah.Number `json:"permissible_revenue"`
	ImpureRatio        *shariah.Number `json:"impure_ratio"` // (interest + impure) / total, fraction
	Period             string          `json:"period"`
	Currency           string          `json:"currency"`
}

// DataQuality says where the inputs came from and what is missing.
type DataQuality struct {
	Sources       []string `json:"sources"` // filing, live, illustrative (fundamentals and prices)
	MissingFields []string `json:"missing_fields"`
	AsOf          string   `json:"as_of"` // period end of the fundamentals used
	Period        string   `json:"period"`
	PricesAsOf    string   `json:"prices_as_of,omitempty"`
	SourceRefs    []string `json:"source_refs"` // e.g. the accession numbers of the filings used
	Illustrative  bool     `json:"illustrative"`
	Assumptions   []string `json:"assumptions"`
	Notes         []string `json:"notes"`
	// CarriedForward lists the inputs taken from an earlier period than the one screened.
	CarriedForward []CarriedInput `json:"carried_forward"`
	// Bounded lists the inputs the screened period does not report that are bounded from filed figures
	// instead (kind "bounded": interest income, receivables), with the figures; see interest_bound.go.
	Bounded []BoundedInput `json:"bounded"`
	// MethodologiesInsufficient lists the by_methodology keys of the methodologies without a verdict
	// (insufficient_data), in key order; empty when every methodology has one.
	MethodologiesInsufficient []string `json:"methodologies_insufficient"`
	// ShareClasses are the classes of common stock whose shares the market cap sums (multi-class
	// issuers); absent for a single class.
	ShareClasses []shariah.ShareClass `json:"share_classes,omitempty"`
	// Marks are what a person must be told before trusting the screening (MarksOf): illustrative or
	// carried-forward inputs and the like, with their labels; empty on filed inputs alone.
	Marks []Mark `json:"marks"`
	// PeriodLabel names the screened period ("FY2024", "Q2 2025"); InputPeriods names, per input, the
	// period it is taken from (ScreeningPeriods): the screened period's label, or another for an input
	// carried forward (interest income and the revenue it is set against) or shares from an earlier period.
	PeriodLabel  string            `json:"period_label,omitempty"`
	InputPeriods map[string]string `json:"input_periods,omitempty"`
}

// CarriedInput is an input the screened period does not report, taken from the latest fiscal year of
// the last two that did report it; the ratios using it are computed on that year's figures alone.
type CarriedInput struct {
	Field      string `json:"field"`       // interest_income
	Period     string `json:"period"`      // FY
	PeriodEnd  string `json:"period_end"`  // of the fiscal year used
	FiscalYear int    `json:"fiscal_year"` // of the fiscal year used
	SourceRef  string `json:"source_ref"`  // the filing that reported it (accession number)
	Form       string `json:"form,omitempty"`
	Filed      string `json:"filed,omitempty"`
	Tag        string `json:"tag,omitempty"`
	Against    string `json:"computed_against"` // the denominator it is set against
	Reason     string `json:"reason"`           // why the screened period has none
}

// RulesetRef names the ruleset a result used.
type RulesetRef struct {
	Name         string `json:"name"`
	Title        string `json:"title"`
	Edition      string `json:"edition"`
	ReviewStatus string `json:"review_status"`
	Source       string `json:"source"`
}

// Result is a screening result: the verdict of each methodology of a ruleset, the overall verdict and the
// data it stands on.
type Result struct {
	Symbol               string                       `json:"symbol"`
	Name                 string                       `json:"name"`
	IsCompliant          *bool                        `json:"is_compliant"` // verdict_methodology's verdict as a yes/no
	ComplianceStatus     string                       `json:"compliance_status"`
	OverallStatus        string                       `json:"overall_status"`
	ShariahStatus        string                       `json:"shariah_compliance_status"` // compliance_status in lower case
	AbstainReason        string                       `json:"abstain_reason,omitempty"`  // why, when INSUFFICIENT_DATA
	Methodology          string                       `json:"methodology,omitempty"`     // when the overall verdict is one methodology's
	VerdictMethodology   string                       `json:"verdict_methodology"`       // whose verdict is_compliant and the screen booleans follow (SetYesNo)
	Methodologies        map[string]string            `json:"methodologies"`             // display name (S&P) to verdict
	ByMethodology        map[string]MethodologyResult `json:"by_methodology"`            // keyed by MethodologyKey (SP)
	BusinessScreenPass   *bool                        `json:"business_screen_pass"`
	BusinessScreenReason *string                      `json:"business_screen_reason"`
	FinancialScreenPass  *bool                        `json:"financial_screen_pass"`
	Sector               *string                      `json:"sector"`
	Industry             *string                      `json:"industry"`
	MarketCap            *shariah.Number              `json:"market_cap"` // latest month-end close x shares outstanding
	MarketCapCurrency    *string                      `json:"market_cap_currency"`
	// Informational ratios (fractions) on the latest market cap; verdicts use each methodology's own
	// denominators (by_methodology.*.ratios).
	DebtToMarketCap       *shariah.Number            `json:"debt_to_market_cap_ratio"`
	CashToMarketCap       *shariah.Number            `json:"cash_to_market_cap_ratio"`
	LiquidityToMarketCap  *shariah.Number            `json:"liquidity_to_market_cap_ratio"` // (cash + receivables) / market cap
	ReceivablesToAssets   *shariah.Number            `json:"accounts_receivable_to_assets_ratio"`
	InterestToRevenue     *shariah.Number            `json:"interest_income_to_revenue_ratio"` // of the revenue breakdown's period
	AAOIFICompliant       *bool                      `json:"aaoifi_compliant"`
	DJIMCompliant         *bool                      `json:"djim_compliant"`
	FTSECompliant         *bool                      `json:"ftse_compliant"`
	MSCICompliant         *bool                      `json:"msci_compliant"`
	SPCompliant           *bool                      `json:"sp_compliant"`
	BusinessActivities    []Activity                 `json:"business_activities"`
	RevenueBreakdown      RevenueBreakdown           `json:"revenue_breakdown"`
	FinancialRatios       map[string]*shariah.Number `json:"financial_ratios"`
	PurificationRate      *shariah.Number            `json:"purification_rate"`          // percent: 3.37 means 3.37%
	PurificationFraction  *shariah.Number            `json:"purification_rate_fraction"` // the same as a fraction in [0, 1]
	PurificationRatePct   *shariah.Number            `json:"purification_rate_pct"`      // percent (= purification_rate)
	PurificationMethod    string                     `json:"purification_method"`
	ComplianceExplanation string                     `json:"compliance_explanation"`
	Disclaimers           []shariah.Disclaimer       `json:"disclaimers"`
	ScreenedAt            time.Time                  `json:"screened_at"`
	Ruleset               RulesetRef                 `json:"ruleset"`
	DataQuality           DataQuality                `json:"data_quality"`
	RunID                 string                     `json:"run_id,omitempty"` // the bulk run that wrote it

	// BusinessClassification is what the business screen read and where from.
	BusinessClassification Classification `json:"business_classification"`
}

// SetPurificationFraction sets the purification fields from the rate as a fraction: purification_rate
// and purification_rate_pct in percent (4 decimals, PercentOf), purification_rate_fraction as given.
// The fraction is the one figure behind the three: the engine sets it, and the result store's read
// path derives the two percents from the stored fraction again.
func (r *Result) SetPurificationFraction(f *shariah.Number) {
	r.PurificationFraction, r.PurificationRate, r.PurificationRatePct = f, nil, nil
	if f != nil {
		r.PurificationRate = PercentOf(f)
		r.PurificationRatePct = PercentOf(f)
	}
}

// PercentOf is a fraction in percent, 4 decimals (nil stays nil).
func PercentOf(f *shariah.Number) *shariah.Number {
	if f == nil {
		return nil
	}
	return num(f.Decimal.Mul(d100).Round(4))
}

// DataSourceOf classifies a screening result by its fundamentals: illustrative when any input used is,
// filed when the inputs come from filings, no_fundamentals otherwise.
func DataSourceOf(r Result) string {
	if r.DataQuality.Illustrative {
		return shariah.DataIllustrative
	}
	for _, s := range r.DataQuality.Sources {
		if s == shariah.SourceFiling || s == shariah.SourceLive {
			return shariah.DataFiled
		}
	}
	return shariah.DataNoFundamentals
}

// ResultVariant names the encoding of served screening results (format and the Result type's shape): a
// body stored under another one is not served. A result carries its own disclaimers (attached when it
// was computed), so nothing else enters its body.
var ResultVariant = "r" + strconv.Itoa(shariah.ServedFormat) + "-" + shariah.ShapeHash(reflect.TypeOf(Result{}))

// ServeResult is the body of a screening result as GET /api/screen and GET /api/result serve it (a
// methodology's view is the result View returns).
func ServeResult(r Result) (shariah.Served, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return shariah.Served{}, err
	}
	return shariah.NewServed(body), nil
}
