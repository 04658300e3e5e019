// Package nport parses SEC Form N-PORT (N-PORT-P) fund-holdings XML into holdings with checked
// identifiers (ISIN, LEI), for the sukuk data ingester.
//
// N-PORT reports what a registered fund holds at a reporting date: name, identifiers, balance, value,
// share of net assets, asset and issuer category, and for debt securities the maturity, coupon kind,
// annualized rate and default status. It does not say whether a debt security is a sukuk, nor anything
// about a sukuk's structure: see SukukCandidates and ReadCurated.
package nport

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/sukuk"
)

// Holding is one invstOrSec entry of an N-PORT filing. Identifiers that fail their check digit are
// dropped to "" (and counted in Filing.Dropped); "N/A" and empty values are absent ("" / nil / zero).
type Holding struct {
	Name, Title, LEI, CUSIP, ISIN, Currency, Country, AssetCategory, IssuerCategory string

	Balance, ValueUSD, PctOfNAV decimal.Decimal // PctOfNAV is in percent (1.92 means 1.92%)
	Units                       string          // N-PORT units: PA (principal amount), NS (shares), NC (contracts), OU

	Maturity   string           // YYYY-MM-DD; "" when absent or not a date
	CouponKind string           // Fixed, Floating, Variable, None; "" when absent or unknown
	CouponRate *decimal.Decimal // annualized rate in percent (5 means 5%); nil when absent
	InDefault  *bool            // debtSec isDefault Y/N; nil when absent
	IsDebt     bool             // has a debtSec block or assetCat DBT
}

// Filing is the part of an N-PORT filing the ingester uses.
type Filing struct {
	RegistrantName, RegistrantLEI, SeriesName, SeriesID string
	// ReportDate is genInfo/repPdDate, the date as of which holdings are reported (YYYY-MM-DD), falling
	// back to repPdEnd (the end of the fund's fiscal year) only when repPdDate is absent.
	ReportDate string
	Holdings   []Holding
	// Dropped counts identifiers (ISIN, LEI, including the registrant's LEI) removed because their
	// check digits were wrong.
	Dropped int
}

// XML shapes. Tags carry no namespace, so encoding/xml matches local names in any namespace.
type xmlSubmission struct {
	XMLName xml.Name
	Header  struct {
		SubmissionType string `xml:"submissionType"`
		SeriesID       string `xml:"filerInfo>seriesClassInfo>seriesId"`
	} `xml:"headerData"`
	Form struct {
		Gen struct {
			RegName    string `xml:"regName"`
			RegLEI     string `xml:"regLei"`
			SeriesName string `xml:"seriesName"`
			SeriesID   string `xml:"seriesId"`
			RepPdEnd   string `xml:"repPdEnd"`
			RepPdDate  string `xml:"repPdDate"`
		} `xml:"genInfo"`
		Secs *struct {
			Items []xmlSec `xml:"invstOrSec"`
		} `xml:"invstOrSecs"`
	} `xml:"formData"`
}

type xmlSec struct {
	Name        string `xml:"name"`
	LEI         string `xml:"lei"`
	Title       string `xml:"title"`
	CUSIP       string `xml:"cusip"`
	Identifiers struct {
		ISIN struct {
			Value string `xml:"value,attr"`
		} `xml:"isin"`
		Other []struct {
			Desc  string `xml:"otherDesc,attr"`
			Value string `xml:"value,attr"`
		} `xml:"other"`
	} `xml:"identifiers"`
	Balance   string `xml:"balance"`
	Units     string `xml:"units"`
	CurCd     string `xml:"curCd"`
	ValUSD    string `xml:"valUSD"`
	PctVal    string `xml:"pctVal"`
	AssetCat  string `xml:"assetCat"`
	IssuerCat string `xml:"issuerCat"`
	Country   string `xml:"invCountry"`
	Debt      *struct {
		MaturityDt   string `xml:"maturityDt"`
		CouponKind   string `xml:"couponKind"`
		AnnualizedRt string `xml:"annualizedRt"`
		IsDefault    string `xml:"isDefault"`
	} `xml:"debtSec"`
}

// Parse reads an N-PORT XML document. It fails when the bytes are not well-formed XML (for example
// truncated), when the root element is not edgarSubmission, when the submission type is present and not
// an N-PORT one, or when the document has no invstOrSecs block; a malformed number is an error naming
// the holding. Missing optional elements are left empty.
func Parse(b []byte) (Filing, error) {
	var doc xmlSubmission
	if err := xml.Unmarshal(b, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Filing{}, errors.New("nport: not an XML document (no root element)")
		}
		return Filing{}, fmt.Errorf("nport: not well-formed XML (truncated or corrupt): %w", err)
	}
	if doc.XMLName.Local != "edgarSubmission" {
		return Filing{}, fmt.Errorf("nport: root element is <%s>, want <edgarSubmission>: not an N-PORT filing", doc.XMLName.Local)
	}
	if st := strings.TrimSpace(doc.Header.SubmissionType); st != "" && !strings.HasPrefix(strings.ToUpper(st), "NPORT") {
		return Filing{}, fmt.Errorf("nport: submission type %q is not N-PORT", st)
	}
	if doc.Form.Secs == nil {
		return Filing{}, errors.New("nport: no formData/invstOrSecs block: not an N-PORT holdings report")
	}
	g := doc.Form.Gen
	f := Filing{
		RegistrantName: clean(g.RegName),
		SeriesName:     clean(g.SeriesName),
		SeriesID:       firstOf(clean(g.SeriesID), clean(doc.Header.SeriesID)),
		ReportDate:     firstOf(date(g.RepPdDate), date(g.RepPdEnd)),
		Holdings:       make([]Holding, 0, len(doc.Form.Secs.Items)),
	}
	f.RegistrantLEI = f.checked(strings.ToUpper(clean(g.RegLEI)), sukuk.ValidLEI)
	for i, s := range doc.Form.Secs.Items {
		h, err := f.holding(s)
		if err != nil {
			return Filing{}, fmt.Errorf("nport: holding %d (%q): %w", i+1, clean(s.Name), err)
		}
		f.Holdings = append(f.Holdings, h)
	}
	return f, nil
}

func (f *Filing) holding(s xmlSec) (Holding, error) {
	h := Holding{
		Name:           clean(s.Name),
		Title:          clean(s.Title),
		CUSIP:          strings.ToUpper(clean(s.CUSIP)),
		Currency:       strings.ToUpper(clean(s.CurCd)),
		Country:        strings.ToUpper(clean(s.Country)),
		AssetCategory:  clean(s.AssetCat),
		IssuerCategory: clean(s.IssuerCat),
		Units:          clean(s.Units),
		IsDebt:         s.Debt != nil || strings.EqualFold(clean(s.AssetCat), "DBT"),
	}
	h.LEI = f.checked(strings.ToUpper(clean(s.LEI)), sukuk.ValidLEI)
	isin := clean(s.Identifiers.ISIN.Value)
	if isin == "" { // some filers put the ISIN in <other otherDesc="ISIN">
		for _, o := range s.Identifiers.Other {
			if strings.EqualFold(clean(o.Desc), "ISIN") {
				isin = clean(o.Value)
				break
			}
		}
	}
	h.ISIN = f.checked(strings.ToUpper(isin), shariah.ValidISIN)
	var err error
	for _, n := range []struct {
		name string
		in   string
		out  *decimal.Decimal
	}{{"balance", s.Balance, &h.Balance}, {"valUSD", s.ValUSD, &h.ValueUSD}, {"pctVal", s.PctVal, &h.PctOfNAV}} {
		if *n.out, err = num(n.in); err != nil {
			return Holding{}, fmt.Errorf("%s: %w", n.name, err)
		}
	}
	if d := s.Debt; d != nil {
		h.Maturity = date(d.MaturityDt)
		for _, k := range []string{"Fixed", "Floating", "Variable", "None"} {
			if strings.EqualFold(clean(d.CouponKind), k) {
				h.CouponKind = k
			}
		}
		if clean(d.AnnualizedRt) != "" {
			r, err := num(d.AnnualizedRt)
			if err != nil {
				return Holding{}, fmt.Errorf("annualizedRt: %w", err)
			}
			h.CouponRate = &r
		}
		switch strings.ToUpper(clean(d.IsDefault)) {
		case "Y", "YES", "TRUE":
			yes := true
			h.InDefault = &yes
		case "N", "NO", "FALSE":
			no := false
			h.InDefault = &no
		}
	}
	return h, nil
}

// SukukCandidates returns the holdings that are debt securities (a debtSec block or assetCat DBT)
// and carry a valid ISIN, in filing order.
//
// N-PORT does not say whether a debt security is a sukuk: a sukuk is reported like any other bond.
// These are only candidates; the caller joins them with the curated file of sukuk programmes (see
// ReadCurated) by ISIN, or by issuer LEI, and keeps only the matches.
func SukukCandidates(f Filing) []Holding {
	var out []Holding
	for _, h := range f.Holdings {
		if h.IsDebt && h.ISIN != "" {
			out = append(out, h)
		}
	}
	return out
}

// checked returns id when it is absent or passes valid, else "" and counts a drop.
func (f *Filing) checked(id string, valid func(string) bool) string {
	if id == "" || valid(id) {
		return id
	}
	f.Dropped++
	return ""
}

// clean trims a value and treats "N/A" (any case) as absent.
func clean(s string) string {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "N/A") {
		return ""
	}
	return s
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// date returns s when it is a YYYY-MM-DD date, else "".
func date(s string) string {
	s = clean(s)
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return ""
	}
	return s
}

// num parses an optional decimal: absent is zero, malformed is an error.
func num(s string) (decimal.Decimal, error) {
	s = clean(s)
	if s == "" {
		return decimal.Zero, nil
	}
	return decimal.NewFromString(s)
}
