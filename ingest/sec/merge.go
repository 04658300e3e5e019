package sec

import (
	"fmt"
	"sort"
)

// MergeFacts unions several readings of one company's facts (its companyfacts and the facts of
// inline-XBRL documents converted with IXDocument.CompanyFacts) into one CompanyFacts, so the one
// mapping (Fundamentals) sees every period whichever reader produced it: a 10-Q filed this morning
// next to the quarterly history companyfacts will only catch up with later.
//
// A fact is identified by taxonomy, tag, unit, accession, start, end and share class. When two readings
// report the same fact, the first reading's wins (pass companyfacts first); the two readers agree on
// every shared fact of the real filings (see the cross-check tests), so the order only decides
// provenance details. Readings of different CIKs are an error: they would mix two companies.
func MergeFacts(readings ...CompanyFacts) (CompanyFacts, error) {
	out := CompanyFacts{Facts: map[string]map[string]Concept{}}
	seen := map[string]bool{}
	for _, r := range readings {
		if r.CIK == "" {
			continue
		}
		if out.CIK == "" {
			out.CIK = r.CIK
		} else if r.CIK != out.CIK {
			return CompanyFacts{}, fmt.Errorf("merge facts: cik %s and %s are different companies", out.CIK, r.CIK)
		}
		if out.EntityName == "" {
			out.EntityName = r.EntityName
		}
		// Taxonomies and tags in sorted order: the merged lists do not depend on map iteration.
		for _, tax := range sortedKeys(r.Facts) {
			concepts := r.Facts[tax]
			if out.Facts[tax] == nil {
				out.Facts[tax] = map[string]Concept{}
			}
			for _, tag := range sortedKeys(concepts) {
				c := concepts[tag]
				oc := out.Facts[tax][tag]
				if oc.Label == "" {
					oc.Label = c.Label
				}
				if oc.Units == nil {
					oc.Units = map[string][]Fact{}
				}
				for _, unit := range sortedKeys(c.Units) {
					for _, f := range c.Units[unit] {
						k := tax + "|" + tag + "|" + unit + "|" + f.Accn + "|" + f.Start + "|" + f.End + "|" + f.Class
						if seen[k] {
							continue
						}
						seen[k] = true
						oc.Units[unit] = append(oc.Units[unit], f)
					}
				}
				out.Facts[tax][tag] = oc
			}
		}
	}
	if out.CIK == "" {
		return CompanyFacts{}, fmt.Errorf("merge facts: no reading with a cik")
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
