package datapack

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/sukuk"
)

// SukukHeader is the columns of a sukuk file (sukuk.csv in a data pack): every attribute of
// sukuk.Sukuk; an empty cell is unknown.
var SukukHeader = []string{"isin", "name", "issuer", "issuer_lei", "country", "structure", "documentation_basis", "currency",
	"issue_date", "maturity_date", "coupon_rate", "return_type", "title_type", "purchase_undertaking", "guarantee",
	"tangible_asset_ratio", "amount", "listing", "source", "illustrative"}

// ReadSukuk reads a sukuk file (sukuk.csv). A row that does not validate is reported with its line and
// skipped whole; a file without the isin column or with broken quoting is an error.
func ReadSukuk(r io.Reader) ([]sukuk.Sukuk, []Problem, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("sukuk file: no header: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	if _, ok := col["isin"]; !ok {
		return nil, nil, errors.New("sukuk file: no isin column")
	}
	var out []sukuk.Sukuk
	var problems []Problem
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("sukuk file: %w", err)
		}
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		num := func(name string) (*shariah.Number, error) {
			v := get(name)
			if v == "" {
				return nil, nil
			}
			d, err := decimal.NewFromString(v)
			if err != nil {
				return nil, fmt.Errorf("%s %q is not a number", name, v)
			}
			n := shariah.NewNumber(d)
			return &n, nil
		}
		s := sukuk.Sukuk{ISIN: strings.ToUpper(get("isin")), Name: get("name"), Issuer: get("issuer"), IssuerLEI: strings.ToUpper(get("issuer_lei")),
			Country: get("country"), Structure: strings.ToLower(get("structure")), DocumentationBasis: get("documentation_basis"),
			Currency: strings.ToUpper(get("currency")), IssueDate: get("issue_date"), MaturityDate: get("maturity_date"),
			ReturnType: strings.ToLower(get("return_type")), TitleType: strings.ToLower(get("title_type")),
			PurchaseUndertaking: strings.ToLower(get("purchase_undertaking")), Listing: get("listing"), Source: get("source"),
			Illustrative: strings.EqualFold(get("illustrative"), "true")}
		var bad []string
		for _, f := range []struct {
			name string
			dst  **shariah.Number
		}{{"coupon_rate", &s.CouponRate}, {"tangible_asset_ratio", &s.TangibleAssetRatio}, {"amount", &s.Amount}} {
			n, err := num(f.name)
			if err != nil {
				bad = append(bad, err.Error())
			}
			*f.dst = n
		}
		switch g := strings.ToLower(get("guarantee")); g {
		case "":
		case "true", "false":
			v := g == "true"
			s.Guarantee = &v
		default:
			bad = append(bad, fmt.Sprintf("guarantee %q is not true or false", g))
		}
		if err := s.Validate(); err != nil {
			bad = append(bad, validationText(err))
		}
		if len(bad) > 0 {
			problems = append(problems, Problem{File: "sukuk.csv", Line: line, Msg: strings.Join(bad, "; ")})
			continue
		}
		out = append(out, s)
	}
	return out, problems, nil
}

// validationText flattens a validation error for a row problem.
func validationText(err error) string {
	var de *shariah.Error
	if errors.As(err, &de) {
		if d, ok := de.Detail.(map[string]any); ok {
			if list, ok := d["errors"].([]shariah.FieldError); ok {
				var parts []string
				for _, fe := range list {
					parts = append(parts, fmt.Sprintf("%v: %s", fe.Loc[len(fe.Loc)-1], fe.Msg))
				}
				return strings.Join(parts, "; ")
			}
		}
		return de.Message
	}
	return err.Error()
}

// StoreSukuk stores a pack's sukuk records (Load stores the rest of the pack).
func StoreSukuk(ctx context.Context, st sukuk.Store, p *Pack) (int, error) {
	return len(p.Sukuk), st.PutSukuk(ctx, p.Sukuk)
}
