package shariah

import (
	"strings"
)

// AssetType is the kind of a reference record.
type AssetType string

// Asset types of the reference database.
const (
	Equity AssetType = "equity"
	ETF    AssetType = "etf"
	Fund   AssetType = "fund"
	Index  AssetType = "index"
)

// ParseAssetType accepts the singular and plural forms used by clients (equity/equities, etf/etfs, ...).
func ParseAssetType(s string) (AssetType, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "equity", "equities", "stock", "stocks":
		return Equity, true
	case "etf", "etfs":
		return ETF, true
	case "fund", "funds":
		return Fund, true
	case "index", "indices", "indexes":
		return Index, true
	}
	return "", false
}

// Asset is a record of the reference database. Empty strings are unknown values.
type Asset struct {
	Symbol   string    `json:"symbol"` // canonical (Yahoo-style: BRK-B, 0700.HK, 7203.T, ^GSPC)
	Name     string    `json:"name"`
	Type     AssetType `json:"asset_type"`
	Exchange string    `json:"exchange"`
	Country  string    `json:"country"`
	Currency string    `json:"currency"`
	Sector   string    `json:"sector"`
	Industry string    `json:"industry"`
	SIC      string    `json:"sic"`
	// SICDescription is EDGAR's name of the SIC code (sicDescription of the submissions); SICSource names
	// where the code came from. IndustrySource names the data set and scheme of Sector and Industry
	// (e.g. "S&P 500 constituents (GICS sub-industry)"). The business screen names them (Classify).
	SICDescription string `json:"sic_description,omitempty"`
	SICSource      string `json:"sic_source,omitempty"`
	IndustrySource string `json:"industry_source,omitempty"`
	CIK            string `json:"cik"`
	ISIN           string `json:"isin"`
	// Source names the data set the record came from (e.g. "default-pack", "sp500-constituents").
	Source string `json:"source"`
}

// Merge fills the empty fields of a from b (a wins where both know a value). Readers of several
// sources describe one company; the most specific source is merged first.
func (a Asset) Merge(b Asset) Asset {
	fill := func(dst *string, src string) {
		if *dst == "" {
			*dst = src
		}
	}
	fill(&a.Name, b.Name)
	if a.Type == "" {
		a.Type = b.Type
	}
	fill(&a.Exchange, b.Exchange)
	fill(&a.Country, b.Country)
	fill(&a.Currency, b.Currency)
	// A classification travels with its description and source: the code (or industry) of one
	// source is never described by another's words.
	fill(&a.Sector, b.Sector)
	if a.Industry == "" {
		a.Industry, a.IndustrySource = b.Industry, b.IndustrySource
	}
	if a.SIC == "" {
		a.SIC, a.SICDescription, a.SICSource = b.SIC, b.SICDescription, b.SICSource
	}
	fill(&a.CIK, b.CIK)
	fill(&a.ISIN, b.ISIN)
	fill(&a.Source, b.Source)
	return a
}

// MaxSymbolLen bounds a symbol; longer input is not a symbol.
const MaxSymbolLen = 20

// NormalizeSymbol trims and upper-cases s and reports whether the result is a plausible symbol
// (letters, digits, '.', '-', '=', '&', an optional leading '^' for indices; at most 20 characters).
// Anything else never reaches a store.
func NormalizeSymbol(s string) (string, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if !symbolShaped(s) {
		return "", false
	}
	return s, true
}

// symbolShaped is ^\^?[A-Z0-9][A-Z0-9.\-=&]{0,19}$ without a regexp: it runs on every symbol route.
func symbolShaped(s string) bool {
	if len(s) > 0 && s[0] == '^' {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > MaxSymbolLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '-' || c == '=' || c == '&'):
		default:
			return false
		}
	}
	return true
}

// ValidISIN checks an ISIN's shape and its check digit (ISO 6166: letters to numbers, then Luhn).
func ValidISIN(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := 0; i < 2; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	var digits []byte
	for i := 0; i < 11; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c-'0')
		case c >= 'A' && c <= 'Z':
			v := int(c-'A') + 10
			digits = append(digits, byte(v/10), byte(v%10))
		default:
			return false
		}
	}
	if s[11] < '0' || s[11] > '9' {
		return false
	}
	sum := 0
	double := true // from the rightmost digit of the payload
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i])
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return (10-sum%10)%10 == int(s[11]-'0')
}
