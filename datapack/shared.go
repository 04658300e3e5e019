package datapack

import (
	"io/fs"

	"github.com/shopspring/decimal"
)

// ReadAllShared reads the whole public data set of a shared-data root: the public formats (ReadShared)
// and the SEC files (ReadSEC), and the extras illustrative fundamentals are derived from.
func ReadAllShared(fsys fs.FS) (*Pack, Extras, error) {
	p, x, err := ReadShared(fsys)
	if err != nil {
		return nil, Extras{}, err
	}
	p.Add(ReadSEC(fsys))
	ex := Extras{MarketCaps: map[string]decimal.Decimal{}, CapClasses: x.MarketCapCategory}
	for sym, s := range x.Snapshots {
		if s.MarketCap.IsPositive() {
			ex.MarketCaps[sym] = s.MarketCap.Decimal
		}
	}
	return p, ex, nil
}
