package shariah

import (
	"testing"

	"github.com/shopspring/decimal"
)

func mergePeriodFixture(end, p, source string, fields map[Field]int64) Fundamentals {
	f := Fundamentals{Symbol: "X", PeriodEnd: end, Period: p, Facts: map[Field]Fact{}}
	for k, v := range fields {
		f.Facts[k] = Fact{Value: NewNumber(decimal.NewFromInt(v)), Source: source}
	}
	return f
}

func TestMergeFundamentalsRealReplacesIllustrative(t *testing.T) {
	t.Parallel()
	old := []Fundamentals{
		mergePeriodFixture("2023-12-31", "FY", SourceIllustrative, map[Field]int64{TotalAssets: 1}),
		mergePeriodFixture("2022-12-31", "FY", SourceIllustrative, map[Field]int64{TotalAssets: 2}),
	}
	newer := []Fundamentals{mergePeriodFixture("2024-12-31", "FY", SourceFiling, map[Field]int64{TotalAssets: 3})}
	got := MergeFundamentals(old, newer)
	if len(got) != 1 || got[0].PeriodEnd != "2024-12-31" || got[0].Facts[TotalAssets].Source != SourceFiling {
		t.Fatalf("filed data must replace the illustrative stand-ins, got %+v", got)
	}
}

func TestMergeFundamentalsIllustrativeNotAddedBesideReal(t *testing.T) {
	t.Parallel()
	old := []Fundamentals{mergePeriodFixture("2024-12-31", "FY", SourceFiling, map[Field]int64{TotalAssets: 3})}
	newer := []Fundamentals{mergePeriodFixture("2025-12-31", "FY", SourceIllustrative, map[Field]int64{TotalAssets: 9})}
	got := MergeFundamentals(old, newer)
	if len(got) != 1 || got[0].PeriodEnd != "2024-12-31" {
		t.Fatalf("illustrative periods must not be added next to filed data, got %+v", got)
	}
}

func TestMergeFundamentalsIllustrativeOverIllustrative(t *testing.T) {
	t.Parallel()
	old := []Fundamentals{mergePeriodFixture("2023-12-31", "FY", SourceIllustrative, map[Field]int64{TotalAssets: 1})}
	newer := []Fundamentals{mergePeriodFixture("2024-12-31", "FY", SourceIllustrative, map[Field]int64{TotalAssets: 2})}
	got := MergeFundamentals(old, newer)
	if len(got) != 2 || got[0].PeriodEnd != "2023-12-31" || got[1].PeriodEnd != "2024-12-31" {
		t.Fatalf("illustrative periods merge with illustrative ones, oldest first, got %+v", got)
	}
}

func TestMergeFundamentalsSamePeriodMergesByField(t *testing.T) {
	t.Parallel()
	stored := mergePeriodFixture("2024-12-31", "FY", SourceFiling, map[Field]int64{TotalAssets: 3, TotalDebt: 1})
	stored.Missing = map[Field]string{InterestIncome: "not reported"}
	stored.Currency = "USD"
	load := mergePeriodFixture("2024-12-31", "FY", SourceFiling, map[Field]int64{TotalDebt: 2, InterestIncome: 5})
	load.FiscalYear = 2024
	got := MergeFundamentals([]Fundamentals{stored}, []Fundamentals{load})
	if len(got) != 1 {
		t.Fatalf("one period expected, got %d", len(got))
	}
	m := got[0]
	if m.Facts[TotalAssets].Value.IntPart() != 3 || m.Facts[TotalDebt].Value.IntPart() != 2 || m.Facts[InterestIncome].Value.IntPart() != 5 {
		t.Fatalf("facts merge by field with the newer winning, got %+v", m.Facts)
	}
	if _, still := m.Missing[InterestIncome]; still {
		t.Fatalf("an input now known is no longer missing: %+v", m.Missing)
	}
	if m.Currency != "USD" || m.FiscalYear != 2024 {
		t.Fatalf("currency kept, fiscal year taken from the newer load: %q %d", m.Currency, m.FiscalYear)
	}
	if stored.Facts[TotalDebt].Value.IntPart() != 1 {
		t.Fatal("merging must not change the stored period's map")
	}
}
