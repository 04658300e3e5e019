package sec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// ---------------------------------------------------------------------------------------------------
// fixture: testdata/companyfacts.json (hand-written; see the accession numbers below)

const (
	fxQ1   = "0001234567-24-000010" // 10-Q, period 2024-03-31
	fxQ2   = "0001234567-24-000020" // 10-Q, period 2024-06-30
	fxQ2A  = "0001234567-24-000025" // 10-Q/A of Q2, restating assets and revenue
	fx8K   = "0001234567-24-000028" // 8-K filed before the Q3 10-Q, with a different assets value
	fxQ3   = "0001234567-24-000030" // 10-Q, period 2024-09-30, mislabelled fp "FY"
	fx10K  = "0001234567-25-000005" // 10-K, fiscal year 2024
	fxQ1y2 = "0001234567-25-000010" // 10-Q, period 2025-03-31, with restated 2024 comparatives
)

func fixtureFundamentals(t *testing.T) map[string]shariah.Fundamentals {
	t.Helper()
	fs := fundamentalsOf(t, fixture(t, "exa_companyfacts.json"), "EXA")
	var keys []string
	for _, f := range fs {
		keys = append(keys, key(f))
		if f.Symbol != "EXA" || f.Currency != "USD" {
			t.Errorf("%s: symbol %q currency %q", key(f), f.Symbol, f.Currency)
		}
	}
	// SortFundamentals orders the FY entry before the Q4 entry of the same end ("FY" < "Q4").
	wantKeys := []string{"2024-03-31 Q1", "2024-06-30 Q2", "2024-09-30 Q3", "2024-12-31 Q4", "2024-12-31 FY", "2025-03-31 Q1"}
	if strings.Join(keys, ",") != strings.Join(wantKeys, ",") {
		t.Fatalf("periods %v, want %v (2023-12-31 is only a comparative: no period)", keys, wantKeys)
	}
	return index(t, fs)
}

func TestFixturePeriodsAndFiscalYears(t *testing.T) {
	t.Parallel()
	m := fixtureFundamentals(t)
	for k, fy := range map[string]int{"2024-03-31 Q1": 2024, "2024-06-30 Q2": 2024, "2024-09-30 Q3": 2024,
		"2024-12-31 Q4": 2024, "2024-12-31 FY": 2024, "2025-03-31 Q1": 2025} {
		if got := m[k].FiscalYear; got != fy {
			t.Errorf("%s fiscal year %d, want %d", k, got, fy)
		}
		if got := m[k].Missing[shariah.ImpureRevenue]; got != ImpureRevenueMissing {
			t.Errorf("%s impure_revenue missing reason %q", k, got)
		}
		if _, ok := m[k].Facts[shariah.ImpureRevenue]; ok {
			t.Errorf("%s: impure_revenue must never be a fact", k)
		}
	}
}

func TestFixtureDebtPreference(t *testing.T) {
	t.Parallel()
	m := fixtureFundamentals(t)
	// Noncurrent+current win over the LongTermDebt total also tagged at 2024-03-31 (250 = 200 + 50
	// either way, but the tag must say which); the operating lease liability (40) is never added.
	want(t, m["2024-03-31 Q1"], shariah.TotalDebt, "250", fxQ1, "LongTermDebtCurrent+LongTermDebtNoncurrent")
	// Only LongTermDebt, next to a zero CommercialPaper (the NVIDIA pattern).
	want(t, m["2024-06-30 Q2"], shariah.TotalDebt, "240", fxQ2, "CommercialPaper+LongTermDebt")
	// Only DebtCurrent.
	want(t, m["2024-09-30 Q3"], shariah.TotalDebt, "45", fxQ3, "DebtCurrent")
	// All three parts: 180 + 60 + 25.
	for _, k := range []string{"2024-12-31 Q4", "2024-12-31 FY"} {
		want(t, m[k], shariah.TotalDebt, "265", fx10K, "CommercialPaper+LongTermDebtCurrent+LongTermDebtNoncurrent")
	}
	// None: missing, with the tags looked for.
	absent(t, m["2025-03-31 Q1"], shariah.TotalDebt,
		"not reported: no DebtCurrent or ShortTermBorrowings or CommercialPaper or OtherShortTermBorrowings or NotesAndLoansPayable or LongTermDebtCurrent or LongTermDebtAndCapitalLeaseObligationsCurrent or LongTermDebtNoncurrent or LongTermDebtAndCapitalLeaseObligations or LongTermDebt or ConvertibleDebtCurrent or ConvertibleNotesPayableCurrent or ConvertibleDebtNoncurrent or ConvertibleNotesPayable or FinanceLeaseLiability or FinanceLeaseLiabilityCurrent or FinanceLeaseLiabilityNoncurrent at 2025-03-31")
	for _, f := range m {
		for field, fact := range f.Facts {
			if strings.Contains(fact.Tag, "OperatingLease") {
				t.Errorf("%s %s uses %s", key(f), field, fact.Tag)
			}
		}
	}
}

func TestFixtureInstants(t *testing.T) {
	t.Parallel()
	m := fixtureFundamentals(t)
	const cashMS = "CashAndCashEquivalentsAtCarryingValue+MarketableSecuritiesCurrent"
	// MarketableSecuritiesCurrent wins over the AFS value (999) tagged at the same instant.
	want(t, m["2024-03-31 Q1"], shariah.CashAndSecurities, "160", fxQ1, cashMS)
	// AFS only when MarketableSecuritiesCurrent is absent.
	want(t, m["2024-06-30 Q2"], shariah.CashAndSecurities, "180", fxQ2,
		"CashAndCashEquivalentsAtCarryingValue+AvailableForSaleSecuritiesDebtSecuritiesCurrent")
	want(t, m["2024-12-31 Q4"], shariah.CashAndSecurities, "170", fx10K, cashMS)
	want(t, m["2025-03-31 Q1"], shariah.CashAndSecurities, "140", fxQ1y2, "CashAndCashEquivalentsAtCarryingValue")

	want(t, m["2024-03-31 Q1"], shariah.Receivables, "100", fxQ1, "AccountsReceivableNetCurrent+NontradeReceivablesCurrent")
	want(t, m["2024-06-30 Q2"], shariah.Receivables, "90", fxQ2, "AccountsReceivableNetCurrent")
	want(t, m["2024-12-31 FY"], shariah.Receivables, "125", fx10K, "AccountsReceivableNetCurrent+NontradeReceivablesCurrent")

	want(t, m["2024-03-31 Q1"], shariah.Inventory, "30", fxQ1, "InventoryNet")
	want(t, m["2024-12-31 Q4"], shariah.TotalAssets, "1300", fx10K, "Assets")
	want(t, m["2025-03-31 Q1"], shariah.TotalAssets, "1350", fxQ1y2, "Assets")

	// Shares outstanding: the cover-page value of the period's own filing, dated by its own instant.
	for k, w := range map[string][3]string{
		"2024-03-31 Q1": {"1000000", fxQ1, "2024-04-20"},
		"2024-09-30 Q3": {"980000", fxQ3, "2024-10-25"},
		"2024-12-31 Q4": {"975000", fx10K, "2025-02-01"},
		"2024-12-31 FY": {"975000", fx10K, "2025-02-01"},
		"2025-03-31 Q1": {"970000", fxQ1y2, "2025-04-25"},
	} {
		f := want(t, m[k], shariah.SharesOutstanding, w[0], w[1], SharesTag)
		if f.AsOf != w[2] {
			t.Errorf("%s shares as of %s, want %s", k, f.AsOf, w[2])
		}
	}
}

func TestFixtureFlowsAndQ4Derivation(t *testing.T) {
	t.Parallel()
	m := fixtureFundamentals(t)
	const rev = "RevenueFromContractWithCustomerExcludingAssessedTax"
	// The larger of RevenueFromContract... (500) and Revenues (490) at 2024-03-31.
	want(t, m["2024-03-31 Q1"], shariah.TotalRevenue, "500", fxQ1, rev)
	// The 3-month value, not the 6- or 9-month year-to-date.
	want(t, m["2024-06-30 Q2"], shariah.TotalRevenue, "600", fxQ2, rev)
	want(t, m["2024-09-30 Q3"], shariah.TotalRevenue, "700", fxQ3, rev)
	want(t, m["2024-09-30 Q3"], shariah.InterestIncome, "7", fxQ3, "InvestmentIncomeInterest")
	fy := want(t, m["2024-12-31 FY"], shariah.TotalRevenue, "2600", fx10K, rev)
	if fy.Note != "" {
		t.Errorf("FY revenue is reported, note %q", fy.Note)
	}
	want(t, m["2024-12-31 FY"], shariah.InterestIncome, "26", fx10K, "InvestmentIncomeInterest")
	// Q4 = 2600 - 500 - 600 - 700 and 26 - 5 - 6 - 7, attributed to the 10-K.
	for field, v := range map[shariah.Field]string{shariah.TotalRevenue: "800", shariah.InterestIncome: "8"} {
		f := want(t, m["2024-12-31 Q4"], field, v, fx10K, "")
		if f.Note != DerivedQ4Note || f.Form != "10-K" || f.Filed != "2025-02-15" {
			t.Errorf("Q4 %s: note %q form %s filed %s", field, f.Note, f.Form, f.Filed)
		}
	}
	// Revenues is the fallback when RevenueFromContract... is absent.
	want(t, m["2025-03-31 Q1"], shariah.TotalRevenue, "820", fxQ1y2, "Revenues")
}

func TestFixtureMissingInterestIncome(t *testing.T) {
	t.Parallel()
	m := fixtureFundamentals(t)
	absent(t, m["2025-03-31 Q1"], shariah.InterestIncome,
		"not reported; the filer reports only NonoperatingIncomeExpense (interest not separated)")
	// Inventory absent at 2024-09-30 in the 10-Q, but an 8-K reported it: used, and said so.
	f := want(t, m["2024-09-30 Q3"], shariah.Inventory, "38", fx8K, "InventoryNet")
	if !strings.Contains(f.Note, "not in the period's own filing") {
		t.Errorf("inventory from an 8-K: note %q", f.Note)
	}
}

func TestFixtureAmendmentPreference(t *testing.T) {
	t.Parallel()
	m := fixtureFundamentals(t)
	// The original 10-Q (1100) wins over its later 10-Q/A (1150): earliest of the period's own filings.
	want(t, m["2024-06-30 Q2"], shariah.TotalAssets, "1100", fxQ2, "Assets")
	want(t, m["2024-06-30 Q2"], shariah.TotalRevenue, "600", fxQ2, "")
	// A restated comparative in the next year's 10-Q (505) does not replace the original (500).
	want(t, m["2024-03-31 Q1"], shariah.TotalRevenue, "500", fxQ1, "")
	// Values differ between an earlier 8-K (1190) and the period's own 10-Q (1200): the 10-Q wins.
	if f := want(t, m["2024-09-30 Q3"], shariah.TotalAssets, "1200", fxQ3, "Assets"); f.Note != "" {
		t.Errorf("own filing, note %q", f.Note)
	}
	// Values agree (cash 120 in both): the earliest filing, the 8-K, first reported it; the sum's
	// provenance is the period's own filing, which reported the other part, and the note names both.
	f := want(t, m["2024-09-30 Q3"], shariah.CashAndSecurities, "170", fxQ3, "")
	if !strings.Contains(f.Note, "components from several filings") {
		t.Errorf("cash from two filings: note %q", f.Note)
	}
	// Provenance of the own filing carries no note.
	if f := m["2024-03-31 Q1"].Facts[shariah.TotalAssets]; f.Note != "" || f.Filed != "2024-05-01" || f.Form != "10-Q" {
		t.Errorf("Q1 assets provenance %+v", f)
	}
}

// ---------------------------------------------------------------------------------------------------
// programmatic companyfacts for edge cases

type filingMeta struct {
	accn  string
	fy    int
	fp    string
	form  string
	filed string
}

func (m filingMeta) at(end string, val string) Fact {
	return Fact{End: end, Val: json.Number(val), Accn: m.accn, FY: m.fy, FP: m.fp, Form: m.form, Filed: m.filed}
}

func (m filingMeta) over(start, end string, val string) Fact {
	f := m.at(end, val)
	f.Start = start
	return f
}

func companyFacts(gaap map[string][]Fact, shares ...Fact) CompanyFacts {
	cf := CompanyFacts{CIK: "0000000042", EntityName: "TEST", Facts: map[string]map[string]Concept{"us-gaap": {}, "dei": {}}}
	for tag, facts := range gaap {
		cf.Facts["us-gaap"][tag] = Concept{Units: map[string][]Fact{"USD": facts}}
	}
	if len(shares) > 0 {
		cf.Facts["dei"]["EntityCommonStockSharesOutstanding"] = Concept{Units: map[string][]Fact{"shares": shares}}
	}
	return cf
}

func TestQ4NotDerivableFallsBackOrIsMissing(t *testing.T) {
	t.Parallel()
	q1 := filingMeta{"0000000042-24-000001", 2024, "Q1", "10-Q", "2024-05-01"}
	q3 := filingMeta{"0000000042-24-000003", 2024, "Q3", "10-Q", "2024-11-01"}
	k := filingMeta{"0000000042-25-000001", 2024, "FY", "10-K", "2025-02-20"}
	cf := companyFacts(map[string][]Fact{
		"Assets": {q1.at("2024-03-31", "10"), q3.at("2024-09-30", "30"), k.at("2024-12-31", "40")},
		// No Q2 3-month value: the chain Q1, Q2, Q3 breaks; the 10-K reports the Q4 quarter itself.
		"Revenues": {q1.over("2024-01-01", "2024-03-31", "100"), q3.over("2024-07-01", "2024-09-30", "300"),
			q3.over("2024-01-01", "2024-09-30", "600"), k.over("2024-01-01", "2024-12-31", "1000"),
			k.over("2024-10-01", "2024-12-31", "400")},
		"InvestmentIncomeInterest": {k.over("2024-01-01", "2024-12-31", "12")},
	}, q1.at("2024-04-15", "7"), q1.at("2024-04-15", "3"))
	fs, err := Fundamentals(cf, "TST")
	if err != nil {
		t.Fatal(err)
	}
	m := index(t, fs)
	if len(m) != 4 {
		t.Fatalf("periods %v", m)
	}
	f := want(t, m["2024-12-31 Q4"], shariah.TotalRevenue, "400", k.accn, "Revenues")
	if f.Note != "" {
		t.Errorf("reported Q4 value, note %q", f.Note)
	}
	absent(t, m["2024-12-31 Q4"], shariah.InterestIncome,
		"not reported: no fiscal-year and three 3-month values of "+strings.Join(interestTags, " or ")+" to derive the quarter ending 2024-12-31")
	want(t, m["2024-12-31 FY"], shariah.InterestIncome, "12", k.accn, "")
	absent(t, m["2024-09-30 Q3"], shariah.InterestIncome,
		"not reported: no 3-month "+strings.Join(interestTags, " or ")+" ending 2024-09-30")
	// Two share counts on one cover page (share classes, dimensions dropped by companyfacts): summed
	// share for share, and the fact says the classes were not named.
	sh := want(t, m["2024-03-31 Q1"], shariah.SharesOutstanding, "10", q1.accn, SharesTag)
	if len(sh.Classes) != 2 || !strings.Contains(sh.Note, "sum of 2 share classes") || !strings.Contains(sh.Note, "does not name") {
		t.Errorf("two share values: %+v", sh)
	}
	if why := m["2024-09-30 Q3"].Missing[shariah.SharesOutstanding]; !strings.Contains(why, q3.accn) {
		t.Errorf("no shares: missing %q", why)
	}
}

func TestFiscalYearFromDurationsAndLatest10K(t *testing.T) {
	t.Parallel()
	// A retailer whose year ending 2024-02-03 is its fiscal 2023 (latest 10-K fy 2023) and whose older
	// 10-K is mislabelled fy 2023 too (the NVIDIA pattern): both years follow the latest convention.
	old := filingMeta{"0000000042-23-000001", 2023, "FY", "10-K", "2023-03-20"}
	latest := filingMeta{"0000000042-24-000001", 2023, "FY", "10-K", "2024-03-20"}
	q1 := filingMeta{"0000000042-24-000002", 2024, "Q2", "10-Q", "2024-06-01"} // mislabelled Q2
	cf := companyFacts(map[string][]Fact{
		"Assets": {old.at("2023-01-28", "1"), latest.at("2024-02-03", "2"), q1.at("2024-05-04", "3")},
		"Revenues": {old.over("2022-01-30", "2023-01-28", "10"), latest.over("2023-01-29", "2024-02-03", "20"),
			q1.over("2024-02-04", "2024-05-04", "5")},
	})
	fs, err := Fundamentals(cf, "RTL")
	if err != nil {
		t.Fatal(err)
	}
	m := index(t, fs)
	for k, fy := range map[string]int{"2023-01-28 FY": 2022, "2024-02-03 FY": 2023, "2024-05-04 Q1": 2024} {
		f := entry(t, m, k)
		if f.FiscalYear != fy {
			t.Errorf("%s fiscal year %d, want %d", k, f.FiscalYear, fy)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	if _, err := ParseCompanyFacts([]byte(`{"cik":`)); err == nil {
		t.Error("truncated JSON accepted")
	}
	if _, err := ParseCompanyFacts([]byte(`{"entityName":"X","facts":{}}`)); err == nil {
		t.Error("companyfacts without cik accepted")
	}
	if _, err := ParseCompanyFacts([]byte(`{"cik":"12a"}`)); err == nil {
		t.Error("non-digit cik accepted")
	}
	cf, err := ParseCompanyFacts([]byte(`{"cik":42,"entityName":"X","facts":{"ifrs-full":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cf.CIK != "0000000042" {
		t.Errorf("cik %q", cf.CIK)
	}
	if _, err := Fundamentals(cf, "X"); !errors.Is(err, ErrNoUSGAAP) {
		t.Errorf("no us-gaap: err %v", err)
	}
	bad := filingMeta{"0000000042-24-000001", 2024, "Q1", "10-Q", "2024-05-01"}
	if _, err := Fundamentals(companyFacts(map[string][]Fact{"Assets": {bad.at("2024-03-31", "1x")}}), "X"); err == nil {
		t.Error("bad value accepted")
	}
	if _, err := Fundamentals(companyFacts(map[string][]Fact{"Assets": {bad.at("2024-3-31", "1")}}), "X"); err == nil {
		t.Error("bad date accepted")
	}
	for in, want := range map[string]string{"320193": "0000320193", "0000320193": "0000320193", "1": "0000000001"} {
		if got, err := PadCIK(in); err != nil || got != want {
			t.Errorf("PadCIK(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "12345678901", "-1", "3.2"} {
		if _, err := PadCIK(in); err == nil {
			t.Errorf("PadCIK(%q) accepted", in)
		}
	}
}

// ---------------------------------------------------------------------------------------------------
// real SEC companyfacts (shared data folder)

// rawFacts decodes companyfacts generically, independently of CompanyFacts, to check values against.
type rawFacts struct {
	Facts map[string]map[string]struct {
		Units map[string][]map[string]any `json:"units"`
	} `json:"facts"`
}

func decodeRaw(t *testing.T, b []byte) rawFacts {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var r rawFacts
	if err := d.Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// lookup finds the value of tag reported by accn for the instant end (start "") or the duration
// start..end; start "*" matches any duration ending at end.
func (r rawFacts) lookup(tax, tag, unit, accn, start, end string) []string {
	var out []string
	for _, f := range r.Facts[tax][tag].Units[unit] {
		s, _ := f["start"].(string)
		if f["accn"] != accn || f["end"] != end || (start != "*" && s != start) || (start == "*" && s == "") {
			continue
		}
		out = append(out, f["val"].(json.Number).String())
	}
	return out
}

// checkAgainstRaw verifies every fact of every period against the raw JSON: reported single-tag
// facts and the parts of sums must be found under the accession number the fact names, with the same
// value; derived Q4 values must equal FY minus the three quarters of the same fiscal year when those
// come from the same tag. It returns how many derived values were checked.
func checkAgainstRaw(t *testing.T, name string, raw rawFacts, fs []shariah.Fundamentals) int {
	t.Helper()
	m := index(t, fs)
	derived := 0
	for _, f := range fs {
		for field, fact := range f.Facts {
			if fact.Ref == "" || fact.Filed == "" || fact.Form == "" || fact.Source != shariah.SourceFiling || fact.Tag == "" {
				t.Errorf("%s %s %s: incomplete provenance %+v", name, key(f), field, fact)
			}
			switch {
			case field == shariah.SharesOutstanding:
				got := raw.lookup("dei", "EntityCommonStockSharesOutstanding", "shares", fact.Ref, "", fact.AsOf)
				if len(got) == 0 || got[0] != fact.Value.String() {
					t.Errorf("%s %s shares %s as of %s: raw %v", name, key(f), fact.Value, fact.AsOf, got)
				}
			case strings.HasPrefix(fact.Note, DerivedQ4Note):
				derived += checkDerived(t, name, m, f, field, fact)
			case field == shariah.TotalRevenue || field == shariah.InterestIncome:
				got := raw.lookup("us-gaap", fact.Tag, "USD", fact.Ref, "*", f.PeriodEnd)
				if !contains(got, fact.Value.String()) {
					t.Errorf("%s %s %s = %s (%s %s): raw %v", name, key(f), field, fact.Value, fact.Tag, fact.Ref, got)
				}
			default:
				sum := decimal.Zero
				complete := true
				for _, tag := range strings.Split(fact.Tag, "+") {
					got := raw.lookup("us-gaap", tag, "USD", fact.Ref, "", f.PeriodEnd)
					if len(got) == 0 {
						complete = false // a part from another filing (noted); checked by the mixed note
						continue
					}
					sum = sum.Add(decimal.RequireFromString(got[0]))
				}
				if !complete && !strings.Contains(fact.Note, "several filings") {
					t.Errorf("%s %s %s: part of %s not in %s and no note", name, key(f), field, fact.Tag, fact.Ref)
				}
				if complete && !sum.Equal(fact.Value.Decimal) {
					t.Errorf("%s %s %s = %s, raw sum of %s in %s = %s", name, key(f), field, fact.Value, fact.Tag, fact.Ref, sum)
				}
			}
		}
	}
	return derived
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func checkDerived(t *testing.T, name string, m map[string]shariah.Fundamentals, q4 shariah.Fundamentals,
	field shariah.Field, fact shariah.Fact) int {
	t.Helper()
	fy, ok := m[q4.PeriodEnd+" FY"]
	if !ok || fy.Facts[field].Tag != fact.Tag {
		return 0
	}
	rest := fy.Facts[field].Value.Decimal
	var quarters []shariah.Fundamentals
	for _, f := range m {
		if f.FiscalYear == q4.FiscalYear && (f.Period == "Q1" || f.Period == "Q2" || f.Period == "Q3") {
			quarters = append(quarters, f)
		}
	}
	if len(quarters) != 3 {
		return 0
	}
	for _, q := range quarters {
		qf, ok := q.Facts[field]
		if !ok || qf.Tag != fact.Tag {
			return 0
		}
		rest = rest.Sub(qf.Value.Decimal)
	}
	if !rest.Equal(fact.Value.Decimal) {
		t.Errorf("%s %s %s derived %s, FY minus Q1-Q3 = %s", name, key(q4), field, fact.Value, rest)
	}
	return 1
}

func TestRealAAPL(t *testing.T) {
	t.Parallel()
	b := dataFile(t, "fairvalue/sec-filing-companyfacts-AAPL.json")
	fs := fundamentalsOf(t, b, "AAPL")
	m := index(t, fs)

	// Q3 of fiscal 2024, 10-Q 0000320193-24-000081 filed 2024-08-02 (values read in the JSON: us-gaap
	// Assets, LongTermDebtNoncurrent 86196000000 + LongTermDebtCurrent 12114000000 + CommercialPaper
	// 2994000000, CashAndCashEquivalentsAtCarryingValue 25565000000 + MarketableSecuritiesCurrent
	// 36236000000, AccountsReceivableNetCurrent 22795000000 + NontradeReceivablesCurrent 20377000000,
	// InventoryNet, all at end 2024-06-29; revenue start 2024-03-31 end 2024-06-29; dei shares end
	// 2024-07-19).
	const q3 = "0000320193-24-000081"
	f := entry(t, m, "2024-06-29 Q3")
	if f.FiscalYear != 2024 {
		t.Errorf("fiscal year %d", f.FiscalYear)
	}
	if a := want(t, f, shariah.TotalAssets, "331612000000", q3, "Assets"); a.Filed != "2024-08-02" || a.Form != "10-Q" {
		t.Errorf("assets provenance %+v", a)
	}
	want(t, f, shariah.TotalDebt, "101304000000", q3, "CommercialPaper+LongTermDebtCurrent+LongTermDebtNoncurrent")
	want(t, f, shariah.CashAndSecurities, "61801000000", q3, "CashAndCashEquivalentsAtCarryingValue+MarketableSecuritiesCurrent")
	want(t, f, shariah.Receivables, "43172000000", q3, "AccountsReceivableNetCurrent+NontradeReceivablesCurrent")
	want(t, f, shariah.Inventory, "6165000000", q3, "InventoryNet")
	want(t, f, shariah.TotalRevenue, "85777000000", q3, "RevenueFromContractWithCustomerExcludingAssessedTax")
	if s := want(t, f, shariah.SharesOutstanding, "15204137000", q3, SharesTag); s.AsOf != "2024-07-19" {
		t.Errorf("shares as of %s", s.AsOf)
	}

	// Fiscal 2024 (10-K 0000320193-24-000123): FY revenue 391035000000 (start 2023-10-01, end
	// 2024-09-28); Q4 = 391035000000 - 119575000000 - 90753000000 - 85777000000 = 94930000000.
	const k = "0000320193-24-000123"
	want(t, entry(t, m, "2024-09-28 FY"), shariah.TotalRevenue, "391035000000", k, "")
	q4 := want(t, entry(t, m, "2024-09-28 Q4"), shariah.TotalRevenue, "94930000000", k, "")
	if q4.Note != DerivedQ4Note {
		t.Errorf("Q4 note %q", q4.Note)
	}
	want(t, entry(t, m, "2024-09-28 Q4"), shariah.TotalAssets, "364980000000", k, "Assets")

	// Apple tags its interest as InvestmentIncomeInterestAndDividend (the tag table's second interest
	// tag) up to fiscal 2023 and reports no interest line from fiscal 2024: the earlier periods have
	// the fact, the later ones none, each explained; nothing is guessed.
	want(t, entry(t, m, "2023-09-30 FY"), shariah.InterestIncome, "3750000000", "0000320193-23-000106", "InvestmentIncomeInterestAndDividend")
	want(t, entry(t, m, "2023-09-30 Q4"), shariah.InterestIncome, "984000000", "0000320193-23-000106", "InvestmentIncomeInterestAndDividend")
	after := 0
	for _, f := range fs {
		if f.PeriodEnd <= "2023-09-30" {
			continue
		}
		after++
		if _, ok := f.Facts[shariah.InterestIncome]; ok {
			t.Errorf("%s: AAPL interest income fact after fiscal 2023", key(f))
		}
		if f.Missing[shariah.InterestIncome] != "not reported; the filer reports only NonoperatingIncomeExpense (interest not separated)" {
			t.Errorf("%s: interest income reason %q", key(f), f.Missing[shariah.InterestIncome])
		}
	}
	if after < 4 {
		t.Errorf("only %d AAPL periods after fiscal 2023", after)
	}
	if n := checkAgainstRaw(t, "AAPL", decodeRaw(t, b), fs); n < 5 {
		t.Errorf("only %d derived Q4 values checked against FY minus Q1-Q3", n)
	}
	if n, _ := longestQuarterRun(fs); n < 8 {
		t.Errorf("AAPL longest quarter run %d", n)
	}
}

func TestRealNVDA(t *testing.T) {
	t.Parallel()
	b := dataFile(t, "fairvalue/sec-filing-companyfacts-NVDA.json")
	fs := fundamentalsOf(t, b, "NVDA")
	m := index(t, fs)
	n, run := longestQuarterRun(fs)
	if n < 8 {
		t.Fatalf("NVDA longest quarter run %d, want at least 8", n)
	}
	for _, f := range run[len(run)-8:] {
		for _, field := range []shariah.Field{shariah.TotalAssets, shariah.TotalRevenue, shariah.InterestIncome, shariah.TotalDebt} {
			if _, ok := f.Facts[field]; !ok {
				t.Errorf("%s: no %s (%s)", key(f), field, f.Missing[field])
			}
		}
	}
	// 10-Q 0001045810-24-000316 (Q3 fiscal 2025): us-gaap Assets end 2024-10-27; InvestmentIncomeInterest
	// start 2024-07-29 end 2024-10-27.
	f := entry(t, m, "2024-10-27 Q3")
	want(t, f, shariah.TotalAssets, "96013000000", "0001045810-24-000316", "Assets")
	want(t, f, shariah.InterestIncome, "472000000", "0001045810-24-000316", "InvestmentIncomeInterest")
	if f.FiscalYear != 2025 {
		t.Errorf("fiscal year %d", f.FiscalYear)
	}
	// NVIDIA tags CommercialPaper 0 next to LongTermDebt 6959000000 at 2020-04-26 (10-Q
	// 0001045810-20-000065): the debt is not zero.
	want(t, entry(t, m, "2020-04-26 Q1"), shariah.TotalDebt, "6959000000", "0001045810-20-000065", "CommercialPaper+LongTermDebt")
	// DEI quirks: the 10-K for the year ending 2021-01-31 says fy 2020 (NVIDIA calls it fiscal 2021);
	// the 10-Q for the quarter ending 2010-05-02 says fp Q2 (a 90-day year-to-date: Q1 of fiscal 2011).
	if f := entry(t, m, "2021-01-31 FY"); f.FiscalYear != 2021 {
		t.Errorf("2021-01-31 FY fiscal year %d", f.FiscalYear)
	}
	if f := entry(t, m, "2010-05-02 Q1"); f.FiscalYear != 2011 {
		t.Errorf("2010-05-02 Q1 fiscal year %d", f.FiscalYear)
	}
	if n := checkAgainstRaw(t, "NVDA", decodeRaw(t, b), fs); n < 5 {
		t.Errorf("only %d derived Q4 values checked", n)
	}
}

func TestRealSNOW(t *testing.T) {
	t.Parallel()
	b := dataFile(t, "edgartools/snow_facts.json")
	fs := fundamentalsOf(t, b, "SNOW")
	m := index(t, fs)
	n, run := longestQuarterRun(fs)
	if n < 8 {
		t.Fatalf("SNOW longest quarter run %d, want at least 8", n)
	}
	for _, f := range run[len(run)-8:] {
		for _, field := range []shariah.Field{shariah.TotalAssets, shariah.TotalRevenue, shariah.CashAndSecurities} {
			if _, ok := f.Facts[field]; !ok {
				t.Errorf("%s: no %s (%s)", key(f), field, f.Missing[field])
			}
		}
	}
	// 10-Q 0001640147-25-000110 (Q1 fiscal 2026): Assets end 2025-04-30; revenue start 2025-02-01;
	// CashAndCashEquivalentsAtCarryingValue 2243083000 + AvailableForSaleSecuritiesDebtSecuritiesCurrent
	// 1667601000 (Snowflake tags no MarketableSecuritiesCurrent).
	const q1 = "0001640147-25-000110"
	f := entry(t, m, "2025-04-30 Q1")
	want(t, f, shariah.TotalAssets, "8157407000", q1, "Assets")
	want(t, f, shariah.TotalRevenue, "1042074000", q1, "RevenueFromContractWithCustomerExcludingAssessedTax")
	want(t, f, shariah.CashAndSecurities, "3910684000", q1, "CashAndCashEquivalentsAtCarryingValue+AvailableForSaleSecuritiesDebtSecuritiesCurrent")
	if f.FiscalYear != 2026 {
		t.Errorf("fiscal year %d", f.FiscalYear)
	}
	// Its only debt, the convertible notes, is tagged ConvertibleDebtNoncurrent (2273600000 in the same
	// 10-Q): the last debt alternative.
	want(t, f, shariah.TotalDebt, "2273600000", q1, "ConvertibleDebtNoncurrent")
	absent(t, f, shariah.Inventory, "not reported: no InventoryNet at 2025-04-30")
	// The 10-Q 0001640147-22-000044 for the quarter ending 2022-04-30 carries fp "FY": it is Q1 of
	// fiscal 2023, and no FY entry exists for that end.
	if f := entry(t, m, "2022-04-30 Q1"); f.FiscalYear != 2023 {
		t.Errorf("2022-04-30 Q1 fiscal year %d", f.FiscalYear)
	}
	if _, ok := m["2022-04-30 FY"]; ok {
		t.Error("a 10-Q labelled FY produced an FY entry")
	}
	if n := checkAgainstRaw(t, "SNOW", decodeRaw(t, b), fs); n < 3 {
		t.Errorf("only %d derived Q4 values checked", n)
	}
}

func TestDebtBeyondTheTagTable(t *testing.T) {
	t.Parallel()
	q := filingMeta{"0000000042-25-000002", 2025, "Q2", "10-Q", "2025-08-01"}
	cases := []struct {
		name string
		tags map[string]string
		want string
		tag  string
	}{
		// Union Pacific / Coca-Cola: long-term debt with finance leases, its current part, commercial paper.
		{"leases", map[string]string{"LongTermDebtAndCapitalLeaseObligations": "30291", "LongTermDebtAndCapitalLeaseObligationsCurrent": "2522", "CommercialPaper": "0"},
			"32813", "CommercialPaper+LongTermDebtAndCapitalLeaseObligationsCurrent+LongTermDebtAndCapitalLeaseObligations"},
		// Exxon: the noncurrent part and "notes and loans payable" (DebtCurrent).
		{"leases and current debt", map[string]string{"LongTermDebtAndCapitalLeaseObligations": "33570", "DebtCurrent": "5419"},
			"38989", "DebtCurrent+LongTermDebtAndCapitalLeaseObligations"},
		// UnitedHealth: noncurrent long-term debt and the balance sheet's current debt line.
		{"noncurrent and DebtCurrent", map[string]string{"LongTermDebtNoncurrent": "72359", "DebtCurrent": "4545"}, "76904", "DebtCurrent+LongTermDebtNoncurrent"},
		// IBM, J&J: short-term debt tagged ShortTermBorrowings.
		{"noncurrent and short-term borrowings", map[string]string{"LongTermDebtNoncurrent": "55219", "ShortTermBorrowings": "8945"}, "64164", "ShortTermBorrowings+LongTermDebtNoncurrent"},
		// Short-term borrowings beside the current maturities count (Walmart); ShortTermBorrowings is the
		// total of the short-term lines, commercial paper included, so CommercialPaper is not added to it.
		{"short-term borrowings and current maturities", map[string]string{"LongTermDebtNoncurrent": "100", "LongTermDebtCurrent": "10", "CommercialPaper": "5", "ShortTermBorrowings": "7"}, "117", "ShortTermBorrowings+LongTermDebtCurrent+LongTermDebtNoncurrent"},
	}
	for _, c := range cases {
		gaap := map[string][]Fact{"Assets": {q.at("2025-06-30", "100000")}, "Revenues": {q.over("2025-04-01", "2025-06-30", "10"), q.over("2025-01-01", "2025-06-30", "20")}}
		for tag, v := range c.tags {
			gaap[tag] = []Fact{q.at("2025-06-30", v)}
		}
		fs, err := Fundamentals(companyFacts(gaap), "TST")
		if err != nil {
			t.Fatal(err)
		}
		want(t, index(t, fs)["2025-06-30 Q2"], shariah.TotalDebt, c.want, q.accn, c.tag)
	}
}
