package screening

import (
	"encoding/json"
	"strings"

	"github.com/shariah-screen/shariah"
)

// InputProvenance is where one screening input of a period came from: the fact, and for a filing
// whose accession number is known, that number and the filing's EDGAR address. An input the period
// lacks is not Available, with the reason its source gave.
type InputProvenance struct {
	Available bool
	Reason    string // when not available
	Fact      shariah.Fact
	Accession string // "" when not known
	URL       string // "" without an accession number
	// Period is the period the input was taken from (or looked for in), as the screening uses it
	// (ScreeningPeriods); zero for InputProvenances of one period.
	Period InputPeriod
}

// InputPeriod names the period an input came from: its label ("FY2024", "Q2 2025"), end, fiscal
// period and year, and whether it was carried from another period than the one screened.
type InputPeriod struct {
	Label      string
	PeriodEnd  string
	Period     string
	FiscalYear int
	Carried    bool
}

func inputPeriodOf(f *shariah.Fundamentals, carried bool) InputPeriod {
	if f == nil {
		return InputPeriod{}
	}
	return InputPeriod{Label: PeriodLabel(*f), PeriodEnd: f.PeriodEnd, Period: f.Period, FiscalYear: f.FiscalYear, Carried: carried}
}

// MarshalJSON writes {available: false, reason} for a missing input, otherwise the fact's fields with
// accession (null when not known) and url (only with an accession number), keys in alphabetical order.
// With a Period, both carry period_label, period_end, period, fiscal_year (when known) and
// carried_forward (when true).
func (p InputProvenance) MarshalJSON() ([]byte, error) {
	var cf *bool
	if p.Period.Carried {
		cf = &p.Period.Carried
	}
	pl := p.Period
	if !p.Available {
		return json.Marshal(struct {
			Available  bool   `json:"available"`
			Carried    *bool  `json:"carried_forward,omitempty"`
			FiscalYear int    `json:"fiscal_year,omitempty"`
			Period     string `json:"period,omitempty"`
			PeriodEnd  string `json:"period_end,omitempty"`
			Label      string `json:"period_label,omitempty"`
			Reason     string `json:"reason"`
		}{false, cf, pl.FiscalYear, pl.Period, pl.PeriodEnd, pl.Label, p.Reason})
	}
	var acc *string
	if p.Accession != "" {
		acc = &p.Accession
	}
	f := p.Fact
	return json.Marshal(struct {
		Accession  *string        `json:"accession"`
		Available  bool           `json:"available"`
		Carried    *bool          `json:"carried_forward,omitempty"`
		CIK        string         `json:"cik"`
		Parts      parts          `json:"components,omitempty"`
		Document   string         `json:"document"`
		Filed      string         `json:"filed"`
		FiscalYear int            `json:"fiscal_year,omitempty"`
		Form       string         `json:"form"`
		Note       string         `json:"note"`
		Period     string         `json:"period,omitempty"`
		PeriodEnd  string         `json:"period_end,omitempty"`
		Label      string         `json:"period_label,omitempty"`
		Source     string         `json:"source"`
		SourceRef  string         `json:"source_ref"`
		Tag        string         `json:"tag"`
		URL        string         `json:"url,omitempty"`
		Value      shariah.Number `json:"value"`
	}{acc, true, cf, f.CIK, f.Components, f.Document, f.Filed, pl.FiscalYear, f.Form, f.Note, pl.Period, pl.PeriodEnd, pl.Label, f.Source, f.Ref, f.Tag, p.URL, f.Value})
}

// parts are the filed lines of a summed input (Fact.Components), "components" in the JSON.
type parts = []shariah.Component

// InputProvenances is, for each screening input (Fields), where the value of period p came from. cik
// is the asset's CIK; a fact naming its filer's CIK replaces it for that input and the ones after.
// Only a filing (SourceFiling) with a CIK and a well-formed accession number (IsAccession) has an EDGAR
// address: a filing read from a document whose accession is not known has the document's name as its
// reference instead.
func InputProvenances(p shariah.Fundamentals, cik string) map[shariah.Field]InputProvenance {
	out := map[shariah.Field]InputProvenance{}
	cik = strings.TrimLeft(cik, "0")
	for _, f := range shariah.Fields {
		fact, ok := p.Facts[f]
		if !ok {
			out[f] = InputProvenance{Reason: p.Missing[f]}
			continue
		}
		out[f] = provenanceOf(fact, &cik)
	}
	return out
}

// ScreenedInputProvenances is, for each screening input, where the value the screening uses came
// from, with the period it was taken from (ScreeningPeriods.Input): the fiscal year of a company
// screened on its 10-K, the carried fiscal year for interest income carried forward. cik as for
// InputProvenances.
func ScreenedInputProvenances(sp ScreeningPeriods, cik string) map[shariah.Field]InputProvenance {
	out := map[shariah.Field]InputProvenance{}
	cik = strings.TrimLeft(cik, "0")
	for _, f := range shariah.Fields {
		in := sp.Input(f)
		var ip InputProvenance
		if in.Available {
			ip = provenanceOf(in.Fact, &cik)
		} else {
			ip = InputProvenance{Reason: in.Reason}
		}
		ip.Period = inputPeriodOf(in.Period, in.Carried)
		out[f] = ip
	}
	return out
}

// provenanceOf is the provenance of an available fact; a fact naming its filer's CIK replaces *cik.
func provenanceOf(fact shariah.Fact, cik *string) InputProvenance {
	ip := InputProvenance{Available: true, Fact: fact}
	if fact.CIK != "" {
		*cik = strings.TrimLeft(fact.CIK, "0")
	}
	if fact.Source == shariah.SourceFiling && *cik != "" && shariah.IsAccession(fact.Ref) {
		ip.Accession, ip.URL = fact.Ref, shariah.EDGARFilingURL(*cik, fact.Ref, fact.Document)
	}
	return ip
}
