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
