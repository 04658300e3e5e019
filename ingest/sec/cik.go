package sec

import (
	"fmt"
	"strings"
)

// CIK is an SEC Central Index Key zero-padded to 10 digits ("0000320193"). Companyfacts writes it as
// a JSON number and submissions as a string; both decode to the same padded form so records from the
// two files (and from company_tickers.json) join on it, and it matches the CIK in EDGAR's URLs.
type CIK string

// UnmarshalJSON accepts a JSON number or a string of digits.
func (c *CIK) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	if s == "null" || s == "" {
		*c = ""
		return nil
	}
	p, err := PadCIK(s)
	if err != nil {
		return err
	}
	*c = CIK(p)
	return nil
}

// PadCIK zero-pads a CIK of up to 10 digits to 10 digits, the form EDGAR uses in file names and URLs
// (CIK0000320193.json). It rejects anything but digits so a malformed CIK never builds a URL.
func PadCIK(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 10 {
		return "", fmt.Errorf("cik %q: want 1 to 10 digits", s)
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return "", fmt.Errorf("cik %q: want digits only", s)
		}
	}
	return strings.Repeat("0", 10-len(s)) + s, nil
}

// ---------------------------------------------------------------------------------------------------
// companyfacts
