package sec

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// Table tests of the concept rules (cash and interest-bearing securities, interest-bearing debt,
// revenue, contradictions). Each case is a small 10-K written for it, read twice: as an inline-XBRL
// document through ParseInlineXBRL and as companyfacts JSON; both readers must give the same input,
// since they share one mapping. The values are patterned on the shared filings named in each case,
// in millions, but the documents are ours.

const conceptEnd = "2025-12-31"

// conceptCase lists the instants at conceptEnd and the fiscal-year durations of one document.
type conceptCase struct {
	name     string
	instants map[string]string // us-gaap concept -> value ("-5" for a negative balance)
	flows    map[string]string // us-gaap concept -> fiscal-year value
	field    shariah.Field
	want     string // "" when the input must be unmeasured
	tag      string // the concepts summed, in order
	comps    int    // number of components (0: a value of one line)
	reason   string // a substring of the Missing reason when want is ""
	note     string // a substring of the fact's note, when one is expected
}

// conceptIX writes the case as an inline-XBRL 10-K: cover page, the facts in a table, the header with
// contexts and units. Assets (1,000,000) and, unless the case gives flows, Revenues make it a filing
// with statements.
func conceptIX(c conceptCase) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:iso4217="http://www.xbrl.org/2003/iso4217"
 xmlns:dei="http://xbrl.sec.gov/dei/2024" xmlns:us-gaap="http://fasb.org/us-gaap/2024">
<head><title/></head><body>
<p><ix:nonNumeric name="dei:DocumentType" contextRef="c-fy" id="d1">10-K</ix:nonNumeric>
 <ix:nonNumeric name="dei:DocumentPeriodEndDate" contextRef="c-fy" id="d2">` + conceptEnd + `</ix:nonNumeric>
 <ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="c-fy" id="d3">0000000042</ix:nonNumeric>
 <ix:nonNumeric name="dei:DocumentFiscalYearFocus" contextRef="c-fy" id="d4">2025</ix:nonNumeric>
 <ix:nonNumeric name="dei:DocumentFiscalPeriodFocus" contextRef="c-fy" id="d5">FY</ix:nonNumeric></p>
<table>
`)
	n := 0
	row := func(concept, ctx, v string) {
		n++
		sign := ""
		if strings.HasPrefix(v, "-") {
			sign, v = ` sign="-"`, v[1:]
		}
		fmt.Fprintf(&b, `<tr><td>%s</td><td><ix:nonFraction name="us-gaap:%s" contextRef="%s" unitRef="usd" decimals="-6" scale="6" id="f%d"%s>%s</ix:nonFraction></td></tr>
`, concept, concept, ctx, n, sign, v)
	}
	for _, k := range sortedKeys(c.instants) {
		row(k, "c-i", c.instants[k])
	}
	for _, k := range sortedKeys(c.flows) {
		row(k, "c-fy", c.flows[k])
	}
	b.WriteString(`</table>
<div style="display:none"><ix:header><ix:resources>
 <xbrli:context id="c-fy"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000000042</xbrli:identifier></xbrli:entity>
  <xbrli:period><xbrli:startDate>2025-01-01</xbrli:startDate><xbrli:endDate>` + conceptEnd + `</xbrli:endDate></xbrli:period></xbrli:context>
 <xbrli:context id="c-i"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000000042</xbrli:identifier></xbrli:entity>
  <xbrli:period><xbrli:instant>` + conceptEnd + `</xbrli:instant></xbrli:period></xbrli:context>
 <xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
</ix:resources></ix:header></div>
</body></html>
`)
	return b.String()
}

// complete adds the assets and revenue every case's filing has, unless the case sets them.
func (c conceptCase) complete() conceptCase {
	inst := map[string]string{"Assets": "1000000"}
	for k, v := range c.instants {
		inst[k] = v
	}
	c.instants = inst
	if c.flows == nil {
		c.flows = map[string]string{"Revenues": "50000"}
	}
	return c
}

// conceptCF is the same filing as companyfacts: values in dollars (the document's are in millions).
func conceptCF(c conceptCase) CompanyFacts {
	q := filingMeta{"0000000042-26-000001", 2025, "FY", "10-K", "2026-02-10"}
	gaap := map[string][]Fact{}
	for k, v := range c.instants {
		gaap[k] = append(gaap[k], q.at(conceptEnd, v+"000000"))
	}
	for k, v := range c.flows {
		gaap[k] = append(gaap[k], q.over("2025-01-01", conceptEnd, v+"000000"))
	}
	return companyFacts(gaap)
}

func runConceptCases(t *testing.T, cases []conceptCase) {
	t.Helper()
	for _, c := range cases {
		c := c.complete()
		t.Run(c.name, func(t *testing.T) {
			doc, err := ParseInlineXBRL(strings.NewReader(conceptIX(c)), "tst-10-k-2026-02-10.html")
			if err != nil {
				t.Fatal(err)
			}
			ixFS, err := InlineFundamentals(doc, FilingRef{}, "TST")
			if err != nil {
				t.Fatal(err)
			}
			cfFS, err := Fundamentals(conceptCF(c), "TST")
			if err != nil {
				t.Fatal(err)
			}
			for reader, fs := range map[string][]shariah.Fundamentals{"inline XBRL": ixFS, "companyfacts": cfFS} {
				fy := entry(t, index(t, fs), conceptEnd+" FY")
				if c.want == "" {
					if got, ok := fy.Facts[c.field]; ok {
						t.Errorf("%s: %s = %s (%s), want unmeasured", reader, c.field, got.Value, got.Tag)
					}
					if r := fy.Missing[c.field]; !strings.Contains(r, c.reason) {
						t.Errorf("%s: %s missing reason %q, want it to contain %q", reader, c.field, r, c.reason)
					}
					// The filing's other inputs stay.
					if _, ok := fy.Facts[shariah.TotalAssets]; !ok {
						t.Errorf("%s: total_assets dropped with the contradicted %s", reader, c.field)
					}
					continue
				}
				got, ok := fy.Facts[c.field]
				if !ok {
					t.Errorf("%s: no %s (%s)", reader, c.field, fy.Missing[c.field])
					continue
				}
				if w := c.want + "000000"; got.Value.String() != w || got.Tag != c.tag {
					t.Errorf("%s: %s = %s (%s), want %s (%s)", reader, c.field, got.Value, got.Tag, w, c.tag)
				}
				if len(got.Components) != c.comps {
					t.Errorf("%s: %d components %+v, want %d", reader, len(got.Components), got.Components, c.comps)
				}
				// The components redo the sum, and name the concepts of the tag in its order.
				if c.comps > 0 {
					var names []string
					sum := got.Components[0].Value.Decimal.Sub(got.Components[0].Value.Decimal)
					for _, p := range got.Components {
						names = append(names, p.Concept)
						sum = sum.Add(p.Value.Decimal)
					}
					if strings.Join(names, "+") != got.Tag || !sum.Equal(got.Value.Decimal) {
						t.Errorf("%s: components %+v do not make %s %s", reader, got.Components, got.Tag, got.Value)
					}
				}
				if !strings.Contains(got.Note, c.note) {
					t.Errorf("%s: note %q, want it to contain %q", reader, got.Note, c.note)
				}
			}
		})
	}
}

func TestConceptCash(t *testing.T) {
	t.Parallel()
	cash := shariah.CashAndSecurities
	runConceptCases(t, []conceptCase{
		{name: "short-term investments beside cash (TSLA)", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "15587", "ShortTermInvestments": "21195"},
			want:     "36782", tag: "CashAndCashEquivalentsAtCarryingValue+ShortTermInvestments", comps: 2},
		{name: "other short-term investments inside the short-term investments line (BA)", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "13801", "ShortTermInvestments": "12481", "OtherShortTermInvestments": "11960"},
			want:     "26282", tag: "CashAndCashEquivalentsAtCarryingValue+ShortTermInvestments", comps: 2},
		{name: "other short-term investments alone", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "9590", "OtherShortTermInvestments": "2658"},
			want:     "12248", tag: "CashAndCashEquivalentsAtCarryingValue+OtherShortTermInvestments", comps: 2},
		{name: "marketable securities and the same AFS line: one line", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "100", "MarketableSecuritiesCurrent": "50", "AvailableForSaleSecuritiesDebtSecuritiesCurrent": "50"},
			want:     "150", tag: "CashAndCashEquivalentsAtCarryingValue+MarketableSecuritiesCurrent", comps: 2},
		{name: "available-for-sale debt securities, current (HUBS, CRM)", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "8848", "AvailableForSaleSecuritiesDebtSecuritiesCurrent": "5184"},
			want:     "14032", tag: "CashAndCashEquivalentsAtCarryingValue+AvailableForSaleSecuritiesDebtSecuritiesCurrent", comps: 2},
		{name: "AFS debt securities excluding accrued interest (NKE, IBM)", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "7464", "DebtSecuritiesAvailableForSaleExcludingAccruedInterestCurrent": "1687"},
			want:     "9151", tag: "CashAndCashEquivalentsAtCarryingValue+DebtSecuritiesAvailableForSaleExcludingAccruedInterestCurrent", comps: 2},
		{name: "held to maturity, current (UNP)", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "1016", "HeldToMaturitySecuritiesCurrent": "20"},
			want:     "1036", tag: "CashAndCashEquivalentsAtCarryingValue+HeldToMaturitySecuritiesCurrent", comps: 2},
		{name: "two families: short-term investments and marketable securities", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "100", "ShortTermInvestments": "30", "MarketableSecuritiesCurrent": "20"},
			want:     "150", tag: "CashAndCashEquivalentsAtCarryingValue+ShortTermInvestments+MarketableSecuritiesCurrent", comps: 3},
		{name: "one line tagged in two families: counted once", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "100", "ShortTermInvestments": "40", "MarketableSecuritiesCurrent": "40"},
			want:     "140", tag: "CashAndCashEquivalentsAtCarryingValue+ShortTermInvestments", comps: 2, note: "counted once"},
		{name: "the filer's combined total wins over its parts (GOOGL)", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "23466", "MarketableSecuritiesCurrent": "72191", "CashCashEquivalentsAndShortTermInvestments": "95657"},
			want:     "95657", tag: "CashCashEquivalentsAndShortTermInvestments", note: "own total"},
		{name: "only the combined total", field: cash,
			instants: map[string]string{"CashCashEquivalentsAndShortTermInvestments": "500"},
			want:     "500", tag: "CashCashEquivalentsAndShortTermInvestments"},
		{name: "investments in current assets (V)", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "11975", "Investments": "3200", "AssetsCurrent": "34033"},
			want:     "15175", tag: "CashAndCashEquivalentsAtCarryingValue+Investments", comps: 2, note: "current investment securities"},
		{name: "investments that cannot be current: not counted", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "100", "Investments": "5000", "AssetsCurrent": "1000"},
			want:     "100", tag: "CashAndCashEquivalentsAtCarryingValue"},
		{name: "cash only with restricted cash (PG)", field: cash,
			instants: map[string]string{"CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents": "9556"},
			want:     "9556", tag: "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents"},
		{name: "operating cash and equity securities are not interest-bearing", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "100", "EquitySecuritiesFvNi": "70", "MarketableSecuritiesNoncurrent": "900"},
			want:     "100", tag: "CashAndCashEquivalentsAtCarryingValue"},
		// Bad input: the contradicted input is unmeasured, with the reason; the rest of the filing stays.
		{name: "combined total smaller than its parts", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "100", "ShortTermInvestments": "60", "CashCashEquivalentsAndShortTermInvestments": "120"},
			reason:   ContradictedPrefix + "CashCashEquivalentsAndShortTermInvestments 120000000 at 2025-12-31 is smaller than its tagged parts"},
		{name: "negative cash", field: cash,
			instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "-5", "ShortTermInvestments": "10"},
			reason:   ContradictedPrefix + "CashAndCashEquivalentsAtCarryingValue at 2025-12-31 is negative (-5000000)"},
	})
}

func TestConceptDebt(t *testing.T) {
	t.Parallel()
	debt := shariah.TotalDebt
	runConceptCases(t, []conceptCase{
		{name: "short-term borrowings beside current maturities, finance-lease lines (WMT)", field: debt,
			instants: map[string]string{"ShortTermBorrowings": "3068", "LongTermDebtCurrent": "2598", "LongTermDebtNoncurrent": "33401",
				"FinanceLeaseLiabilityCurrent": "800", "FinanceLeaseLiabilityNoncurrent": "5923", "OperatingLeaseLiabilityCurrent": "1499"},
			want: "45790", tag: "ShortTermBorrowings+LongTermDebtCurrent+LongTermDebtNoncurrent+FinanceLeaseLiabilityCurrent+FinanceLeaseLiabilityNoncurrent", comps: 5},
		{name: "finance-lease total of the lease note (AAPL)", field: debt,
			instants: map[string]string{"CommercialPaper": "9967", "LongTermDebtCurrent": "10912", "LongTermDebtNoncurrent": "85750",
				"FinanceLeaseLiability": "896", "FinanceLeaseLiabilityCurrent": "144", "FinanceLeaseLiabilityNoncurrent": "752"},
			want: "107525", tag: "CommercialPaper+LongTermDebtCurrent+LongTermDebtNoncurrent+FinanceLeaseLiability", comps: 4},
		{name: "debt lines with finance leases inside (HD)", field: debt,
			instants: map[string]string{"CommercialPaper": "316", "LongTermDebtAndCapitalLeaseObligationsCurrent": "4582",
				"LongTermDebtAndCapitalLeaseObligations": "48485", "FinanceLeaseLiability": "3021", "LongTermDebt": "51365"},
			want: "53383", tag: "CommercialPaper+LongTermDebtAndCapitalLeaseObligationsCurrent+LongTermDebtAndCapitalLeaseObligations", comps: 3,
			note: "finance-lease obligations are inside"},
		{name: "current and noncurrent debt and finance leases (ABBV)", field: debt,
			instants: map[string]string{"LongTermDebtAndCapitalLeaseObligationsCurrent": "6804", "LongTermDebtAndCapitalLeaseObligations": "60340",
				"FinanceLeaseLiability": "40", "LongTermDebt": "66841"},
			want: "67144", tag: "LongTermDebtAndCapitalLeaseObligationsCurrent+LongTermDebtAndCapitalLeaseObligations", comps: 2},
		{name: "current debt line, noncurrent LongTermDebt, finance leases apart (TSLA)", field: debt,
			instants: map[string]string{"DebtCurrent": "2343", "LongTermDebt": "5535", "FinanceLeaseLiability": "335",
				"FinanceLeaseLiabilityCurrent": "113", "FinanceLeaseLiabilityNoncurrent": "222"},
			want: "8213", tag: "DebtCurrent+LongTermDebt+FinanceLeaseLiability", comps: 3},
		{name: "current debt line beside long-term debt with finance leases (BA)", field: debt,
			instants: map[string]string{"DebtCurrent": "1278", "LongTermDebtAndCapitalLeaseObligations": "52586", "FinanceLeaseLiabilityCurrent": "86"},
			want:     "53864", tag: "DebtCurrent+LongTermDebtAndCapitalLeaseObligations", comps: 2},
		{name: "short-term debt that is the current maturities (IBM)", field: debt,
			instants: map[string]string{"ShortTermBorrowings": "8945", "LongTermDebtAndCapitalLeaseObligationsCurrent": "8944", "LongTermDebtNoncurrent": "55219"},
			want:     "64164", tag: "ShortTermBorrowings+LongTermDebtNoncurrent", comps: 2, note: "counted once"},
		{name: "a rounded current-debt figure beside the balance sheet's (JNJ)", field: debt,
			instants: map[string]string{"DebtCurrent": "6000", "ShortTermBorrowings": "5983", "LongTermDebtCurrent": "1749", "LongTermDebtNoncurrent": "30651"},
			want:     "36634", tag: "ShortTermBorrowings+LongTermDebtNoncurrent", comps: 2, note: "rounded"},
		{name: "loans and notes payable as the short-term line (KO 10-Q)", field: debt,
			instants: map[string]string{"NotesAndLoansPayable": "4379", "CommercialPaper": "4040", "LongTermDebtAndCapitalLeaseObligationsCurrent": "91",
				"LongTermDebtAndCapitalLeaseObligations": "44976"},
			want: "49446", tag: "NotesAndLoansPayable+LongTermDebtAndCapitalLeaseObligationsCurrent+LongTermDebtAndCapitalLeaseObligations", comps: 3},
		{name: "commercial paper and other short-term borrowings (KO 10-K)", field: debt,
			instants: map[string]string{"CommercialPaper": "1139", "OtherShortTermBorrowings": "360", "LongTermDebtAndCapitalLeaseObligationsCurrent": "648",
				"LongTermDebtAndCapitalLeaseObligations": "42375"},
			want: "44522", tag: "CommercialPaper+OtherShortTermBorrowings+LongTermDebtAndCapitalLeaseObligationsCurrent+LongTermDebtAndCapitalLeaseObligations", comps: 4},
		{name: "LongTermDebt including its current maturities", field: debt,
			instants: map[string]string{"LongTermDebtCurrent": "10", "LongTermDebt": "110"},
			want:     "110", tag: "LongTermDebt", note: "includes its current maturities"},
		{name: "one line tagged with two concepts: counted once (AAPL 2019)", field: debt,
			instants: map[string]string{"CommercialPaper": "5980", "OtherShortTermBorrowings": "5980", "LongTermDebtCurrent": "10260", "LongTermDebtNoncurrent": "91807"},
			want:     "108047", tag: "CommercialPaper+LongTermDebtCurrent+LongTermDebtNoncurrent", comps: 3, note: "tagged twice"},
		{name: "convertible notes on the balance sheet and as LongTermDebt in the note (NVDA 2016)", field: debt,
			instants: map[string]string{"ConvertibleDebtCurrent": "1413", "LongTermDebt": "1413"},
			want:     "1413", tag: "ConvertibleDebtCurrent", note: "tagged twice"},
		{name: "convertible current notes beside long-term notes (NVDA 2017)", field: debt,
			instants: map[string]string{"ConvertibleDebtCurrent": "796", "LongTermDebt": "1983"},
			want:     "2779", tag: "ConvertibleDebtCurrent+LongTermDebt", comps: 2},
		{name: "convertible notes only (HUBS 2024)", field: debt,
			instants: map[string]string{"ConvertibleNotesPayableCurrent": "458"},
			want:     "458", tag: "ConvertibleNotesPayableCurrent"},
		{name: "operating leases only: no debt", field: debt,
			instants: map[string]string{"OperatingLeaseLiability": "400"},
			reason:   "not reported: no DebtCurrent"},
		{name: "finance-lease total smaller than its parts", field: debt,
			instants: map[string]string{"LongTermDebtNoncurrent": "1000", "FinanceLeaseLiability": "100", "FinanceLeaseLiabilityCurrent": "80", "FinanceLeaseLiabilityNoncurrent": "60"},
			reason:   ContradictedPrefix + "FinanceLeaseLiability 100000000 at 2025-12-31 is smaller than its parts"},
		{name: "negative long-term debt", field: debt,
			instants: map[string]string{"LongTermDebtNoncurrent": "-1000", "LongTermDebtCurrent": "10"},
			reason:   ContradictedPrefix + "LongTermDebtNoncurrent at 2025-12-31 is negative"},
	})
}

func TestConceptRevenue(t *testing.T) {
	t.Parallel()
	rev := shariah.TotalRevenue
	runConceptCases(t, []conceptCase{
		{name: "total revenues beside net sales (WMT)", field: rev,
			flows: map[string]string{"Revenues": "680985", "RevenueFromContractWithCustomerExcludingAssessedTax": "674538"},
			want:  "680985", tag: "Revenues", note: "the larger of Revenues 680985000000 and RevenueFromContractWithCustomerExcludingAssessedTax 674538000000"},
		{name: "equal values (ABBV)", field: rev,
			flows: map[string]string{"Revenues": "56334", "RevenueFromContractWithCustomerExcludingAssessedTax": "56334"},
			want:  "56334", tag: "Revenues"},
		{name: "revenue from contracts only (AAPL)", field: rev,
			flows: map[string]string{"RevenueFromContractWithCustomerExcludingAssessedTax": "391035"},
			want:  "391035", tag: "RevenueFromContractWithCustomerExcludingAssessedTax"},
		{name: "a partial Revenues below the contract revenue", field: rev,
			flows: map[string]string{"Revenues": "900", "RevenueFromContractWithCustomerExcludingAssessedTax": "1000"},
			want:  "1000", tag: "RevenueFromContractWithCustomerExcludingAssessedTax", note: "the larger of"},
		{name: "before ASC 606", field: rev,
			flows: map[string]string{"SalesRevenueNet": "700"},
			want:  "700", tag: "SalesRevenueNet"},
	})
}

// TestConceptComponentsJSON: the components of a summed input reach the provenance JSON.
func TestConceptComponentsJSON(t *testing.T) {
	t.Parallel()
	c := conceptCase{instants: map[string]string{"CashAndCashEquivalentsAtCarryingValue": "15587", "ShortTermInvestments": "21195"}}.complete()
	fs, err := Fundamentals(conceptCF(c), "TST")
	if err != nil {
		t.Fatal(err)
	}
	fy := entry(t, index(t, fs), conceptEnd+" FY")
	b, err := json.Marshal(screening.InputProvenances(fy, "42")[shariah.CashAndSecurities])
	if err != nil {
		t.Fatal(err)
	}
	want := `"components":[{"concept":"CashAndCashEquivalentsAtCarryingValue","value":15587000000},{"concept":"ShortTermInvestments","value":21195000000}]`
	if !strings.Contains(string(b), want) {
		t.Errorf("provenance %s, want it to contain %s", b, want)
	}
	if got := fy.Facts[shariah.CashAndSecurities].SumText(); got != "CashAndCashEquivalentsAtCarryingValue 15587000000 + ShortTermInvestments 21195000000 = 36782000000" {
		t.Errorf("sum text %q", got)
	}
}
