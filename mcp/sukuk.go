package mcp

import (
	"context"
	"fmt"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/sukuk"
)

func (d Deps) sukukTools() []tool {
	return []tool{newTool("screen_sukuk", "Sukuk with AAOIFI dispositions before and after Standard 62 (draft): by isin, by issuer_lei, or a search (issuer, country, structure, currency, maturity_from, maturity_to).",
		lookup, objectOut("instruments"), d.screenSukuk)}
}

type sukukArgs struct {
	ISIN         string `json:"isin"`
	IssuerLEI    string `json:"issuer_lei"`
	Issuer       string `json:"issuer"`
	Country      string `json:"country"`
	Structure    string `json:"structure" schema:"enum=ijarah|murabaha|wakala|mudarabah|musharakah|asset-backed|hybrid"`
	Currency     string `json:"currency"`
	MaturityFrom string `json:"maturity_from"`
	MaturityTo   string `json:"maturity_to"`
	Limit        int    `json:"limit" schema:"minimum=1,maximum=500,default=100"`
}

func (d Deps) screenSukuk(ctx context.Context, in sukukArgs) (any, string, error) {
	find := d.searchSukuk
	if in.ISIN != "" {
		find = d.sukukByISIN
	}
	list, err := find(ctx, in)
	if err != nil {
		return nil, "", err
	}
	out := []sukuk.View{}
	var lines []string
	for _, s := range list {
		v := d.SukukRules.View(s)
		out = append(out, v)
		lines = append(lines, fmt.Sprintf("%s %s (%s): %s before Standard 62, %s under the draft", s.ISIN, s.Name, s.Structure, v.Pre62.Status, v.Post62.Status))
	}
	return map[string]any{"instruments": out, "total": len(out)}, strings.Join(lines, "\n"), nil
}

func (d Deps) sukukByISIN(ctx context.Context, in sukukArgs) ([]sukuk.Sukuk, error) {
	isin, ok := sukuk.NormalizeISIN(in.ISIN)
	if !ok {
		return nil, invalid("not an ISIN (check digit)", "isin")
	}
	s, found, err := d.SukukStore.Sukuk(ctx, isin)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, shariah.Errorf(shariah.ENOTFOUND, "No sukuk with ISIN %s in the database.", isin)
	}
	return []sukuk.Sukuk{s}, nil
}

func (d Deps) searchSukuk(ctx context.Context, in sukukArgs) ([]sukuk.Sukuk, error) {
	all, err := d.SukukStore.AllSukuk(ctx)
	if err != nil {
		return nil, err
	}
	if in.IssuerLEI != "" {
		lei, ok := sukuk.NormalizeLEI(in.IssuerLEI)
		if !ok {
			return nil, invalid("not an LEI (check digits)", "issuer_lei")
		}
		var mine []sukuk.Sukuk
		for _, s := range all {
			if s.IssuerLEI == lei {
				mine = append(mine, s)
			}
		}
		all = mine
	}
	q := sukuk.Query{Issuer: in.Issuer, Country: in.Country, Structure: in.Structure, Currency: in.Currency,
		MaturityFrom: in.MaturityFrom, MaturityTo: in.MaturityTo, Limit: in.Limit}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	list, _ := sukuk.Search(all, q)
	return list, nil
}
