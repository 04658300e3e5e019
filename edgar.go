package shariah

import (
	"fmt"
	"strings"
)

// EDGARFilingURL is the address of a document of a filing in the SEC's EDGAR archive: the filer's CIK
// (as given, leading zeros or not), the accession number (dashes dropped) and the document's name; with
// no document, the filing's folder.
func EDGARFilingURL(cik, accession, document string) string {
	return fmt.Sprintf("https://www.sec.gov/Archives/edgar/data/%s/%s/%s", cik, strings.ReplaceAll(accession, "-", ""), document)
}

// IsAccession reports whether s is an SEC accession number (0000320193-24-000123: the filer agent's
// CIK, the year, a sequence).
func IsAccession(s string) bool {
	if len(s) != 20 || s[10] != '-' || s[13] != '-' {
		return false
	}
	for i, r := range s {
		if i != 10 && i != 13 && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
