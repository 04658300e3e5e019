package nport

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/sukuk"
)

// CuratedHeader is the column set of a curated sukuk-programme file, in the canonical order. Columns
// may come in any order, but all must be present and no others.
var CuratedHeader = []string{"isin", "issuer_lei", "structure", "documentation_basis", "title_type",
	"purchase_undertaking", "guarantee", "tangible_asset_ratio", "return_type", "source", "illustrative"}

// Programme is one row of a curated sukuk-programme file: the facts N-PORT does not carry, authored
// per programme from its offering documents, keyed by ISIN (and issuer LEI when known).
type Programme struct {
	ISIN      string // required, valid ISO 6166
	IssuerLEI string // optional; valid ISO 17442 when present
	// Structure: ijarah, murabaha, wakala, mudarabah, musharakah, asset-backed, hybrid.
	Structure          string
	DocumentationBasis string // free text, e.g. the Shariah standard or fatwa the documents cite
	TitleType          string // legal or beneficial (title to the underlying assets)
	// PurchaseUndertaking: none, par or market (the price at which the obligor repurchases the assets).
	PurchaseUndertaking string
	Guarantee           *bool            // nil when the column is empty (unknown)
	TangibleAssetRatio  *decimal.Decimal // 0..1; nil when empty (unknown)
	ReturnType          string           // fixed, variable, profit-sharing, or "" (unknown)
	Source              string           // required: where the facts come from (document, URL)
	Illustrative        bool             // true when the row is an example, not a checked programme
	Line                int              // line of the row in the file, for provenance
}

var (
	structures   = []string{"ijarah", "murabaha", "wakala", "mudarabah", "musharakah", "asset-backed", "hybrid"}
	titleTypes   = []string{"legal", "beneficial"}
	undertakings = []string{"none", "par", "market"}
	returnTypes  = []string{"fixed", "variable", "profit-sharing"}
)

// ReadCurated reads a curated sukuk-programme CSV (header CuratedHeader; lines starting with # are
// comments). A row that breaks a rule is skipped whole and reported as "line N: ..."; a duplicate ISIN
// keeps the first row. The error is for the file itself: empty, a wrong header, or broken CSV quoting
// (after which row boundaries cannot be trusted, so nothing is returned).
func ReadCurated(r io.Reader) ([]Programme, []string, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, errors.New("curated: empty file, no header")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("curated: header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if !slices.Contains(CuratedHeader, h) {
			return nil, nil, fmt.Errorf("curated: header: unknown column %q", h)
		}
		if _, dup := col[h]; dup {
			return nil, nil, fmt.Errorf("curated: header: column %q twice", h)
		}
		col[h] = i
	}
	for _, h := range CuratedHeader {
		if _, ok := col[h]; !ok {
			return nil, nil, fmt.Errorf("curated: header: missing column %q", h)
		}
	}
	cr.FieldsPerRecord = len(header)

	var out []Programme
	var problems []string
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
			problems = append(problems, fmt.Sprintf("line %d: %d fields, want %d", pe.StartLine, len(rec), len(header)))
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("curated: %w", err)
		}
		line, _ := cr.FieldPos(0)
		get := func(name string) string { return strings.TrimSpace(rec[col[name]]) }
		p, err := programme(get)
		if err == nil {
			if first, dup := seen[p.ISIN]; dup {
				err = fmt.Errorf("isin %s already on line %d", p.ISIN, first)
			}
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("line %d: %v", line, err))
			continue
		}
		p.Line = line
		seen[p.ISIN] = line
		out = append(out, p)
	}
	return out, problems, nil
}

func programme(get func(string) string) (Programme, error) {
	p := Programme{
		ISIN:                strings.ToUpper(get("isin")),
		IssuerLEI:           strings.ToUpper(get("issuer_lei")),
		Structure:           strings.ToLower(get("structure")),
		DocumentationBasis:  get("documentation_basis"),
		TitleType:           strings.ToLower(get("title_type")),
		PurchaseUndertaking: strings.ToLower(get("purchase_undertaking")),
		ReturnType:          strings.ToLower(get("return_type")),
		Source:              get("source"),
	}
	switch {
	case !shariah.ValidISIN(p.ISIN):
		return p, fmt.Errorf("isin %q is not a valid ISIN", p.ISIN)
	case p.IssuerLEI != "" && !sukuk.ValidLEI(p.IssuerLEI):
		return p, fmt.Errorf("issuer_lei %q is not a valid LEI", p.IssuerLEI)
	case !slices.Contains(structures, p.Structure):
		return p, fmt.Errorf("structure %q not one of %s", p.Structure, strings.Join(structures, "|"))
	case !slices.Contains(titleTypes, p.TitleType):
		return p, fmt.Errorf("title_type %q not one of %s", p.TitleType, strings.Join(titleTypes, "|"))
	case !slices.Contains(undertakings, p.PurchaseUndertaking):
		return p, fmt.Errorf("purchase_undertaking %q not one of %s", p.PurchaseUndertaking, strings.Join(undertakings, "|"))
	case p.ReturnType != "" && !slices.Contains(returnTypes, p.ReturnType):
		return p, fmt.Errorf("return_type %q not one of %s or empty", p.ReturnType, strings.Join(returnTypes, "|"))
	case p.Source == "":
		return p, errors.New("source is empty")
	}
	switch g := strings.ToLower(get("guarantee")); g {
	case "":
	case "true", "false":
		b := g == "true"
		p.Guarantee = &b
	default:
		return p, fmt.Errorf("guarantee %q not true, false or empty", g)
	}
	if s := get("tangible_asset_ratio"); s != "" {
		d, err := decimal.NewFromString(s)
		if err != nil || d.IsNegative() || d.GreaterThan(decimal.NewFromInt(1)) {
			return p, fmt.Errorf("tangible_asset_ratio %q not a number in 0..1", s)
		}
		p.TangibleAssetRatio = &d
	}
	switch il := strings.ToLower(get("illustrative")); il {
	case "true", "false":
		p.Illustrative = il == "true"
	default:
		return p, fmt.Errorf("illustrative %q not true or false", il)
	}
	return p, nil
}
