package sukuk

import (
	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// MaxHoldings bounds the holdings of one portfolio-impact request (more is a 422); values are
// bounded by MaxAmount and MaxInputPlaces.
const MaxHoldings = 200

// Holding is one position of a sukuk sleeve: its nominal or its market value (exactly one).
type Holding struct {
	ISIN        string          `json:"isin"`
	Nominal     *shariah.Number `json:"nominal,omitempty"`      // at most MaxAmount
	MarketValue *shariah.Number `json:"market_value,omitempty"` // at most MaxAmount
}

// Value is the market value when given, else the nominal (zero when neither).
func (h Holding) Value() decimal.Decimal {
	switch {
	case h.MarketValue != nil:
		return h.MarketValue.Decimal
	case h.Nominal != nil:
		return h.Nominal.Decimal
	}
	return decimal.Zero
}

// ImpactRequest is the body of POST /api/sukuk/portfolio-impact.
type ImpactRequest struct {
	Holdings []Holding `json:"holdings"`
}

// Validate normalizes the ISINs and reports every problem at once (VALIDATION_ERROR, loc ["body", ...]).
func (r *ImpactRequest) Validate() error {
	var v shariah.Validation
	v.Items(len(r.Holdings), 1, MaxHoldings, "holdings", "body", "holdings")
	for i := range r.Holdings {
		h := &r.Holdings[i]
		if s, ok := NormalizeISIN(h.ISIN); ok {
			h.ISIN = s
		} else {
			v.Add("must be an ISIN (2 letters, 9 letters or digits, a valid check digit)", "value_error.isin", "body", "holdings", i, "isin")
		}
		if h.Nominal != nil {
			v.Amount(h.Nominal.Decimal, false, "body", "holdings", i, "nominal")
		}
		if h.MarketValue != nil {
			v.Amount(h.MarketValue.Decimal, false, "body", "holdings", i, "market_value")
		}
		switch {
		case h.Nominal == nil && h.MarketValue == nil:
			v.Add("give nominal or market_value", "value_error.missing", "body", "holdings", i)
		case h.Nominal != nil && h.MarketValue != nil:
			v.Add("give nominal or market_value, not both", "value_error.exclusive", "body", "holdings", i)
		}
	}
	return v.Err()
}

// ImpactItem is one instrument of the sleeve.
type ImpactItem struct {
	ISIN    string         `json:"isin"`
	Name    string         `json:"name"`
	Value   shariah.Number `json:"value"`
	Pre     string         `json:"pre"`  // status before Standard 62
	Post    string         `json:"post"` // status under the draft
	Changes bool           `json:"changes"`
}

// Bucket is the part of the sleeve with one status.
type Bucket struct {
	Count   int            `json:"count"`
	Value   shariah.Number `json:"value"`
	Share   shariah.Number `json:"share"`   // fraction of the sleeve's value, 4 places
	Percent shariah.Number `json:"percent"` // the same in percent, 2 places
}

// Sleeve is the sleeve under one standard.
type Sleeve struct {
	Standard         string         `json:"standard"`
	TotalValue       shariah.Number `json:"total_value"`
	Compliant        Bucket         `json:"compliant"`
	Questionable     Bucket         `json:"questionable"`
	NonCompliant     Bucket         `json:"non_compliant"`
	InsufficientData Bucket         `json:"insufficient_data"`
}

// Impact scores a sukuk sleeve before Standard 62 and under the draft.
type Impact struct {
	Instruments  []ImpactItem   `json:"instruments"`
	NotFound     []string       `json:"not_found"` // ISINs with no record, excluded from the totals
	Pre          Sleeve         `json:"pre"`
	Post         Sleeve         `json:"post"`
	Changes      int            `json:"changes"`        // instruments whose status differs
	ValueAtStake shariah.Number `json:"value_at_stake"` // value compliant before and not compliant after
}

// PortfolioImpact scores holdings (validated) against the records in lookup (by ISIN). Values are exact
// decimals; shares are rounded (half away from zero) only at the end.
func (r *Rules) PortfolioImpact(holdings []Holding, lookup map[string]Sukuk) Impact {
	out := Impact{Instruments: []ImpactItem{}, NotFound: []string{}}
	type sums struct {
		count [4]int
		value [4]decimal.Decimal
	}
	idx := map[string]int{Compliant: 0, Questionable: 1, NonCompliant: 2, InsufficientData: 3}
	var pre, post sums
	total, stake := decimal.Zero, decimal.Zero
	for _, h := range holdings {
		s, ok := lookup[h.ISIN]
		if !ok {
			out.NotFound = append(out.NotFound, h.ISIN)
			continue
		}
		v := h.Value()
		dPre, dPost := r.Pre.Dispose(s), r.Post.Dispose(s)
		it := ImpactItem{ISIN: h.ISIN, Name: s.Name, Value: shariah.NewNumber(v), Pre: dPre.Status, Post: dPost.Status,
			Changes: dPre.Status != dPost.Status}
		out.Instruments = append(out.Instruments, it)
		total = total.Add(v)
		pre.count[idx[dPre.Status]]++
		pre.value[idx[dPre.Status]] = pre.value[idx[dPre.Status]].Add(v)
		post.count[idx[dPost.Status]]++
		post.value[idx[dPost.Status]] = post.value[idx[dPost.Status]].Add(v)
		if it.Changes {
			out.Changes++
		}
		if dPre.Status == Compliant && dPost.Status != Compliant {
			stake = stake.Add(v)
		}
	}
	sleeve := func(std string, s sums) Sleeve {
		b := func(i int) Bucket {
			share := decimal.Zero
			if total.IsPositive() {
				share = s.value[i].Div(total)
			}
			return Bucket{Count: s.count[i], Value: shariah.NewNumber(s.value[i]), Share: shariah.NewNumber(share.Round(4)),
				Percent: shariah.NewNumber(share.Mul(decimal.NewFromInt(100)).Round(2))}
		}
		return Sleeve{Standard: std, TotalValue: shariah.NewNumber(total), Compliant: b(0), Questionable: b(1), NonCompliant: b(2),
			InsufficientData: b(3)}
	}
	out.Pre, out.Post = sleeve(r.Pre.Name, pre), sleeve(r.Post.Name, post)
	out.ValueAtStake = shariah.NewNumber(stake)
	return out
}
