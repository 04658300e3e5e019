package shariah

// StockRecord is the database record of a stock with the latest fundamentals on file and their
// provenance.
type StockRecord struct {
	Asset
	Fundamentals *Fundamentals     `json:"fundamentals"` // latest period; null when none
	Periods      int               `json:"fundamentals_periods"`
	DataQuality  RecordDataQuality `json:"data_quality"`
}

// RecordDataQuality says where a stock record's fundamentals come from.
type RecordDataQuality struct {
	Sources []string `json:"sources"` // filing, live, illustrative
	AsOf    string   `json:"as_of"`   // period end of the latest fundamentals
	Note    string   `json:"note,omitempty"`
}

// StockRecordOf is the record of a with its latest fundamentals among fs (LatestFundamentals) and
// their sources; illustrative figures carry a note saying they are not from filings.
func StockRecordOf(a Asset, fs []Fundamentals) StockRecord {
	rec := StockRecord{Asset: a, Periods: len(fs), DataQuality: RecordDataQuality{Sources: []string{}}}
	if len(fs) == 0 {
		return rec
	}
	latest := LatestFundamentals(fs)
	rec.Fundamentals = &latest
	rec.DataQuality.Sources = latest.Sources()
	rec.DataQuality.AsOf = latest.PeriodEnd
	for _, src := range rec.DataQuality.Sources {
		if src == SourceIllustrative {
			rec.DataQuality.Note = "Illustrative figures: not from filings."
		}
	}
	return rec
}
