// Package sukuk holds sukuk: instruments identified by ISIN, issuers by LEI, searchable by issuer,
// country, structure, documentation basis, currency and maturity. Their AAOIFI disposition before and
// after Standard 62 (draft) comes from the rules files in rules/sukuk/ (rules.go); a portfolio's sukuk
// sleeve is measured in impact.go. It imports the kernel (the root package) only.
package sukuk

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// Sukuk structures.
const (
	Ijarah      = "ijarah"
	Murabaha    = "murabaha"
	Wakala      = "wakala"
	Mudarabah   = "mudarabah"
	Musharakah  = "musharakah"
	AssetBacked = "asset-backed"
	Hybrid      = "hybrid"
)

// Structures lists every structure.
var Structures = []string{Ijarah, Murabaha, Wakala, Mudarabah, Musharakah,
	AssetBacked, Hybrid}

// Return types, title types and purchase undertakings of a sukuk.
const (
	ReturnFixed         = "fixed"
	ReturnVariable      = "variable"
	ReturnProfitSharing = "profit-sharing"
	TitleLegal          = "legal"
	TitleBeneficial     = "beneficial"
	UndertakingNone     = "none"
	UndertakingPar      = "par"    // purchase undertaking at face value
	UndertakingMarket   = "market" // purchase undertaking at market value
)

// ReturnTypes, TitleTypes and Undertakings list the values of those attributes.
var (
	ReturnTypes  = []string{ReturnFixed, ReturnVariable, ReturnProfitSharing}
	TitleTypes   = []string{TitleLegal, TitleBeneficial}
	Undertakings = []string{UndertakingNone, UndertakingPar, UndertakingMarket}
)

// MaxLimit and DefaultLimit bound a page of /api/sukuk/search.
const (
	MaxLimit     = 500
	DefaultLimit = 100
)

// Sukuk is one instrument. An empty string or a nil pointer means unknown: never guessed.
type Sukuk struct {
	ISIN                string          `json:"isin"`
	Name                string          `json:"name,omitempty"`
	Issuer              string          `json:"issuer,omitempty"`
	IssuerLEI           string          `json:"issuer_lei,omitempty"`
	Country             string          `json:"country,omitempty"`
	Structure           string          `json:"structure,omitempty"`           // ijarah, murabaha, wakala, mudarabah, musharakah, asset-backed, hybrid
	DocumentationBasis  string          `json:"documentation_basis,omitempty"` // free text: AAOIFI, IIFM, local, ...
	Currency            string          `json:"currency,omitempty"`
	IssueDate           string          `json:"issue_date,omitempty"`    // YYYY-MM-DD
	MaturityDate        string          `json:"maturity_date,omitempty"` // YYYY-MM-DD
	CouponRate          *shariah.Number `json:"coupon_rate,omitempty"`   // percent
	ReturnType          string          `json:"return_type,omitempty"`   // fixed, variable, profit-sharing
	TitleType           string          `json:"title_type,omitempty"`    // legal, beneficial
	PurchaseUndertaking string          `json:"purchase_undertaking,omitempty"`
	Guarantee           *bool           `json:"guarantee,omitempty"`
	TangibleAssetRatio  *shariah.Number `json:"tangible_asset_ratio,omitempty"` // fraction 0..1
	Amount              *shariah.Number `json:"amount,omitempty"`               // issue size, in currency units
	Listing             string          `json:"listing,omitempty"`
	Source              string          `json:"source,omitempty"` // where the record came from
	Illustrative        bool            `json:"illustrative"`
}

// Store keeps sukuk records by ISIN.
type Store interface {
	PutSukuk(ctx context.Context, s []Sukuk) error
	Sukuk(ctx context.Context, isin string) (Sukuk, bool, error)
	AllSukuk(ctx context.Context) ([]Sukuk, error)
}

// NormalizeISIN trims and upper-cases s and reports whether it is a valid ISIN (ValidISIN, asset.go:
// ISO 6166, two letters, nine letters or digits, a Luhn check digit over letters read as A=10 .. Z=35).
func NormalizeISIN(s string) (string, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	return s, shariah.ValidISIN(s)
}

// NormalizeLEI trims and upper-cases s and reports whether it is a valid LEI.
func NormalizeLEI(s string) (string, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	return s, ValidLEI(s)
}

// ValidLEI reports whether s is an LEI (ISO 17442): 20 upper-case letters or digits whose last two are
// digits, with the whole string, letters read as A=10 .. Z=35, equal to 1 mod 97 (ISO 7064 MOD 97-10).
func ValidLEI(s string) bool {
	if len(s) != 20 || !sukukDigit(s[18]) || !sukukDigit(s[19]) {
		return false
	}
	rem := 0
	for i := 0; i < 20; i++ {
		c := s[i]
		switch {
		case sukukDigit(c):
			rem = (rem*10 + int(c-'0')) % 97
		case sukukUpper(c):
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

func sukukDigit(c byte) bool { return c >= '0' && c <= '9' }
func sukukUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func sukukOneOf(v string, vals []string) bool {
	for _, x := range vals {
		if v == x {
			return true
		}
	}
	return false
}

func sukukDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// Validate checks a record being loaded and normalizes it: ISIN (required, the record's key) and issuer
// LEI upper-cased with valid check digits, currency a 3-letter code, enums lower-cased and known, dates
// YYYY-MM-DD with maturity not before issue, coupon and amount not negative, tangible-asset ratio 0..1.
// Every problem is reported at once.
func (s *Sukuk) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	var ok bool
	if s.ISIN, ok = NormalizeISIN(s.ISIN); !ok {
		bad("isin %q is not a valid ISIN", s.ISIN)
	}
	if s.IssuerLEI = strings.TrimSpace(s.IssuerLEI); s.IssuerLEI != "" {
		if s.IssuerLEI, ok = NormalizeLEI(s.IssuerLEI); !ok {
			bad("issuer_lei %q is not a valid LEI", s.IssuerLEI)
		}
	}
	s.Name, s.Issuer, s.Country = strings.TrimSpace(s.Name), strings.TrimSpace(s.Issuer), strings.TrimSpace(s.Country)
	s.DocumentationBasis, s.Listing, s.Source = strings.TrimSpace(s.DocumentationBasis), strings.TrimSpace(s.Listing), strings.TrimSpace(s.Source)
	if s.Currency = strings.ToUpper(strings.TrimSpace(s.Currency)); s.Currency != "" &&
		(len(s.Currency) != 3 || !sukukUpper(s.Currency[0]) || !sukukUpper(s.Currency[1]) || !sukukUpper(s.Currency[2])) {
		bad("currency %q is not a 3-letter code", s.Currency)
	}
	for _, e := range []struct {
		name string
		v    *string
		vals []string
	}{
		{"structure", &s.Structure, Structures},
		{"return_type", &s.ReturnType, ReturnTypes},
		{"title_type", &s.TitleType, TitleTypes},
		{"purchase_undertaking", &s.PurchaseUndertaking, Undertakings},
	} {
		*e.v = strings.ToLower(strings.TrimSpace(*e.v))
		if *e.v != "" && !sukukOneOf(*e.v, e.vals) {
			bad("%s %q is not one of %s", e.name, *e.v, strings.Join(e.vals, ", "))
		}
	}
	s.IssueDate, s.MaturityDate = strings.TrimSpace(s.IssueDate), strings.TrimSpace(s.MaturityDate)
	if s.IssueDate != "" && !sukukDate(s.IssueDate) {
		bad("issue_date %q is not YYYY-MM-DD", s.IssueDate)
	}
	if s.MaturityDate != "" && !sukukDate(s.MaturityDate) {
		bad("maturity_date %q is not YYYY-MM-DD", s.MaturityDate)
	}
	if sukukDate(s.IssueDate) && sukukDate(s.MaturityDate) && s.MaturityDate < s.IssueDate {
		bad("maturity_date %s is before issue_date %s", s.MaturityDate, s.IssueDate)
	}
	if s.CouponRate != nil && s.CouponRate.IsNegative() {
		bad("coupon_rate %s is negative", s.CouponRate.String())
	}
	if s.Amount != nil && s.Amount.IsNegative() {
		bad("amount %s is negative", s.Amount.String())
	}
	if r := s.TangibleAssetRatio; r != nil && (r.IsNegative() || r.GreaterThan(decimal.NewFromInt(1))) {
		bad("tangible_asset_ratio %s is not a fraction between 0 and 1", r.String())
	}
	if len(errs) > 0 {
		return fmt.Errorf("sukuk %s: %w", s.ISIN, errors.Join(errs...))
	}
	return nil
}

// Query is a search of /api/sukuk/search. Empty fields do not filter.
type Query struct {
	Issuer             string // case-insensitive substring of the issuer name
	Country            string // the others: case-insensitive equality
	Structure          string
	DocumentationBasis string
	Currency           string
	MaturityFrom       string // YYYY-MM-DD, inclusive
	MaturityTo         string // YYYY-MM-DD, inclusive
	Limit              int    // 1..500; 0 means the default 100
	Offset             int
}

// Validate trims the query, fills the default limit and reports every problem at once (VALIDATION_ERROR,
// loc ["query", name]).
func (q *Query) Validate() error {
	var v shariah.Validation
	q.Issuer, q.Country, q.DocumentationBasis = strings.TrimSpace(q.Issuer), strings.TrimSpace(q.Country), strings.TrimSpace(q.DocumentationBasis)
	q.Currency, q.MaturityFrom, q.MaturityTo = strings.TrimSpace(q.Currency), strings.TrimSpace(q.MaturityFrom), strings.TrimSpace(q.MaturityTo)
	if q.Structure = strings.ToLower(strings.TrimSpace(q.Structure)); q.Structure != "" && !sukukOneOf(q.Structure, Structures) {
		v.Add("must be one of: "+strings.Join(Structures, ", "), "value_error.enum", "query", "structure")
	}
	if q.MaturityFrom != "" && !sukukDate(q.MaturityFrom) {
		v.Add("must be a date YYYY-MM-DD", "value_error.date", "query", "maturity_from")
	}
	if q.MaturityTo != "" && !sukukDate(q.MaturityTo) {
		v.Add("must be a date YYYY-MM-DD", "value_error.date", "query", "maturity_to")
	}
	if sukukDate(q.MaturityFrom) && sukukDate(q.MaturityTo) && q.MaturityTo < q.MaturityFrom {
		v.Add("must not be before maturity_from", "value_error.date_range", "query", "maturity_to")
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultLimit
	case q.Limit < 1:
		v.Add("must be at least 1", "value_error.number.not_ge", "query", "limit")
	case q.Limit > MaxLimit:
		v.Add(fmt.Sprintf("must be at most %d", MaxLimit), "value_error.number.not_le", "query", "limit")
	}
	if q.Offset < 0 {
		v.Add("must be zero or more", "value_error.number.not_ge", "query", "offset")
	}
	return v.Err()
}

// Search filters all by q, sorts by maturity (unknown last) then ISIN, and returns the page
// [Offset, Offset+Limit) and the number of matches before paging. A maturity bound excludes instruments
// whose maturity is unknown. Limit 0 means the default.
func Search(all []Sukuk, q Query) ([]Sukuk, int) {
	issuer := strings.ToLower(strings.TrimSpace(q.Issuer))
	eq := func(filter, v string) bool {
		filter = strings.TrimSpace(filter)
		return filter == "" || strings.EqualFold(filter, strings.TrimSpace(v))
	}
	var out []Sukuk
	for _, s := range all {
		if issuer != "" && !strings.Contains(strings.ToLower(s.Issuer), issuer) {
			continue
		}
		if !eq(q.Country, s.Country) || !eq(q.Structure, s.Structure) || !eq(q.DocumentationBasis, s.DocumentationBasis) ||
			!eq(q.Currency, s.Currency) {
			continue
		}
		if (q.MaturityFrom != "" || q.MaturityTo != "") && s.MaturityDate == "" {
			continue
		}
		if q.MaturityFrom != "" && s.MaturityDate < q.MaturityFrom || q.MaturityTo != "" && s.MaturityDate > q.MaturityTo {
			continue
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.MaturityDate != b.MaturityDate {
			if a.MaturityDate == "" || b.MaturityDate == "" {
				return b.MaturityDate == ""
			}
			return a.MaturityDate < b.MaturityDate
		}
		return a.ISIN < b.ISIN
	})
	total := len(out)
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	lo := min(max(q.Offset, 0), total)
	hi := min(lo+limit, total)
	return append([]Sukuk{}, out[lo:hi]...), total
}
