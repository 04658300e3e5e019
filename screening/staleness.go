package screening

import (
	"fmt"
	"time"

	"github.com/shariah-screen/shariah/filings"
)

// Staleness says whether a cached screening may rest on outdated inputs.
type Staleness struct {
	Symbol            string           `json:"symbol"`
	ScreenedAt        time.Time        `json:"screened_at"`
	FundamentalsAsOf  string           `json:"fundamentals_as_of"`
	Stale             bool             `json:"stale"`
	Reason            string           `json:"reason"`
	SinceScreening    []filings.Event  `json:"material_filings_since_screening"`
	SinceData         []filings.Event  `json:"material_filings_since_data"`
	NewerPeriodicRpts []filings.Filing `json:"newer_periodic_reports"`
}

// StalenessOf compares a screening with the filings since: a material 8-K filed on or after the day it
// was screened, or a 10-Q/10-K reporting a period newer than its data, makes it stale.
func StalenessOf(r Result, fls []filings.Filing, relevance func(items []string) (string, string)) Staleness {
	screened := r.ScreenedAt.UTC().Format("2006-01-02")
	out := Staleness{Symbol: r.Symbol, ScreenedAt: r.ScreenedAt, FundamentalsAsOf: r.DataQuality.AsOf,
		SinceScreening: []filings.Event{}, SinceData: []filings.Event{}, NewerPeriodicRpts: []filings.Filing{}}
	for _, ev := range filings.EventsOf(fls, relevance) {
		if !ev.Material {
			continue
		}
		if ev.Date >= screened {
			out.SinceScreening = append(out.SinceScreening, ev)
		}
		if ev.Date > r.DataQuality.AsOf {
			out.SinceData = append(out.SinceData, ev)
		}
	}
	for _, f := range fls {
		if (f.Form == "10-Q" || f.Form == "10-K") && f.ReportDate > r.DataQuality.AsOf {
			out.NewerPeriodicRpts = append(out.NewerPeriodicRpts, f)
		}
	}
	out.Stale = len(out.SinceScreening) > 0 || len(out.NewerPeriodicRpts) > 0
	switch {
	case len(out.SinceScreening) > 0:
		out.Reason = fmt.Sprintf("%d material 8-K filing(s) since the screening on %s.", len(out.SinceScreening), screened)
	case len(out.NewerPeriodicRpts) > 0:
		f := out.NewerPeriodicRpts[0]
		out.Reason = fmt.Sprintf("A newer periodic report (%s for %s) than the data screened (as of %s).", f.Form, f.ReportDate, r.DataQuality.AsOf)
	default:
		out.Reason = "No material 8-K since the screening and no newer periodic report than its data."
	}
	return out
}
