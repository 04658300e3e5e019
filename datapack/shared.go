package datapack

import (
	"io/fs"

	"github.com/shopspring/decimal"
)

// ReadAllShared reads the whole public data set of a shared-data root: the public formats (ReadShared),
// the SEC files (ReadSEC: companyfacts and the inline-XBRL filings), the companyfacts-derived quarters
// of the companies those lack (ReadCompanyfactsDerived: below the filings, above illustrative
// profiles), and the extras illustrative fundamentals are derived from. Shares outstanding are then put
// on the closes' basis (AlignShares).
func ReadAllShared(fsys fs.FS) (*Pack, Extras, error) {
	p, x, err := ReadShared(fsys)
	if err != nil {
		return nil, Extras{}, err
	}
	secPack := ReadSEC(fsys)
	filed := map[string]bool{}
	for _, f := range secPack.Fundamentals {
		filed[f.Symbol] = true
	}
	p.Add(secPack)
	cfd := ReadCompanyfactsDerived(fsys, filed)
	histories := map[string]bool{}
	for _, f := range cfd.Fundamentals {
		histories[f.Symbol] = true // the set's split history covers its companies (an empty one says none)
	}
	p.Add(cfd)
	AlignShares(p, histories, x.Snapshots, SP500SnapshotDate)
	ex := Extras{MarketCaps: map[string]decimal.Decimal{}, CapClasses: x.MarketCapCategory}
	for sym, s := range x.Snapshots {
		if s.MarketCap.IsPositive() {
			ex.MarketCaps[sym] = s.MarketCap.Decimal
		}
	}
	return p, ex, nil
}
