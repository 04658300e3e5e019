package insights_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/shariah-screen/shariah/insights"
)

// The trajectory's ratios get the lines of rules over total assets and revenue only: FTSE's and MSCI's
// three asset ratios and every methodology's revenue rule (partial: impure revenue is not in quarterly
// filings); S&P's and DJIM's market-cap rules give none.
func TestThresholdLines(t *testing.T) {
	rs := allRulesets(t)
	type line struct {
		Ratio, Methodology, Rule, BP, Cmp string
		Partial                           bool
	}
	lines := func(ruleset, m string) []line {
		var out []line
		for _, l := range insights.ThresholdLines(rs[ruleset], m) {
			out = append(out, line{l.Ratio, l.Methodology, l.RuleID, l.ThresholdBP.String(), l.Comparator, l.Partial})
		}
		return out
	}
	ftse := []line{
		{"debt_to_assets", "ftse", "debt", "3333.3", "lt", false},
		{"cash_to_assets", "ftse", "cash", "3333.3", "lt", false},
		{"liquidity_to_assets", "ftse", "receivables_and_cash", "5000", "lt", false},
		{"interest_to_revenue", "ftse", "impure_revenue", "500", "lt", true},
	}
	same := func(name string, want, got []line) {
		t.Helper()
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s:\n got %s\nwant %s", name, fmt.Sprint(got), fmt.Sprint(want))
		}
	}
	same("ftse-2024", ftse, lines("ftse-2024", ""))
	same("ftse-2024 by display name", ftse, lines("ftse-2024", "FTSE"))
	same("sp-2023", []line{{"interest_to_revenue", "sp", "impure_revenue", "500", "lt", true}}, lines("sp-2023", "sp"))
	// spec: receivables alone over total assets is not a trajectory ratio.
	same("spec msci", []line{
		{"debt_to_assets", "msci", "debt", "3333", "lt", false},
		{"cash_to_assets", "msci", "cash", "3333", "lt", false},
		{"interest_to_revenue", "msci", "impure_revenue", "500", "lt", true},
	}, lines("spec", "msci"))
	if got := lines("spec", "nosuch"); len(got) != 0 {
		t.Errorf("unknown methodology: %v", got)
	}
	if got := len(lines("spec", "")); got != 3+1+3+3+1 { // aaoifi, djim (revenue only), ftse, msci, sp (revenue only)
		t.Errorf("spec, every methodology: %d lines", got)
	}
}

func TestThresholdLineBreaches(t *testing.T) {
	l := insights.ThresholdLines(allRulesets(t)["ftse-2024"], "ftse")[0] // debt < 33.333%
	for _, c := range []struct {
		ratio float64
		want  bool
	}{{0.33332, false}, {0.33333, true}, {0.33334, true}, {0.1, false}} {
		if got := l.Breaches(c.ratio); got != c.want {
			t.Errorf("lt 3333.3 bp, ratio %v: breaches %v, want %v", c.ratio, got, c.want)
		}
	}
	l.Comparator = "le"
	if l.Breaches(0.33333) || !l.Breaches(0.33334) {
		t.Error("le: at the line passes, over it fails")
	}
}
