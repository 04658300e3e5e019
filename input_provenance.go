package shariah

import (
	"encoding/json"
	"strings"
)

// InputProvenance is where one screening input of a period came from: the fact, and for a filing
// whose accession number is known, that number and the filing's EDGAR address. An input the period
// lacks is not Available, with the reason its source gave.
type InputProvenance struct {
	Available bool
	Reason    string // when not available
	Fact      Fact
	Accession string // "" when not known
	URL       string // "" without an accession number
}

// MarshalJSON writes {available: false, reason} for a missing input, otherwise the fact's fields with
// accession (null when not known) and url (only with an accession number), keys in alphabetical order.
func (p InputProvenance) MarshalJSON() ([]byte, error) {
	if !p.Available {
		return json.Marshal(struct {
			Available bool   `json:"available"`
			Reason    string `json:"reason"`
		}{false, p.Reason})
	}
	var acc *string
	if p.Accession != "" {
		acc = &p.Accession
	}
	f := p.Fact
	return json.Marshal(struct {
		Accession *string `json:"accession"`
		Available bool    `json:"available"`
		CIK       string  `json:"cik"`
		Parts     parts   `json:"components,omitempty"`
		Document  string  `json:"document"`
		Filed     string  `json:"filed"`
		Form      string  `json:"form"`
		Note      string  `json:"note"`
		Source    string  `json:"source"`
		SourceRef string  `json:"source_ref"`
		Tag       string  `json:"tag"`
		URL       string  `json:"url,omitempty"`
		Value     Number  `json:"value"`
	}{acc, true, f.CIK, f.Components, f.Document, f.Filed, f.Form, f.Note, f.Source, f.Ref, f.Tag, p.URL, f.Value})
}

// parts are the filed lines of a summed input (Fact.Components), "components" in the JSON.
type parts = []Component

// InputProvenances is, for each screening input (Fields), where the value of period p came from. cik
// is the asset's CIK; a fact naming its filer's CIK replaces it for that input and the ones after.
// Only a filing (SourceFiling) with a CIK and a well-formed accession number (IsAccession) has an EDGAR
// address: a filing read from a document whose accession is not known has the document's name as its
// reference instead.
func InputProvenances(p Fundamentals, cik string) map[Field]InputProvenance {
	out := map[Field]InputProvenance{}
	cik = strings.TrimLeft(cik, "0")
	for _, f := range Fields {
		fact, ok := p.Facts[f]
		if !ok {
			out[f] = InputProvenance{Reason: p.Missing[f]}
			continue
		}
		ip := InputProvenance{Available: true, Fact: fact}
		if fact.CIK != "" {
			cik = strings.TrimLeft(fact.CIK, "0")
		}
		if fact.Source == SourceFiling && cik != "" && IsAccession(fact.Ref) {
			ip.Accession, ip.URL = fact.Ref, EDGARFilingURL(cik, fact.Ref, fact.Document)
		}
		out[f] = ip
	}
	return out
}
