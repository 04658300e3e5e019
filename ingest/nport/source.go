package nport

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/sukuk"
)

// Source is the sukuk ingester: it reads the curated programme file, fetches each configured N-PORT
// filing, and stores as sukuk the debt holdings whose ISIN is a curated programme: identifiers,
// currency, country, maturity and coupon from the filing; structure and the Standard 62 attributes from
// the programme. N-PORT alone cannot tell a sukuk from a bond, so nothing outside the curated file is
// stored. A filing that does not parse fails the run for that filing and changes nothing stored.
type Source struct {
	HTTP    *httpx.Client
	Filings []string // N-PORT XML URLs (https or file)
	Curated string   // URL of the curated programme CSV (https or file)
	Store   sukuk.Store
}

// Run ingests; it returns how many instruments were stored.
func (s *Source) Run(ctx context.Context) (int, error) {
	if s.Curated == "" || len(s.Filings) == 0 {
		return 0, nil
	}
	r, err := s.HTTP.Get(ctx, s.Curated)
	if err != nil {
		return 0, fmt.Errorf("curated file: %w", err)
	}
	progs, problems, err := ReadCurated(bytes.NewReader(r.Body))
	if err != nil {
		return 0, fmt.Errorf("curated file: %w", err)
	}
	byISIN := map[string]Programme{}
	for _, p := range progs {
		byISIN[p.ISIN] = p
	}
	stored := 0
	var errs []string
	for _, u := range s.Filings {
		doc, err := s.HTTP.Get(ctx, u)
		if err != nil {
			errs = append(errs, u+": "+err.Error())
			continue
		}
		f, err := Parse(doc.Body)
		if err != nil {
			errs = append(errs, u+": "+err.Error())
			continue
		}
		var list []sukuk.Sukuk
		for _, h := range SukukCandidates(f) {
			p, ok := byISIN[h.ISIN]
			if !ok {
				continue
			}
			list = append(list, Instrument(h, p, f))
		}
		if err := s.Store.PutSukuk(ctx, list); err != nil {
			return stored, err
		}
		stored += len(list)
	}
	if len(errs) > 0 {
		return stored, fmt.Errorf("%d of %d filings failed: %s", len(errs), len(s.Filings), strings.Join(errs, "; "))
	}
	if len(problems) > 0 && stored == 0 {
		return 0, fmt.Errorf("curated file: %s", strings.Join(problems, "; "))
	}
	return stored, nil
}

// Instrument joins a filing's holding with its curated programme.
func Instrument(h Holding, p Programme, f Filing) sukuk.Sukuk {
	s := sukuk.Sukuk{ISIN: h.ISIN, Name: firstOf(h.Title, h.Name), Issuer: h.Name, IssuerLEI: firstOf(h.LEI, p.IssuerLEI),
		Country: h.Country, Structure: p.Structure, DocumentationBasis: p.DocumentationBasis, Currency: h.Currency,
		MaturityDate: h.Maturity, TitleType: p.TitleType, PurchaseUndertaking: p.PurchaseUndertaking, Guarantee: p.Guarantee,
		ReturnType: p.ReturnType, Illustrative: p.Illustrative,
		Source: fmt.Sprintf("SEC N-PORT %s (%s, as of %s); structure: %s", f.SeriesName, f.RegistrantName, f.ReportDate, p.Source)}
	if s.ReturnType == "" {
		switch h.CouponKind {
		case "Fixed":
			s.ReturnType = "fixed"
		case "Floating", "Variable":
			s.ReturnType = "variable"
		}
	}
	if h.CouponRate != nil {
		n := shariah.NewNumber(*h.CouponRate)
		s.CouponRate = &n
	}
	if p.TangibleAssetRatio != nil {
		n := shariah.NewNumber(*p.TangibleAssetRatio)
		s.TangibleAssetRatio = &n
	}
	return s
}
