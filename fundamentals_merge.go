package shariah

// MergeFundamentals merges stored periods (old) with newly loaded ones (newer): periods by (period end,
// period), and within a period facts by field, the newer fact winning. Illustrative data only stands in
// until real data arrives: when the new periods carry filed (or live) facts, stored periods that are
// purely illustrative are dropped, and while real data is on file illustrative periods are not added
// next to it. The result is sorted oldest first.
func MergeFundamentals(old, newer []Fundamentals) []Fundamentals {
	switch {
	case anyReal(newer): // real data arrives: the illustrative stand-ins go
		old = keepReal(old)
		newer = keepReal(newer)
	case anyReal(old): // real data is on file: illustrative periods are not added next to it
		newer = nil
	}
	idx := map[string]int{}
	out := make([]Fundamentals, 0, len(old)+len(newer))
	for _, f := range old {
		idx[f.PeriodEnd+"|"+f.Period] = len(out)
		out = append(out, f)
	}
	for _, f := range newer {
		k := f.PeriodEnd + "|" + f.Period
		if i, ok := idx[k]; ok {
			out[i] = mergePeriod(out[i], f)
			continue
		}
		idx[k] = len(out)
		out = append(out, f)
	}
	SortFundamentals(out)
	return out
}

// realPeriod reports whether a period carries a filed or live fact (anything but illustrative data).
func realPeriod(f Fundamentals) bool {
	for _, fact := range f.Facts {
		if fact.Source == SourceFiling || fact.Source == SourceLive {
			return true
		}
	}
	return false
}

func anyReal(fs []Fundamentals) bool {
	for _, f := range fs {
		if realPeriod(f) {
			return true
		}
	}
	return false
}

func keepReal(fs []Fundamentals) []Fundamentals {
	kept := fs[:0:0]
	for _, f := range fs {
		if realPeriod(f) {
			kept = append(kept, f)
		}
	}
	return kept
}

// mergePeriod merges a newer load of the same period into the stored one: facts by field (the newer
// wins), the newer Missing list replacing the stored one less the inputs now known, and currency and
// fiscal year when the newer load gives them.
func mergePeriod(m, f Fundamentals) Fundamentals {
	facts := make(map[Field]Fact, len(m.Facts)+len(f.Facts))
	for k, v := range m.Facts {
		facts[k] = v
	}
	for k, v := range f.Facts {
		facts[k] = v
	}
	m.Facts = facts
	if f.Missing != nil {
		m.Missing = f.Missing
	}
	for k := range m.Missing {
		if _, now := facts[k]; now {
			delete(m.Missing, k)
		}
	}
	if f.Currency != "" {
		m.Currency = f.Currency
	}
	if f.FiscalYear != 0 {
		m.FiscalYear = f.FiscalYear
	}
	return m
}
