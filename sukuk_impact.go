package shariah

import (
	"github.com/shopspring/decimal"
)

// MaxSukukHoldings bounds the holdings of one portfolio-impact request (more is a 422); values are
// bounded by MaxAmount and MaxInputPlaces.
const MaxSukukHoldings = 200

// SukukHolding is one position of a sukuk sleeve: its nominal or its market value (exactly one).
type SukukHolding struct {
	ISIN        string  `json:"isin"`
	Nominal     *Number `json:"nominal,omitempty"`      // at most MaxAmount
	MarketValue *Number `json:"market_value,omitempty"` // at most MaxAmount
}

// Value is the market value when given, else the nominal (zero when neither).
func (h SukukHolding) Value() decimal.Decimal {
	switch {
	case h.MarketValue != nil:
		return h.MarketValue.Decimal
	case h.Nominal != nil:
		return h.Nominal.Decimal
	}
	return decimal.Zero
}

// SukukImpactRequest is the body of POST /api/sukuk/portfolio-impact.
type SukukImpactRequest struct {
	Holdings []SukukHolding `json:"holdings"`
}

// Validate normalizes the ISINs and reports every problem at once (VALIDATION_ERROR, loc ["body", ...]).
func (r *SukukImpactRequest) Validate() error {
	var v Validation
	v.Items(len(r.Holdings), 1, MaxSukukHoldings, "holdings", "body", "holdings")
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

// SukukImpactItem is one instrument of the sleeve.
type SukukImpactItem struct {
	ISIN    string `json:"isin"`
	Name    string `json:"name"`
	Value   Number `json:"value"`
	Pre     string `json:"pre"`  // status before Standard 62
	Post    string `json:"post"` // status under the draft
	Changes bool   `json:"changes"`
}

// SukukBucket is the part of the sleeve with one status.
type SukukBucket struct {
	Count   int    `json:"count"`
	Value   Number `json:"value"`
	Share   Number `json:"share"`   // fraction of the sleeve's value, 4 places
	Percent Number `json:"percent"` // the same in percent, 2 places
}

// SukukSleeve is the sleeve under one standard.
type SukukSleeve struct {
	Standard         string      `json:"standard"`
	TotalValue       Number      `json:"total_value"`
	Compliant        SukukBucket `json:"compliant"`
	Questionable     SukukBucket `json:"questionable"`
	NonCompliant     SukukBucket `json:"non_compliant"`
	InsufficientData SukukBucket `json:"insufficient_data"`
}

// SukukImpact scores a sukuk sleeve before Standard 62 and under the draft.
type SukukImpact struct {
	Instruments  []SukukImpactItem `json:"instruments"`
	NotFound     []string          `json:"not_found"` // ISINs with no record, excluded from the totals
	Pre          SukukSleeve       `json:"pre"`
	Post         SukukSleeve       `json:"post"`
	Changes      int               `json:"changes"`        // instruments whose status differs
	ValueAtStake Number            `json:"value_at_stake"` // value compliant before and not compliant after
}

// PortfolioImpact scores holdings (validated) against the records in lookup (by ISIN). Values are exact
// decimals; shares are rounded (half away from zero) only at the end.
func (r *SukukRules) PortfolioImpact(holdings []SukukHolding, lookup map[string]Sukuk) SukukImpact {
	out := SukukImpact{Instruments: []SukukImpactItem{}, NotFound: []string{}}
	type sums struct {
		count [4]int
		value [4]decimal.Decimal
	}
	idx := map[string]int{SukukCompliant: 0, SukukQuestionable: 1, SukukNonCompliant: 2, SukukInsufficientData: 3}
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
		it := SukukImpactItem{ISIN: h.ISIN, Name: s.Name, Value: NewNumber(v), Pre: dPre.Status, Post: dPost.Status,
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
		if dPre.Status == SukukCompliant && dPost.Status != SukukCompliant {
			stake = stake.Add(v)
		}
	}
	sleeve := func(std string, s sums) SukukSleeve {
		b := func(i int) SukukBucket {
			share := decimal.Zero
			if total.IsPositive() {
				share = s.value[i].Div(total)
			}
			return SukukBucket{Count: s.count[i], Value: NewNumber(s.value[i]), Share: NewNumber(share.Round(4)),
				Percent: NewNumber(share.Mul(decimal.NewFromInt(100)).Round(2))}
		}
		return SukukSleeve{Standard: std, TotalValue: NewNumber(total), Compliant: b(0), Questionable: b(1), NonCompliant: b(2),
			InsufficientData: b(3)}
	}
	out.Pre, out.Post = sleeve(r.Pre.Name, pre), sleeve(r.Post.Name, post)
	out.ValueAtStake = NewNumber(stake)
	return out
}
