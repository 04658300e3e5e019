// Package datapack reads data into the service's reference model: the documented data-pack format
// (a directory of CSV files, docs/data-pack.md) and the real public formats of ../shared/data. Every
// reader produces the same Pack, which the loader writes to the stores. Readers are pure: bytes in,
// records and row problems out.
package datapack

import (
	"fmt"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/sukuk"
)

// Pack is everything one import brings.
type Pack struct {
	Assets       []shariah.Asset
	Fundamentals []shariah.Fundamentals
	Series       []shariah.Series // one per symbol and interval ("1d" daily, "1mo" monthly)
	Dividends    []shariah.Dividend
	Indices      []catalog.IndexInfo
	Holdings     []shariah.Holding
	FX           []market.FXRate
	Metals       []market.MetalPrice
	Sukuk        []sukuk.Sukuk
	Splits       []market.Split // stock splits the sources know (AlignShares puts shares on the closes' basis)
	Problems     []Problem      // rows (or files) skipped, with where and why
	Notes        []string       // what was read, for the load report
}

// Problem is a row or file that was not loaded.
type Problem struct {
	File string `json:"file"`
	Line int    `json:"line"` // 1-based line of the file; 0 for a whole-file problem
	Msg  string `json:"msg"`
}

func (p Problem) String() string {
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s", p.File, p.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
}

// Add appends another pack's records.
func (p *Pack) Add(o *Pack) {
	p.Assets = append(p.Assets, o.Assets...)
	p.Fundamentals = append(p.Fundamentals, o.Fundamentals...)
	p.Series = append(p.Series, o.Series...)
	p.Dividends = append(p.Dividends, o.Dividends...)
	p.Sukuk = append(p.Sukuk, o.Sukuk...)
	p.Splits = append(p.Splits, o.Splits...)
	p.Indices = append(p.Indices, o.Indices...)
	p.Holdings = append(p.Holdings, o.Holdings...)
	p.FX = append(p.FX, o.FX...)
	p.Metals = append(p.Metals, o.Metals...)
	p.Problems = append(p.Problems, o.Problems...)
	p.Notes = append(p.Notes, o.Notes...)
}

// Problemf records a problem.
func (p *Pack) Problemf(file string, line int, format string, args ...any) {
	p.Problems = append(p.Problems, Problem{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}
