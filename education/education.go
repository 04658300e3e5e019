// Package education is the service's education reference and disclaimer registry: the glossary,
// the methodology descriptions, the screening criteria and the purification guide (content written by
// this project, in the JSON files beside this file), with every threshold read from the ruleset files,
// never retyped. REST and MCP serve it alike.
package education

import (
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
)

//go:embed *.json
var files embed.FS

// Term is a glossary entry.
type Term struct {
	Term            string   `json:"term"`
	Arabic          string   `json:"arabic"`
	Transliteration string   `json:"transliteration"`
	Definition      string   `json:"definition"`
	Category        string   `json:"category"`
	References      []string `json:"references"`
}

// Methodology describes a screening methodology (thresholds come from its ruleset).
type Methodology struct {
	ID                     string   `json:"id"`
	Name                   string   `json:"name"`
	FullName               string   `json:"full_name"`
	Established            string   `json:"established"`
	ScreeningProcess       string   `json:"screening_process"`
	ShariahBoard           string   `json:"shariah_board"`
	DistinguishingFeatures []string `json:"distinguishing_features"`
	ScholarlyReferences    []string `json:"scholarly_references"`
	Ruleset                string   `json:"ruleset"`
	PublishedRulesets      []string `json:"published_rulesets"`
}

// Threshold is one ratio rule as shown to readers.
type Threshold struct {
	Ratio        string          `json:"ratio"`
	Label        string          `json:"label"`
	Numerator    []shariah.Field `json:"numerator"`
	Denominator  string          `json:"denominator"`
	ThresholdPct string          `json:"threshold_pct"`
	ThresholdBP  shariah.Number  `json:"threshold_bp"`
	Comparator   string          `json:"comparator"`
}

// Registry is the loaded content.
type Registry struct {
	Glossary      []Term
	Methodologies []Methodology
	Criteria      json.RawMessage
	Purification  json.RawMessage
	Disclaimers   []shariah.Disclaimer
	rulesets      screening.Rulesets
}

// Load reads the embedded content and checks it against the rulesets.
func Load(rs screening.Rulesets) (*Registry, error) {
	r := &Registry{rulesets: rs}
	read := func(name string, v any) error {
		b, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	if err := read("glossary.json", &r.Glossary); err != nil {
		return nil, err
	}
	if err := read("methodologies.json", &r.Methodologies); err != nil {
		return nil, err
	}
	if err := read("criteria.json", &r.Criteria); err != nil {
		return nil, err
	}
	if err := read("purification.json", &r.Purification); err != nil {
		return nil, err
	}
	if err := read("disclaimers.json", &r.Disclaimers); err != nil {
		return nil, err
	}
	for _, m := range r.Methodologies {
		rs, ok := rs[m.Ruleset]
		if !ok {
			return nil, fmt.Errorf("methodology %s names ruleset %q, which does not exist", m.ID, m.Ruleset)
		}
		if _, ok := rs.Methodology(m.ID); !ok {
			return nil, fmt.Errorf("ruleset %s has no methodology %s", m.Ruleset, m.ID)
		}
	}
	if len(r.Disclaimers) != len(shariah.DisclaimerIDs) {
		return nil, fmt.Errorf("%d disclaimers, want %d", len(r.Disclaimers), len(shariah.DisclaimerIDs))
	}
	return r, nil
}

// SearchGlossary returns the terms whose term, transliteration, Arabic or definition contain q
// (case-insensitive); every term when q is empty. Matches on the term come first.
func (r *Registry) SearchGlossary(q string) []Term {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return r.Glossary
	}
	var head, tail []Term
	for _, t := range r.Glossary {
		switch {
		case strings.Contains(strings.ToLower(t.Term), q) || strings.Contains(strings.ToLower(t.Transliteration), q) || strings.Contains(t.Arabic, q):
			head = append(head, t)
		case strings.Contains(strings.ToLower(t.Definition), q):
			tail = append(tail, t)
		}
	}
	return append(append([]Term{}, head...), tail...)
}

// Thresholds reads a methodology's ratio rules from a ruleset.
func Thresholds(rs *screening.Ruleset, id string) []Threshold {
	m, ok := rs.Methodology(id)
	if !ok {
		return nil
	}
	out := make([]Threshold, 0, len(m.Ratios))
	for _, rr := range m.Ratios {
		cmp := rs.Comparator
		if rr.Comparator != "" {
			cmp = rr.Comparator
		}
		pct := rr.ThresholdBP.Div(shariahHundred).StringFixed(2)
		if rr.ThresholdBP.Mod(shariahOne).IsPositive() {
			pct = rr.ThresholdBP.Div(shariahHundred).StringFixed(3)
		}
		label := rr.Label
		if label == "" {
			parts := make([]string, len(rr.Numerator))
			for i, f := range rr.Numerator {
				parts[i] = strings.ReplaceAll(string(f), "_", " ")
			}
			label = strings.Join(parts, " + ") + " / " + strings.ReplaceAll(rr.Denominator, "_", " ")
		}
		out = append(out, Threshold{Ratio: rr.ID, Label: label, Numerator: rr.Numerator, Denominator: rr.Denominator,
			ThresholdPct: pct, ThresholdBP: shariah.NewNumber(rr.ThresholdBP), Comparator: cmp})
	}
	return out
}

// MethodologySummary is a methodology with its thresholds (GET /api/education/methodologies).
type MethodologySummary struct {
	ID                     string      `json:"id"`
	Name                   string      `json:"name"`
	FullName               string      `json:"full_name"`
	Thresholds             []Threshold `json:"thresholds"`
	Business               []string    `json:"prohibited_activities"`
	DistinguishingFeatures []string    `json:"distinguishing_features"`
	Ruleset                string      `json:"ruleset"`
}

// MethodologyDetail adds the long description (GET /api/education/methodologies/{name}).
type MethodologyDetail struct {
	MethodologySummary
	Established         string             `json:"established"`
	ScreeningProcess    string             `json:"screening_process"`
	ShariahBoard        string             `json:"shariah_board"`
	ScholarlyReferences []string           `json:"scholarly_references"`
	PublishedEditions   []PublishedEdition `json:"published_editions"`
}

// PublishedEdition is a published ruleset of the methodology with its own thresholds.
type PublishedEdition struct {
	Ruleset      string      `json:"ruleset"`
	Title        string      `json:"title"`
	EditionDate  string      `json:"edition_date"`
	ReviewStatus string      `json:"review_status"`
	Source       string      `json:"source"`
	Notes        string      `json:"notes,omitempty"`
	Thresholds   []Threshold `json:"thresholds"`
}

func (r *Registry) summary(m Methodology) MethodologySummary {
	rs := r.rulesets[m.Ruleset]
	rule, _ := rs.Methodology(m.ID)
	return MethodologySummary{ID: m.ID, Name: m.Name, FullName: m.FullName, Thresholds: Thresholds(rs, m.ID),
		Business: rule.Business, DistinguishingFeatures: m.DistinguishingFeatures, Ruleset: m.Ruleset}
}

// MethodologySummaries lists every methodology.
func (r *Registry) MethodologySummaries() []MethodologySummary {
	out := make([]MethodologySummary, len(r.Methodologies))
	for i, m := range r.Methodologies {
		out[i] = r.summary(m)
	}
	return out
}

// Methodology returns one methodology by id or name (aaoifi, sec, djim, msci, ftse, sp; "S&P").
func (r *Registry) Methodology(name string) (MethodologyDetail, bool) {
	for _, m := range r.Methodologies {
		if !strings.EqualFold(m.ID, name) && !strings.EqualFold(m.Name, name) {
			continue
		}
		d := MethodologyDetail{MethodologySummary: r.summary(m), Established: m.Established, ScreeningProcess: m.ScreeningProcess,
			ShariahBoard: m.ShariahBoard, ScholarlyReferences: m.ScholarlyReferences, PublishedEditions: []PublishedEdition{}}
		names := append([]string(nil), m.PublishedRulesets...)
		sort.Strings(names)
		for _, n := range names {
			rs, ok := r.rulesets[n]
			if !ok || n == m.Ruleset {
				continue
			}
			d.PublishedEditions = append(d.PublishedEditions, PublishedEdition{Ruleset: n, Title: rs.Title, EditionDate: rs.EditionDate,
				ReviewStatus: rs.ReviewStatus, Source: rs.Source, Notes: rs.Notes, Thresholds: Thresholds(rs, m.ID)})
		}
		return d, true
	}
	return MethodologyDetail{}, false
}

// MethodologyIDs lists the ids, for error messages.
func (r *Registry) MethodologyIDs() []string {
	out := make([]string, len(r.Methodologies))
	for i, m := range r.Methodologies {
		out[i] = m.ID
	}
	return out
}

// Criteria returns the business and financial screening criteria, with every methodology's thresholds
// from the default ruleset.
func (r *Registry) CriteriaWithThresholds() map[string]any {
	var c map[string]any
	_ = json.Unmarshal(r.Criteria, &c)
	spec := r.rulesets[screening.DefaultRuleset]
	th := map[string]any{}
	for _, m := range spec.Methodologies {
		th[m.Name] = map[string]any{"thresholds": Thresholds(spec, m.ID), "prohibited_activities": m.Business}
	}
	if fs, ok := c["financial_screening"].(map[string]any); ok {
		fs["by_methodology"] = th
		fs["ruleset"] = spec.Name
		// The spec's table names total assets for AAOIFI; the ratios' denominator per methodology is in
		// by_methodology. max_debt_to_total_assets is the lowest debt threshold on a total-assets basis.
		for _, m := range spec.Methodologies {
			for _, t := range Thresholds(spec, m.ID) {
				if t.Ratio == "debt" && t.Denominator == screening.DenTotalAssets {
					if cur, ok := fs["max_debt_to_total_assets"].(string); !ok || t.ThresholdPct < cur {
						fs["max_debt_to_total_assets"] = t.ThresholdPct
					}
				}
			}
		}
	}
	return c
}

// Disclaimer returns one disclaimer.
func (r *Registry) Disclaimer(id string) (shariah.Disclaimer, bool) {
	for _, d := range r.Disclaimers {
		if d.ID == id {
			return d, true
		}
	}
	return shariah.Disclaimer{}, false
}

// QuoteBodies encodes the body GET /api/quote serves: the quote with the market_data disclaimer. The
// edge serves these bodies and the quote writers (load, ingest) store them, so both take them from here.
func (r *Registry) QuoteBodies() market.QuoteBodies {
	return market.NewQuoteBodies(r.DisclaimersFor("market_data"))
}

// DisclaimersFor returns the disclaimers with the ids, in registry order (the Screener attaches them).
func (r *Registry) DisclaimersFor(ids ...string) []shariah.Disclaimer {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var out []shariah.Disclaimer
	for _, d := range r.Disclaimers {
		if want[d.ID] {
			out = append(out, d)
		}
	}
	return out
}

var (
	shariahHundred = decimal.NewFromInt(100)
	shariahOne     = decimal.NewFromInt(1)
)
