package sukuk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// Sukuk dispositions under AAOIFI Standard 62 (draft) and before it: data-driven rules, one file
// per AAOIFI standard version in rules/sukuk/, tried in order, the first match deciding. A rule needing an
// attribute the instrument does not have cannot decide: the result is insufficient_data naming it.

// Sukuk disposition statuses, and the grid status of a methodology without a sukuk rule.
const (
	Compliant        = "compliant"
	Questionable     = "questionable"
	NonCompliant     = "non_compliant"
	InsufficientData = "insufficient_data"
	NotCovered       = "not_covered"
)

// Scenarios of a standard file: before Standard 62 and under the Standard 62 draft.
const (
	Pre62  = "pre-62"
	Post62 = "post-62"
)

// Grid treatments: the methodology follows a standard file's disposition, or has no sukuk rule.
const (
	GridFollowsStandard = "follows_standard"
	GridNotCovered      = "not_covered"
)

// Attributes a sukuk rule can require (names of Sukuk's JSON fields).
const (
	AttrStructure           = "structure"
	AttrTitleType           = "title_type"
	AttrPurchaseUndertaking = "purchase_undertaking"
	AttrGuarantee           = "guarantee"
	AttrReturnType          = "return_type"
	AttrTangibleAssetRatio  = "tangible_asset_ratio"
)

// Attributes lists the attributes rules can require, in the order missing ones are named.
var Attributes = []string{AttrStructure, AttrTitleType, AttrPurchaseUndertaking, AttrGuarantee,
	AttrReturnType, AttrTangibleAssetRatio}

// Disposition is an instrument's status under one standard file.
type Disposition struct {
	Standard string   `json:"standard"` // the rules file, e.g. aaoifi-ss17-era
	Status   string   `json:"status"`   // compliant, questionable, non_compliant, insufficient_data
	Reasons  []string `json:"reasons"`
	Missing  []string `json:"missing_attributes"` // the unknown attributes that kept a rule from deciding
	RuleID   string   `json:"rule_id"`            // the rule that decided (or could not)
}

// GridEntry is how one index family's methodology treats the instrument.
type GridEntry struct {
	Methodology string `json:"methodology"`        // aaoifi, djim, ftse, msci, sp, sec
	Name        string `json:"name"`               // AAOIFI, DJIM, ...
	Status      string `json:"status"`             // a disposition status, or not_covered
	Basis       string `json:"basis"`              // the methodology's rule, in words
	Standard    string `json:"standard,omitempty"` // the standard file it follows
}

// Condition is the "when" of a rule: every given condition must hold. Lists match any of their
// values; tangible_asset_ratio_below_bp holds when the ratio is strictly below that many basis points.
type Condition struct {
	Structure               []string         `json:"structure,omitempty"`
	TitleType               []string         `json:"title_type,omitempty"`
	PurchaseUndertaking     []string         `json:"purchase_undertaking,omitempty"`
	Guarantee               *bool            `json:"guarantee,omitempty"`
	ReturnType              []string         `json:"return_type,omitempty"`
	TangibleAssetRatioBelow *decimal.Decimal `json:"tangible_asset_ratio_below_bp,omitempty"`
}

// Rule is one rule of a standard file.
type Rule struct {
	ID          string    `json:"id"`
	When        Condition `json:"when"`
	Requires    []string  `json:"requires"`
	Disposition string    `json:"disposition"`
	Reason      string    `json:"reason"`
}

// Standard is one standard file: an ordered list of rules.
type Standard struct {
	Name         string `json:"name"`
	Title        string `json:"title"`
	Scenario     string `json:"scenario"` // pre-62 or post-62
	Source       string `json:"source"`
	ReviewStatus string `json:"review_status"`
	Notes        string `json:"notes,omitempty"`
	Rules        []Rule `json:"rules"`
}

// GridRule is one methodology of grid.json.
type GridRule struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Treatment string `json:"treatment"` // follows_standard or not_covered
	Standard  string `json:"standard,omitempty"`
	Basis     string `json:"basis"`
}

// Grid is grid.json.
type Grid struct {
	Name          string     `json:"name"`
	Title         string     `json:"title"`
	Source        string     `json:"source"`
	ReviewStatus  string     `json:"review_status"`
	Notes         string     `json:"notes,omitempty"`
	Methodologies []GridRule `json:"methodologies"`
}

// Rules are the loaded rules: the pre- and post-Standard 62 standard files and the grid.
type Rules struct {
	Pre, Post *Standard
	Standards map[string]*Standard // by name
	Grid      *Grid
}

// LoadRules reads grid.json and every other *.json of fsys as a standard file, and validates them:
// unknown fields, attributes or values are errors, every attribute a condition tests must be required,
// exactly one standard per scenario (pre-62, post-62), and every instrument whose attributes are all
// known must be decided by some rule.
func LoadRules(fsys fs.FS) (*Rules, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	r := &Rules{Standards: map[string]*Standard{}}
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		if n == "grid.json" {
			var g Grid
			if err := decodeStrict(b, &g); err != nil {
				return nil, fmt.Errorf("sukuk rules %s: %w", n, err)
			}
			r.Grid = &g
			continue
		}
		var st Standard
		if err := decodeStrict(b, &st); err != nil {
			return nil, fmt.Errorf("sukuk rules %s: %w", n, err)
		}
		if err := st.validate(); err != nil {
			return nil, fmt.Errorf("sukuk rules %s: %w", n, err)
		}
		if st.Name+".json" != n {
			return nil, fmt.Errorf("sukuk rules %s is named %q", n, st.Name)
		}
		r.Standards[st.Name] = &st
		switch {
		case st.Scenario == Pre62 && r.Pre == nil:
			r.Pre = &st
		case st.Scenario == Post62 && r.Post == nil:
			r.Post = &st
		default:
			return nil, fmt.Errorf("sukuk rules %s: a second standard for scenario %q", n, st.Scenario)
		}
	}
	if r.Pre == nil || r.Post == nil {
		return nil, errors.New("sukuk rules: need one standard for pre-62 and one for post-62")
	}
	if r.Grid == nil {
		return nil, errors.New("sukuk rules: grid.json is missing")
	}
	if err := r.validateGrid(); err != nil {
		return nil, fmt.Errorf("sukuk rules grid.json: %w", err)
	}
	return r, nil
}

func decodeStrict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

func (st *Standard) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if st.Name == "" || st.Title == "" || st.Source == "" || st.ReviewStatus == "" {
		bad("name, title, source and review_status are required")
	}
	if st.Scenario != Pre62 && st.Scenario != Post62 {
		bad("scenario %q is not %s or %s", st.Scenario, Pre62, Post62)
	}
	if len(st.Rules) == 0 {
		bad("no rules")
	}
	seen := map[string]bool{}
	for _, ru := range st.Rules {
		if ru.ID == "" || seen[ru.ID] {
			bad("rule %q: ids are required and unique", ru.ID)
		}
		seen[ru.ID] = true
		if !sukukOneOf(ru.Disposition, []string{Compliant, Questionable, NonCompliant}) {
			bad("rule %s: disposition %q is not compliant, questionable or non_compliant", ru.ID, ru.Disposition)
		}
		if strings.TrimSpace(ru.Reason) == "" {
			bad("rule %s: no reason", ru.ID)
		}
		req := map[string]bool{}
		for _, a := range ru.Requires {
			if !sukukOneOf(a, Attributes) {
				bad("rule %s: requires unknown attribute %q", ru.ID, a)
			}
			req[a] = true
		}
		w := ru.When
		for _, l := range []struct {
			attr string
			vals []string
			all  []string
		}{
			{AttrStructure, w.Structure, Structures},
			{AttrTitleType, w.TitleType, TitleTypes},
			{AttrPurchaseUndertaking, w.PurchaseUndertaking, Undertakings},
			{AttrReturnType, w.ReturnType, ReturnTypes},
		} {
			for _, v := range l.vals {
				if !sukukOneOf(v, l.all) {
					bad("rule %s: %s %q is not one of %s", ru.ID, l.attr, v, strings.Join(l.all, ", "))
				}
			}
			if len(l.vals) > 0 && !req[l.attr] {
				bad("rule %s: tests %s without requiring it", ru.ID, l.attr)
			}
		}
		if w.Guarantee != nil && !req[AttrGuarantee] {
			bad("rule %s: tests guarantee without requiring it", ru.ID)
		}
		if t := w.TangibleAssetRatioBelow; t != nil {
			if !t.IsPositive() || t.GreaterThan(decimal.NewFromInt(10000)) {
				bad("rule %s: tangible_asset_ratio_below_bp %s is not in (0, 10000]", ru.ID, t.String())
			}
			if !req[AttrTangibleAssetRatio] {
				bad("rule %s: tests tangible_asset_ratio without requiring it", ru.ID)
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return st.checkDecides()
}

// checkDecides evaluates every combination of known attribute values (ratios at 0, 1 and either side of
// each threshold) and fails on the first no rule decides.
func (st *Standard) checkDecides() error {
	ratios := []decimal.Decimal{decimal.Zero, decimal.NewFromInt(1)}
	for _, ru := range st.Rules {
		if t := ru.When.TangibleAssetRatioBelow; t != nil {
			f := t.Shift(-4)
			ratios = append(ratios, f, f.Sub(decimal.New(1, -6)))
		}
	}
	yes, no := true, false
	for _, s := range Structures {
		for _, tt := range TitleTypes {
			for _, pu := range Undertakings {
				for _, g := range []*bool{&yes, &no} {
					for _, rt := range ReturnTypes {
						for _, ra := range ratios {
							n := shariah.NewNumber(ra)
							in := Sukuk{Structure: s, TitleType: tt, PurchaseUndertaking: pu, Guarantee: g, ReturnType: rt, TangibleAssetRatio: &n}
							if d := st.Dispose(in); d.Status == InsufficientData {
								return fmt.Errorf("no rule decides %s, title %s, undertaking %s, guarantee %t, return %s, tangible ratio %s",
									s, tt, pu, *g, rt, ra.String())
							}
						}
					}
				}
			}
		}
	}
	return nil
}

func (r *Rules) validateGrid() error {
	g := r.Grid
	var errs []error
	if g.Source == "" || g.ReviewStatus == "" || len(g.Methodologies) == 0 {
		errs = append(errs, errors.New("source, review_status and methodologies are required"))
	}
	seen := map[string]bool{}
	for _, m := range g.Methodologies {
		if m.ID == "" || m.Name == "" || m.Basis == "" || seen[m.ID] {
			errs = append(errs, fmt.Errorf("methodology %q: id, name and basis required, ids unique", m.ID))
		}
		seen[m.ID] = true
		switch m.Treatment {
		case GridFollowsStandard:
			if r.Standards[m.Standard] == nil {
				errs = append(errs, fmt.Errorf("methodology %s follows unknown standard %q", m.ID, m.Standard))
			}
		case GridNotCovered:
			if m.Standard != "" {
				errs = append(errs, fmt.Errorf("methodology %s is not covered but names standard %q", m.ID, m.Standard))
			}
		default:
			errs = append(errs, fmt.Errorf("methodology %s: treatment %q is not %s or %s", m.ID, m.Treatment, GridFollowsStandard, GridNotCovered))
		}
	}
	return errors.Join(errs...)
}

// known reports whether the instrument has the attribute.
func sukukKnown(s Sukuk, attr string) bool {
	switch attr {
	case AttrStructure:
		return s.Structure != ""
	case AttrTitleType:
		return s.TitleType != ""
	case AttrPurchaseUndertaking:
		return s.PurchaseUndertaking != ""
	case AttrGuarantee:
		return s.Guarantee != nil
	case AttrReturnType:
		return s.ReturnType != ""
	case AttrTangibleAssetRatio:
		return s.TangibleAssetRatio != nil
	}
	return false
}

// fails reports whether a condition on a known attribute is false (conditions on unknown attributes
// neither hold nor fail).
func (c Condition) fails(s Sukuk) bool {
	in := func(v string, vals []string) bool { return v != "" && len(vals) > 0 && !sukukOneOf(v, vals) }
	if in(s.Structure, c.Structure) || in(s.TitleType, c.TitleType) || in(s.PurchaseUndertaking, c.PurchaseUndertaking) ||
		in(s.ReturnType, c.ReturnType) {
		return true
	}
	if c.Guarantee != nil && s.Guarantee != nil && *c.Guarantee != *s.Guarantee {
		return true
	}
	if c.TangibleAssetRatioBelow != nil && s.TangibleAssetRatio != nil &&
		!s.TangibleAssetRatio.LessThan(c.TangibleAssetRatioBelow.Shift(-4)) {
		return true
	}
	return false
}

// Dispose applies the standard's rules to s in order. A rule a known attribute rules out is skipped;
// the first rule not ruled out decides when every attribute it requires is known, and otherwise gives
// insufficient_data naming the unknown ones.
func (st *Standard) Dispose(s Sukuk) Disposition {
	s.Structure = strings.ToLower(strings.TrimSpace(s.Structure))
	s.TitleType = strings.ToLower(strings.TrimSpace(s.TitleType))
	s.PurchaseUndertaking = strings.ToLower(strings.TrimSpace(s.PurchaseUndertaking))
	s.ReturnType = strings.ToLower(strings.TrimSpace(s.ReturnType))
	for _, ru := range st.Rules {
		if ru.When.fails(s) {
			continue
		}
		var missing []string
		for _, a := range Attributes { // in the canonical order
			if sukukOneOf(a, ru.Requires) && !sukukKnown(s, a) {
				missing = append(missing, a)
			}
		}
		if len(missing) > 0 {
			return Disposition{Standard: st.Name, Status: InsufficientData, RuleID: ru.ID, Missing: missing,
				Reasons: []string{fmt.Sprintf("rule %s cannot decide: unknown %s", ru.ID, strings.Join(missing, ", "))}}
		}
		return Disposition{Standard: st.Name, Status: ru.Disposition, RuleID: ru.ID, Reasons: []string{ru.Reason},
			Missing: []string{}}
	}
	// unreachable with validated rules (every fully known instrument is decided), kept for safety
	return Disposition{Standard: st.Name, Status: InsufficientData, Missing: []string{},
		Reasons: []string{"no rule of " + st.Name + " decides this instrument"}}
}

// Dispose gives the instrument's disposition before Standard 62 and under the draft, and the grid of
// index-family methodologies.
func (r *Rules) Dispose(s Sukuk) (pre, post Disposition, grid []GridEntry) {
	pre, post = r.Pre.Dispose(s), r.Post.Dispose(s)
	grid = make([]GridEntry, 0, len(r.Grid.Methodologies))
	for _, m := range r.Grid.Methodologies {
		e := GridEntry{Methodology: m.ID, Name: m.Name, Basis: m.Basis, Status: NotCovered}
		if m.Treatment == GridFollowsStandard {
			e.Standard = m.Standard
			switch m.Standard {
			case pre.Standard:
				e.Status = pre.Status
			case post.Standard:
				e.Status = post.Status
			default:
				e.Status = r.Standards[m.Standard].Dispose(s).Status
			}
		}
		grid = append(grid, e)
	}
	return pre, post, grid
}

// View is a record with its dispositions before and after Standard 62 and the methodology grid, as
// the REST routes and the MCP tool answer it.
type View struct {
	Sukuk
	Pre62  Disposition `json:"disposition_pre_62"`
	Post62 Disposition `json:"disposition_post_62"`
	Grid   []GridEntry `json:"methodology_grid"`
}

// View disposes a record.
func (r *Rules) View(s Sukuk) View {
	pre, post, grid := r.Dispose(s)
	return View{Sukuk: s, Pre62: pre, Post62: post, Grid: grid}
}
