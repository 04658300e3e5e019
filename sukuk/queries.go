package sukuk

import "context"

// OfIssuer is the sukuk of all issued by the issuer with the LEI (normalised, NormalizeLEI), in
// the order of all.
func OfIssuer(all []Sukuk, lei string) []Sukuk {
	var mine []Sukuk
	for _, s := range all {
		if s.IssuerLEI == lei {
			mine = append(mine, s)
		}
	}
	return mine
}

// Views disposes each sukuk under the rules (View), in order; never nil.
func (r *Rules) Views(list []Sukuk) []View {
	out := make([]View, 0, len(list))
	for _, s := range list {
		out = append(out, r.View(s))
	}
	return out
}

// ImpactFromStore is PortfolioImpact with each holding's sukuk read from store (each ISIN once); a
// holding whose ISIN the store does not hold is listed in NotFound.
func (r *Rules) ImpactFromStore(ctx context.Context, store Store, holdings []Holding) (Impact, error) {
	lookup := map[string]Sukuk{}
	for _, h := range holdings {
		if _, done := lookup[h.ISIN]; done {
			continue
		}
		s, ok, err := store.Sukuk(ctx, h.ISIN)
		if err != nil {
			return Impact{}, err
		}
		if ok {
			lookup[h.ISIN] = s
		}
	}
	return r.PortfolioImpact(holdings, lookup), nil
}
