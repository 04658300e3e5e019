package sec

import (
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/filings"
)

// dpsTags are the dividends-per-share tags, in order of preference.
var dpsTags = []string{"CommonStockDividendsPerShareDeclared", "CommonStockDividendsPerShareCashPaid"}

// cashflowTags are the cash-flow tags shariah.CashflowOf reads (operating cash flow and capital
// expenditure, each with its fallback), kept with the screening facts.
var cashflowTags = []string{"NetCashProvidedByUsedInOperatingActivities", "NetCashProvidedByUsedInOperatingActivitiesContinuingOperations",
	"PaymentsToAcquirePropertyPlantAndEquipment", "PaymentsToAcquireProductiveAssets"}

// ScreeningFacts lists the reported values of every tag the screening inputs are built from (the
// tag table, the related tags, shares outstanding and dividends per share) and of the cash-flow tags,
// for GET /api/filings/{symbol}/facts and the cash-flow insight, newest first.
func ScreeningFacts(cf CompanyFacts) []filings.XBRLFact {
	tags := map[string]string{SharesTag: "dei"}
	for _, t := range usedTags() {
		tags[t] = "us-gaap"
	}
	for _, t := range dpsTags {
		tags[t] = "us-gaap"
	}
	for _, t := range cashflowTags {
		tags[t] = "us-gaap"
	}
	var out []filings.XBRLFact
	for tag, tax := range tags {
		name := strings.TrimPrefix(tag, "dei:")
		c, ok := cf.Facts[tax][name]
		if !ok {
			continue
		}
		for unit, fs := range c.Units {
			for _, f := range fs {
				v, err := decimal.NewFromString(f.Val.String())
				if err != nil {
					continue
				}
				out = append(out, filings.XBRLFact{Concept: tax + ":" + name, Unit: unit, Start: f.Start, End: f.End,
					Value: shariah.NewNumber(v), Accession: f.Accn, Form: f.Form, Filed: f.Filed, FY: f.FY, FP: f.FP, Frame: f.Frame})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].End != out[j].End {
			return out[i].End > out[j].End
		}
		return out[i].Concept < out[j].Concept
	})
	return out
}

// DividendsPerShare lists the quarterly dividends per share a company declared in its filings, one per
// period (the earliest filing's value), oldest first. Filings give the period, not the ex-date.
func DividendsPerShare(cf CompanyFacts, symbol string) []shariah.Dividend {
	for _, tag := range dpsTags {
		c, ok := cf.Facts["us-gaap"][tag]
		if !ok {
			continue
		}
		best := map[string]Fact{}
		for _, f := range c.Units["USD/shares"] {
			if f.Start == "" {
				continue
			}
			if d := daysBetween(mustDate(f.Start), mustDate(f.End)); d < quarterMin || d > quarterMax {
				continue // quarters only: year-to-date and annual totals would double count
			}
			if cur, ok := best[f.End]; !ok || f.Filed < cur.Filed {
				best[f.End] = f
			}
		}
		var out []shariah.Dividend
		for end, f := range best {
			v, err := decimal.NewFromString(f.Val.String())
			if err != nil || !v.IsPositive() {
				continue
			}
			out = append(out, shariah.Dividend{Symbol: symbol, PeriodEnd: end, Amount: shariah.NewNumber(v), Currency: "USD",
				Source: shariah.SourceFiling, Ref: f.Accn})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].PeriodEnd < out[j].PeriodEnd })
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

func mustDate(s string) time.Time {
	t, _ := time.Parse(dateLayout, s)
	return t
}
