package screening

import "github.com/shariah-screen/shariah"

// StockRecord is the database record of a stock with the fundamentals a screening stands on and
// their provenance.
type StockRecord struct {
	shariah.Asset
	// Fundamentals is the screened period (ScreeningPeriods: the latest, the fiscal year over its
	// fourth quarter at the same end); null when none.
	Fundamentals *shariah.Fundamentals `json:"fundamentals"`
	Periods      int                   `json:"fundamentals_periods"`
	// Inputs are the screening inputs as the screening uses them, each with the period it came from
	// (an input carried from an earlier fiscal year names that year); absent when no fundamentals.
	Inputs      map[shariah.Field]InputProvenance `json:"inputs,omitempty"`
	DataQuality RecordDataQuality                 `json:"data_quality"`
}

// RecordDataQuality says where a stock record's fundamentals come from.
type RecordDataQuality struct {
	Sources []string `json:"sources"` // filing, live, illustrative
	AsOf    string   `json:"as_of"`   // period end of the screened fundamentals
	Note    string   `json:"note,omitempty"`
	// Period and PeriodLabel name the screened period (FY, "FY2024"; Q2, "Q2 2025").
	Period      string `json:"period,omitempty"`
	PeriodLabel string `json:"period_label,omitempty"`
}

// StockRecordOf is the record of a with the period a screening under rs stands on among fs
// (PeriodsFor; rs nil: no input is carried) and its sources; illustrative figures carry a note saying
// they are not from filings.
func StockRecordOf(a shariah.Asset, fs []shariah.Fundamentals, rs *Ruleset) StockRecord {
	rec := StockRecord{Asset: a, Periods: len(fs), DataQuality: RecordDataQuality{Sources: []string{}}}
	sp := PeriodsFor(fs, rs)
	if sp.Screened == nil {
		return rec
	}
	p := *sp.Screened
	rec.Fundamentals = &p
	rec.Inputs = ScreenedInputProvenances(sp, a.CIK)
	rec.DataQuality.Sources = sp.Sources()
	rec.DataQuality.AsOf, rec.DataQuality.Period, rec.DataQuality.PeriodLabel = p.PeriodEnd, p.Period, PeriodLabel(p)
	for _, src := range rec.DataQuality.Sources {
		if src == shariah.SourceIllustrative {
			rec.DataQuality.Note = "Illustrative figures: not from filings."
		}
	}
	return rec
}
