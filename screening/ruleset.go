package screening

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// DefaultRuleset is the ruleset of every screening unless a request names another (rules/screening/spec.json).
const DefaultRuleset = "spec"

// Denominators of the financial ratios.
const (
	DenTotalAssets  = "total_assets"
	DenTotalRevenue = "total_revenue"
	DenMcapAvg24    = "market_cap_avg_24m" // average of 24 month-end market caps (close x shares)
	DenMcapAvg36    = "market_cap_avg_36m"
	DenMcapLatest   = "market_cap_latest" // the latest month-end market cap
)

// Comparators: the default table's strict "less than", or "does not exceed" as some published standards word it.
const (
	CmpLT = "lt"
	CmpLE = "le"
)

// Ruleset is a versioned set of screening rules (one file in rulesets/).
type Ruleset struct {
	Name         string `json:"name"`
	Title        string `json:"title"`
	EditionDate  string `json:"edition_date"`
	Source       string `json:"source"`
	ReviewStatus string `json:"review_status"` // contract, or unverified-secondary until checked against the official text
	Comparator   string `json:"comparator"`
	Notes        string `json:"notes,omitempty"`
	// MissingIsNonCompliant: the provider treats missing data as failing (MSCI's own indices).
	MissingIsNonCompliant bool `json:"missing_is_non_compliant,omitempty"`
	// CarryForwardInterest: when the screened period reports no interest income, the ratios that need
	// it use the latest fiscal year within the last two that did report it, against that year's
	// revenue (see carriedInterestPeriod). On unless a ruleset sets it false.
	CarryForwardInterest *bool `json:"carry_forward_interest_income,omitempty"`
	// BoundedInputs: when an input the ratios need is not filed (and, for interest income, cannot be
	// carried forward), decide the ratio on a bound from filed figures when the bound is decisive
	// (interest_bound.go). On unless a ruleset sets it false; off, such ratios stay unknown.
	BoundedInputs *bool `json:"bounded_inputs,omitempty"`
	// Primary is the id of the methodology whose verdict is the ruleset's yes/no: a result's
	// is_compliant, business_screen_pass and financial_screen_pass (PrimaryMethodology). The first
	// methodology listed when absent.
	Primary       string            `json:"primary,omitempty"`
	Methodologies []MethodologyRule `json:"methodologies"`
}

// PrimaryMethodology is the methodology whose verdict is the ruleset's yes/no: the one Primary names,
// else the first listed.
func (rs *Ruleset) PrimaryMethodology() *MethodologyRule {
	if rs.Primary != "" {
		if m, ok := rs.Methodology(rs.Primary); ok {
			return m
		}
	}
	return &rs.Methodologies[0]
}

// BoundsInputs reports whether the ruleset decides ratios on bounds of inputs nobody filed (the default).
func (rs *Ruleset) BoundsInputs() bool {
	return rs.BoundedInputs == nil || *rs.BoundedInputs
}

// CarriesInterestForward reports whether the ruleset lets interest income come from an earlier fiscal
// year when the screened period has none (the default).
func (rs *Ruleset) CarriesInterestForward() bool {
	return rs.CarryForwardInterest == nil || *rs.CarryForwardInterest
}

// MethodologyRule is one methodology's rules within a ruleset.
type MethodologyRule struct {
	ID       string      `json:"id"`   // aaoifi, djim, ftse, msci, sp, sec
	Name     string      `json:"name"` // AAOIFI, DJIM, FTSE, MSCI, S&P
	Business []string    `json:"business"`
	Ratios   []RatioRule `json:"ratios"`
	Buffer   *Buffer     `json:"buffer,omitempty"`
}

// RatioRule is one financial ratio and its threshold in basis points (decimal: FTSE's 33.333% is 3333.3).
type RatioRule struct {
	ID          string          `json:"id"`
	Label       string          `json:"label,omitempty"`
	Numerator   []shariah.Field `json:"numerator"` // summed
	Denominator string          `json:"denominator"`
	ThresholdBP decimal.Decimal `json:"threshold_bp"`
	Comparator  string          `json:"comparator,omitempty"` // overrides the ruleset's
}

// Buffer is DJIM's hysteresis: a ratio breaching its threshold but under UpperBP keeps the previous
// status until Periods consecutive evaluation periods breach; re-entry needs Periods passing periods.
type Buffer struct {
	Ratio   string          `json:"ratio"`
	UpperBP decimal.Decimal `json:"upper_bp"`
	Periods int             `json:"periods"`
}

// Business-activity categories a ruleset may exclude (ClassifyActivities).
var BusinessCategories = []string{"conventional_finance", "alcohol", "tobacco", "pork", "gambling", "adult_entertainment",
	"weapons", "defense", "cannabis", "hotels", "music", "cinema", "online_dating"}

var validDenominators = map[string]bool{DenTotalAssets: true, DenTotalRevenue: true, DenMcapAvg24: true, DenMcapAvg36: true, DenMcapLatest: true}

// ParseRuleset reads and validates a ruleset file, reporting every problem at once.
func ParseRuleset(b []byte) (*Ruleset, error) {
	var rs Ruleset
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rs); err != nil {
		return nil, err
	}
	var errs []error
	if rs.Name == "" || rs.EditionDate == "" || rs.Source == "" || rs.ReviewStatus == "" {
		errs = append(errs, errors.New("name, edition_date, source and review_status are required"))
	}
	if rs.Comparator != CmpLT && rs.Comparator != CmpLE {
		errs = append(errs, fmt.Errorf("comparator %q is not lt or le", rs.Comparator))
	}
	if len(rs.Methodologies) == 0 {
		errs = append(errs, errors.New("no methodologies"))
	}
	cats := map[string]bool{}
	for _, c := range BusinessCategories {
		cats[c] = true
	}
	fields := map[shariah.Field]bool{}
	for _, f := range shariah.Fields {
		fields[f] = true
	}
	seen := map[string]bool{}
	for _, m := range rs.Methodologies {
		if m.ID == "" || m.Name == "" || seen[m.ID] {
			errs = append(errs, fmt.Errorf("methodology %q: id and name required, ids unique", m.ID))
		}
		seen[m.ID] = true
		for _, c := range m.Business {
			if !cats[c] {
				errs = append(errs, fmt.Errorf("%s: unknown business category %q", m.ID, c))
			}
		}
		ratios := map[string]bool{}
		for _, r := range m.Ratios {
			ratios[r.ID] = true
			if !validDenominators[r.Denominator] {
				errs = append(errs, fmt.Errorf("%s/%s: unknown denominator %q", m.ID, r.ID, r.Denominator))
			}
			if len(r.Numerator) == 0 {
				errs = append(errs, fmt.Errorf("%s/%s: empty numerator", m.ID, r.ID))
			}
			for _, f := range r.Numerator {
				if !fields[f] {
					errs = append(errs, fmt.Errorf("%s/%s: unknown field %q", m.ID, r.ID, f))
				}
			}
			if !r.ThresholdBP.IsPositive() || r.ThresholdBP.GreaterThan(decimal.NewFromInt(10000)) {
				errs = append(errs, fmt.Errorf("%s/%s: threshold_bp %s out of (0, 10000]", m.ID, r.ID, r.ThresholdBP))
			}
			if r.Comparator != "" && r.Comparator != CmpLT && r.Comparator != CmpLE {
				errs = append(errs, fmt.Errorf("%s/%s: comparator %q", m.ID, r.ID, r.Comparator))
			}
		}
		if m.Buffer != nil && (!ratios[m.Buffer.Ratio] || m.Buffer.Periods < 1) {
			errs = append(errs, fmt.Errorf("%s: buffer names ratio %q (must exist, periods >= 1)", m.ID, m.Buffer.Ratio))
		}
	}
	if rs.Primary != "" && !seen[rs.Primary] {
		errs = append(errs, fmt.Errorf("primary %q is not one of the ruleset's methodology ids", rs.Primary))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &rs, nil
}

// Methodology returns the rules of a methodology (by id or display name, case-insensitive).
func (rs *Ruleset) Methodology(name string) (*MethodologyRule, bool) {
	for i := range rs.Methodologies {
		m := &rs.Methodologies[i]
		if strings.EqualFold(m.ID, name) || strings.EqualFold(m.Name, name) {
			return m, true
		}
	}
	return nil, false
}

// MethodologyIDs lists the ruleset's methodology ids in order.
func (rs *Ruleset) MethodologyIDs() []string {
	out := make([]string, len(rs.Methodologies))
	for i, m := range rs.Methodologies {
		out[i] = m.ID
	}
	return out
}

// Rulesets is the set of loaded rulesets by name.
type Rulesets map[string]*Ruleset

// Names lists the ruleset names, sorted.
func (r Rulesets) Names() []string {
	out := make([]string, 0, len(r))
	for n := range r {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Resolve picks a ruleset and an optional methodology by name; unknown names are a VALIDATION_ERROR
// listing the valid ones.
func (r Rulesets) Resolve(ruleset, methodology string) (*Ruleset, string, error) {
	if ruleset == "" {
		ruleset = DefaultRuleset
	}
	var v shariah.Validation
	rs, ok := r[ruleset]
	if !ok {
		v.Add("unknown ruleset; valid: "+strings.Join(r.Names(), ", "), "value_error.ruleset", "query", "ruleset")
		return nil, "", v.Err()
	}
	if methodology == "" {
		return rs, "", nil
	}
	m, ok := rs.Methodology(methodology)
	if !ok {
		v.Add("unknown methodology for ruleset "+rs.Name+"; valid: "+strings.Join(rs.MethodologyIDs(), ", "), "value_error.methodology", "query", "methodology")
		return nil, "", v.Err()
	}
	return rs, m.ID, nil
}

// DisplayName is the ruleset's name as a person reads it on a badge or in a sentence: the methodology
// and its edition for a one-methodology ruleset ("S&P 2023", "AAOIFI 2017", "MSCI M-Series" where the
// file name names the edition by a word of its title), the count of methodologies otherwise
// ("5 methodologies").
func (rs *Ruleset) DisplayName() string {
	names := make([]string, len(rs.Methodologies))
	for i, m := range rs.Methodologies {
		names[i] = m.Name
	}
	return rulesetDisplayName(rs.Name, rs.Title, rs.EditionDate, names)
}

// RulesetDisplayName is DisplayName for the ruleset a result used (its methodologies are the result's).
func (r Result) RulesetDisplayName() string {
	names := make([]string, 0, len(r.ByMethodology))
	for _, mr := range r.ByMethodology {
		names = append(names, mr.Methodology)
	}
	return rulesetDisplayName(r.Ruleset.Name, r.Ruleset.Title, r.Ruleset.Edition, names)
}

func rulesetDisplayName(name, title, edition string, methodologies []string) string {
	switch len(methodologies) {
	case 0:
		return name
	case 1:
	default:
		return fmt.Sprintf("%d methodologies", len(methodologies))
	}
	m := methodologies[0]
	_, tail, _ := strings.Cut(name, "-")
	if len(tail) == 4 && strings.Trim(tail, "0123456789") == "" {
		return m + " " + tail
	}
	for _, w := range strings.Fields(title) {
		if tail != "" && strings.EqualFold(strings.ReplaceAll(w, "-", ""), tail) && !strings.Contains(strings.ToLower(m), strings.ToLower(w)) {
			return m + " " + w
		}
	}
	if len(edition) >= 4 {
		return m + " " + edition[:4]
	}
	return m
}
