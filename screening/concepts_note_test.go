package screening_test

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// TestRatioNoteNamesTheSummedConcepts: a ratio whose numerator was summed from several filed lines
// says which concepts and values it summed, so a reader can redo the sum from the filing; a value of
// one line adds nothing to the note.
func TestRatioNoteNamesTheSummedConcepts(t *testing.T) {
	t.Parallel()
	spec := allRulesets(t)["spec"]
	in := base()
	n := func(v int64) shariah.Number { return shariah.NewNumber(decimal.NewFromInt(v)) }
	debt := fact(45_790)
	debt.Tag = "ShortTermBorrowings+LongTermDebtCurrent+LongTermDebtNoncurrent+FinanceLeaseLiability"
	debt.Components = []shariah.Component{{Concept: "ShortTermBorrowings", Value: n(3_068)}, {Concept: "LongTermDebtCurrent", Value: n(2_598)},
		{Concept: "LongTermDebtNoncurrent", Value: n(33_401)}, {Concept: "FinanceLeaseLiability", Value: n(6_723)}}
	in.Fundamentals[0].Facts[shariah.TotalDebt] = debt
	res := screening.Screen(in, spec, "")
	const want = "total_debt = ShortTermBorrowings 3068 + LongTermDebtCurrent 2598 + LongTermDebtNoncurrent 33401 + FinanceLeaseLiability 6723 = 45790"
	for _, m := range []string{"AAOIFI", "DJIM", "FTSE", "MSCI", "S&P"} {
		if got := ratioOf(t, res, m, "debt").Note; got != want {
			t.Errorf("%s debt note %q, want %q", m, got, want)
		}
		if got := ratioOf(t, res, m, "impure_revenue").Note; strings.Contains(got, "=") {
			t.Errorf("%s impure_revenue note %q: no summed input", m, got)
		}
	}
}
