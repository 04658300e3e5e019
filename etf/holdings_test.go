package etf

import (
	"testing"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

func numOf(s string) shariah.Number { return shariah.NewNumber(decimal.RequireFromString(s)) }

func TestTopHoldingsAndWeight(t *testing.T) {
	t.Parallel()
	hs := []shariah.Holding{{Symbol: "A", Weight: numOf("0.1")}, {Symbol: "B", Weight: numOf("0.5")}, {Symbol: "C", Weight: numOf("0.3")}, {Symbol: "D", Weight: numOf("0.1")}}
	if w := HoldingsWeightPct(hs); w != "100.00" {
		t.Fatalf("weight %s", w)
	}
	top := TopHoldings(hs, 3)
	if len(top) != 3 || top[0].Symbol != "B" || top[1].Symbol != "C" || top[2].Symbol != "A" || hs[0].Symbol != "A" {
		t.Fatalf("top 3: %+v (input %+v)", top, hs)
	}
	if all := TopHoldings(hs, 4); all[0].Symbol != "A" || len(all) != 4 {
		t.Fatalf("at most n keep file order: %+v", all)
	}
}

func TestETFDirectoryOrder(t *testing.T) {
	t.Parallel()
	hits := []catalog.SearchHit{{Asset: shariah.Asset{Symbol: "X"}}, {Asset: shariah.Asset{Symbol: "Y"}}, {Asset: shariah.Asset{Symbol: "Z"}}}
	d := Directory(hits, []string{"Z"}, false)
	if len(d) != 3 || d[0].Symbol != "Z" || !d[0].HasHoldings || d[1].Symbol != "X" || d[2].Symbol != "Y" {
		t.Fatalf("directory: %+v", d)
	}
	if d := Directory(hits, []string{"Y"}, true); len(d) != 1 || d[0].Symbol != "Y" {
		t.Fatalf("only with holdings: %+v", d)
	}
}
