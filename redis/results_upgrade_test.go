package redis

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
)

// The read path of stored results (decodeResult, upgradeResult) on results the engine computes.

func specRuleset(t *testing.T) *screening.Ruleset {
	t.Helper()
	rs, err := rules.Rulesets()
	if err != nil {
		t.Fatal(err)
	}
	return rs["spec"]
}

func filedFact(v int64) shariah.Fact {
	return shariah.Fact{Value: shariah.NewNumber(decimal.NewFromInt(v)), Source: shariah.SourceFiling, Ref: "0000000000-26-000001"}
}

// tinyRatios is a company whose every ratio is tiny: total assets, revenue and market cap (1,000,000
// shares at 1.00 for 36 months) all 1,000,000, every numerator 100 (1 bp); as the screening tests' base.
func tinyRatios() screening.ScreenInputs {
	in := screening.ScreenInputs{
		Asset: shariah.Asset{Symbol: "TEST", Name: "Test Co", Type: shariah.Equity, Sector: "Information Technology", Industry: "Application Software", Currency: "USD"},
		Fundamentals: []shariah.Fundamentals{{Symbol: "TEST", PeriodEnd: "2026-06-30", Period: "Q2", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
			shariah.TotalAssets: filedFact(1_000_000), shariah.TotalRevenue: filedFact(1_000_000), shariah.TotalDebt: filedFact(100),
			shariah.CashAndSecurities: filedFact(100), shariah.Receivables: filedFact(100), shariah.InterestIncome: filedFact(100),
			shariah.ImpureRevenue: filedFact(0), shariah.SharesOutstanding: filedFact(1_000_000), shariah.Inventory: filedFact(0)}}},
		PriceSource: shariah.SourceHistory, Now: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
	}
	d := time.Date(2023, 10, 31, 0, 0, 0, 0, time.UTC)
	for range 36 {
		in.Monthly = append(in.Monthly, shariah.Bar{Date: d, Open: shariah.PriceScale, High: shariah.PriceScale, Low: shariah.PriceScale, Close: shariah.PriceScale})
		d = d.AddDate(0, 1, 0)
	}
	return in
}

// storedAs is the value stored for r after edit changed its record (as a JSON object).
func storedAs(t *testing.T, r screening.Result, edit func(m map[string]any)) []byte {
	t.Helper()
	b, _ := json.Marshal(r)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, _ = json.Marshal(map[string]any{"version": 7, "result": m})
	return b
}

// TestUpgradeEarlierFormat: a result stored before the client-ecosystem fields (by_methodology keyed
// S&P, purification_rate a fraction) reads back as the current format; a current one is unchanged.
func TestUpgradeEarlierFormat(t *testing.T) {
	t.Parallel()
	in := tinyRatios()
	in.Asset.Industry, in.Asset.SIC, in.Asset.Sector = "Diversified Banks", "6021", "Financials"
	in.Fundamentals[0].Facts[shariah.InterestIncome] = filedFact(600_000)
	cur := screening.Screen(in, specRuleset(t), "")
	old := storedAs(t, cur, func(old map[string]any) {
		by := old["by_methodology"].(map[string]any)
		by["S&P"] = by["SP"]
		delete(by, "SP")
		for _, e := range by {
			for _, f := range []string{"is_compliant", "status", "disposition"} {
				delete(e.(map[string]any), f)
			}
		}
		old["purification_rate"] = old["purification_rate_fraction"]
		for _, f := range []string{"purification_rate_fraction", "shariah_compliance_status", "business_screen_pass", "business_screen_reason", "financial_screen_pass"} {
			delete(old, f)
		}
		delete(old["data_quality"].(map[string]any), "methodologies_insufficient")
	})
	sr, err := decodeResult(old)
	if err != nil {
		t.Fatal(err)
	}
	r := sr.Result
	got, _ := json.Marshal(r)
	want, _ := json.Marshal(cur)
	if string(got) != string(want) || sr.Version != 7 {
		t.Fatalf("upgraded (version %d):\n%s\nwant:\n%s", sr.Version, got, want)
	}
	upgradeResult(&r) // idempotent
	if again, _ := json.Marshal(r); string(again) != string(want) {
		t.Fatal("a second upgrade changed the result")
	}
	if *r.BusinessScreenReason != "conventional finance (SIC 6021)" || r.PurificationRate.String() != "60" || r.PurificationFraction.String() != "0.6" {
		t.Fatalf("reason %v, rate %s / %s", *r.BusinessScreenReason, r.PurificationRate, r.PurificationFraction)
	}
	// A current result reads back as it was stored.
	sr, err = decodeResult(storedAs(t, cur, func(map[string]any) {}))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(sr.Result); string(got) != string(want) {
		t.Fatalf("current result read as\n%s\nwant\n%s", got, want)
	}
}

// TestPurificationFromTheStoredFraction: purification_rate and purification_rate_pct are read as the
// stored fraction in percent, whatever percent was stored beside it.
func TestPurificationFromTheStoredFraction(t *testing.T) {
	t.Parallel()
	in := tinyRatios()
	in.Fundamentals[0].Facts[shariah.InterestIncome] = filedFact(33_700)
	cur := screening.Screen(in, specRuleset(t), "")
	if cur.PurificationFraction == nil || cur.PurificationFraction.String() != "0.0337" || cur.PurificationRate.String() != "3.37" {
		t.Fatalf("screened: %v / %v", cur.PurificationFraction, cur.PurificationRate)
	}
	sr, err := decodeResult(storedAs(t, cur, func(m map[string]any) {
		m["purification_rate"], m["purification_rate_pct"] = 99, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	r := sr.Result
	if r.PurificationFraction.String() != "0.0337" || r.PurificationRate.String() != "3.37" || r.PurificationRatePct.String() != "3.37" {
		t.Fatalf("read: %s / %s / %s", r.PurificationFraction, r.PurificationRate, r.PurificationRatePct)
	}
	sr, err = decodeResult(storedAs(t, cur, func(m map[string]any) {
		m["purification_rate"], m["purification_rate_fraction"], m["purification_rate_pct"] = nil, nil, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if r := sr.Result; r.PurificationFraction != nil || r.PurificationRate != nil || r.PurificationRatePct != nil {
		t.Fatalf("no fraction read as %v / %v / %v", r.PurificationFraction, r.PurificationRate, r.PurificationRatePct)
	}
}

// TestUpgradeYesNo: a result stored before verdict_methodology existed (is_compliant true only for
// COMPLIANT) is read with its ruleset's primary: a QUESTIONABLE result whose AAOIFI entry is
// compliant becomes is_compliant true, with financial_screen_pass AAOIFI's.
func TestUpgradeYesNo(t *testing.T) {
	t.Parallel()
	in := tinyRatios()
	in.Fundamentals[0].Facts[shariah.Receivables] = filedFact(400_000) // DJIM and MSCI fail
	sr, err := decodeResult(storedAs(t, screening.Screen(in, specRuleset(t), ""), func(m map[string]any) {
		delete(m, "verdict_methodology")
		m["is_compliant"], m["financial_screen_pass"] = false, false // as stored then
	}))
	if err != nil {
		t.Fatal(err)
	}
	old := sr.Result
	if old.VerdictMethodology != "AAOIFI" || old.IsCompliant == nil || !*old.IsCompliant || old.FinancialScreenPass == nil ||
		!*old.FinancialScreenPass || old.ComplianceStatus != "QUESTIONABLE" {
		t.Fatalf("upgraded: %q %v %v %s", old.VerdictMethodology, old.IsCompliant, old.FinancialScreenPass, old.ComplianceStatus)
	}
}
