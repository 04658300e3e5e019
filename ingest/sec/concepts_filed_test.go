package sec

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// filedFigure is what a person reads off one shared filing for its own period: cash and
// interest-bearing securities, interest-bearing debt and revenue, in the filing's unit (millions, or
// thousands for NFLX and HUBS), each with the lines it is the sum of. "" means the filing gives no
// figure (the input must be unmeasured, not zero).
type filedFigure struct {
	file, period           string // the document under sec/ixbrl, its own period (FY, or the 10-Q's quarter)
	unit                   int64
	cash, debt, revenue    string
	cashFrom, debtFrom     string
	revenueFrom            string
	cashTag, debtTag, rTag string // the concepts the mapping must have summed
}

// filedFigures were read by hand from the statements of each inline-XBRL document in
// SHARIAH_DATA_DIR/sec/ixbrl (balance sheet and income statement; a note where a line sits inside
// another liability). WFC's 10-K and IBM's 10-K carry only their cover pages: no figures. The 24
// companies with statements are all here.
var filedFigures = []filedFigure{
	{file: "aapl/10k/aapl-10-k-2024-11-01.html", period: "2024-09-28 FY", unit: 1e6,
		cash: "65171", cashFrom: "balance sheet: cash and cash equivalents 29,943 + marketable securities (current) 35,228",
		debt: "107525", debtFrom: "balance sheet: commercial paper 9,967 + term debt (current) 10,912 + term debt (non-current) 85,750; lease note: finance lease liabilities 896 (in other liabilities)",
		revenue: "391035", revenueFrom: "income statement: total net sales 391,035",
		cashTag: "CashAndCashEquivalentsAtCarryingValue+MarketableSecuritiesCurrent", debtTag: "CommercialPaper+LongTermDebtCurrent+LongTermDebtNoncurrent+FinanceLeaseLiability"},
	{file: "aapl/10q/aapl-10-q-2025-08-01.html", period: "2025-06-28 Q3", unit: 1e6,
		cash: "55372", cashFrom: "balance sheet: cash and cash equivalents 36,269 + marketable securities (current) 19,103",
		debt: "101698", debtFrom: "balance sheet: commercial paper 9,923 + term debt 9,345 (current) + 82,430 (non-current); the 10-Q gives no finance-lease figure",
		revenue: "94036", revenueFrom: "income statement, three months: total net sales 94,036"},
	{file: "abbv/10k/abbv-10-k-2025-02-14.html", period: "2024-12-31 FY", unit: 1e6,
		cash: "5555", cashFrom: "balance sheet: cash and equivalents 5,524 + short-term investments 31",
		debt: "67144", debtFrom: "balance sheet: current portion of long-term debt and finance lease obligations 6,804 + long-term debt and finance lease obligations 60,340",
		revenue: "56334", revenueFrom: "income statement: net revenues 56,334",
		debtTag: "LongTermDebtAndCapitalLeaseObligationsCurrent+LongTermDebtAndCapitalLeaseObligations", rTag: "Revenues"},
	{file: "adbe/10k/adbe-10-k-2025-01-13.html", period: "2024-11-29 FY", unit: 1e6,
		cash: "7886", cashFrom: "balance sheet: cash and cash equivalents 7,613 + short-term investments 273 (tagged as their total, CashCashEquivalentsAndShortTermInvestments)",
		debt: "5628", debtFrom: "balance sheet: debt (current) 1,499 + debt (non-current) 4,129",
		revenue: "21505", revenueFrom: "income statement: total revenue 21,505"},
	{file: "amzn/10k/amzn-10-k-2025-02-07.html", period: "2024-12-31 FY", unit: 1e6,
		cash: "101202", cashFrom: "balance sheet: cash and cash equivalents 78,779 + marketable securities 22,423",
		debt: "68393", debtFrom: "balance sheet: long-term debt 52,623; debt note: current portion 5,017 and short-term borrowings 151 (in accrued expenses); lease note: finance lease liabilities 10,602",
		revenue: "637959", revenueFrom: "income statement: total net sales 637,959"},
	{file: "ba/10k/ba-10-k-2025-02-03.html", period: "2024-12-31 FY", unit: 1e6,
		cash: "26282", cashFrom: "balance sheet: cash and cash equivalents 13,801 + short-term and other investments 12,481",
		debt: "53864", debtFrom: "balance sheet: short-term debt and current portion of long-term debt 1,278 + long-term debt 52,586 (finance leases inside)",
		revenue: "66517", revenueFrom: "income statement: total revenues 66,517",
		cashTag: "CashAndCashEquivalentsAtCarryingValue+ShortTermInvestments", debtTag: "DebtCurrent+LongTermDebtAndCapitalLeaseObligations"},
	{file: "ba/10q/ba-10-q-2025-07-29.html", period: "2025-06-30 Q2", unit: 1e6,
		cash: "22967", cashFrom: "balance sheet: cash and cash equivalents 7,087 + short-term and other investments 15,880",
		debt: "53323", debtFrom: "balance sheet: short-term debt and current portion of long-term debt 8,719 + long-term debt 44,604",
		revenue: "22749", revenueFrom: "income statement, three months: total revenues 22,749"},
	{file: "crm/10k/crm-10-k-2025-03-05.html", period: "2025-01-31 FY", unit: 1e6,
		cash: "14032", cashFrom: "balance sheet: cash and cash equivalents 8,848 + marketable securities 5,184",
		debt: "9111", debtFrom: "balance sheet: debt, current 0 + noncurrent debt 8,433; lease note: finance lease liabilities 678",
		revenue: "37895", revenueFrom: "income statement: total revenues 37,895"},
	{file: "googl/10k/googl-10-k-2025-02-05.html", period: "2024-12-31 FY", unit: 1e6,
		cash: "95657", cashFrom: "balance sheet: total cash, cash equivalents, and marketable securities 95,657 (23,466 + 72,191)",
		debt: "15859", debtFrom: "balance sheet: long-term debt 10,883; debt note: commercial paper 2,300 and current portion 999 (in accrued expenses); lease note: finance lease liabilities 1,677",
		revenue: "350018", revenueFrom: "income statement: revenues 350,018",
		cashTag: "CashCashEquivalentsAndShortTermInvestments"},
	{file: "hd/10k/hd-10-k-2025-03-21.html", period: "2025-02-02 FY", unit: 1e6,
		cash: "1659", cashFrom: "balance sheet: cash and cash equivalents 1,659",
		debt: "53383", debtFrom: "balance sheet: short-term debt 316 + current installments of long-term debt 4,582 + long-term debt, excluding current installments 48,485 (both long-term lines include finance leases)",
		revenue: "159514", revenueFrom: "income statement: net sales 159,514",
		debtTag: "CommercialPaper+LongTermDebtAndCapitalLeaseObligationsCurrent+LongTermDebtAndCapitalLeaseObligations"},
	{file: "hubs/10q/hubs-10-q-2025-08-06.html", period: "2025-06-30 Q2", unit: 1e3,
		cash: "1669531", cashFrom: "balance sheet: cash and cash equivalents 601,196 + short-term investments 1,068,335",
		debt: "", debtFrom: "balance sheet: convertible senior notes \"—\" at 2025-06-30, not tagged: no debt figure is filed for the period",
		revenue: "760866", revenueFrom: "income statement, three months: total revenue 760,866"},
	{file: "ibm/10q/ibm-10-q-2025-07-24.html", period: "2025-06-30 Q2", unit: 1e6,
		cash: "15447", cashFrom: "balance sheet: cash and cash equivalents 11,943 + marketable securities 3,504",
		debt: "64164", debtFrom: "balance sheet: short-term debt 8,945 (its current maturities, 8,944, are inside) + long-term debt 55,219",
		revenue: "16977", revenueFrom: "income statement, three months: total revenue 16,977",
		debtTag: "ShortTermBorrowings+LongTermDebtNoncurrent"},
	{file: "jnj/10k/jnj-10-k-2025-02-13.html", period: "2024-12-29 FY", unit: 1e6,
		cash: "24522", cashFrom: "balance sheet: cash and cash equivalents 24,105 + marketable securities 417",
		debt: "36634", debtFrom: "balance sheet: loans and notes payable 5,983 + long-term debt 30,651",
		revenue: "88821", revenueFrom: "income statement: sales to customers 88,821",
		debtTag: "ShortTermBorrowings+LongTermDebtNoncurrent"},
	{file: "jnj/10q/jnj-10-q-2025-07-24.html", period: "2025-06-29 Q2", unit: 1e6,
		cash: "18880", cashFrom: "balance sheet: cash and cash equivalents 18,577 + marketable securities 303",
		debt: "50761", debtFrom: "balance sheet: loans and notes payable 11,526 + long-term debt 39,235",
		revenue: "23743", revenueFrom: "income statement, three months: sales to customers 23,743"},
	{file: "ko/10k/ko-10-k-2025-02-20.html", period: "2024-12-31 FY", unit: 1e6,
		cash: "12848", cashFrom: "balance sheet: total cash, cash equivalents and short-term investments 12,848 (10,828 + 2,020); the 1,723 of marketable securities below it are tagged MarketableSecurities (not current-only, equity included) and not counted",
		debt: "44522", debtFrom: "balance sheet: loans and notes payable 1,499 + current maturities of long-term debt 648 + long-term debt 42,375",
		revenue: "47061", revenueFrom: "income statement: net operating revenues 47,061"},
	{file: "ko/10q/ko-10-q-2025-07-24.html", period: "2025-06-27 Q2", unit: 1e6,
		cash: "12248", cashFrom: "balance sheet: total cash, cash equivalents and short-term investments 12,248",
		debt: "49446", debtFrom: "balance sheet: loans and notes payable 4,379 + current maturities of long-term debt 91 + long-term debt 44,976",
		revenue: "12535", revenueFrom: "income statement, three months: net operating revenues 12,535",
		debtTag: "NotesAndLoansPayable+LongTermDebtAndCapitalLeaseObligationsCurrent+LongTermDebtAndCapitalLeaseObligations"},
	{file: "ma/10k/ma-10-k-2025-02-12.html", period: "2024-12-31 FY", unit: 1e6,
		cash: "8772", cashFrom: "balance sheet: cash and cash equivalents 8,442 + investments (current) 330",
		debt: "18226", debtFrom: "balance sheet: short-term debt 750 + long-term debt 17,476",
		revenue: "28167", revenueFrom: "income statement: net revenue 28,167"},
	{file: "meta/10k/meta-10-k-2025-01-30.html", period: "2024-12-31 FY", unit: 1e6,
		cash: "77815", cashFrom: "balance sheet: cash and cash equivalents 43,889 + marketable securities 33,926",
		debt: "29535", debtFrom: "balance sheet: long-term debt 28,826; lease note: finance lease liabilities 709",
		revenue: "164501", revenueFrom: "income statement: revenue 164,501"},
	{file: "nflx/10k/nflx-10-k-2025-01-27.html", period: "2024-12-31 FY", unit: 1e3,
		cash: "9583739", cashFrom: "balance sheet: cash and cash equivalents 7,804,733 + short-term investments 1,779,006",
		debt: "15582804", debtFrom: "balance sheet: short-term debt 1,784,453 + long-term debt 13,798,351",
		revenue: "39000966", revenueFrom: "income statement: revenues 39,000,966"},
	{file: "nflx/10q/nflx-10-q-2025-07-18.html", period: "2025-06-30 Q2", unit: 1e3,
		cash: "8390520", cashFrom: "balance sheet: cash and cash equivalents 8,177,405 + short-term investments 213,115",
		debt: "14453206", debtFrom: "balance sheet: short-term debt — (tagged 0) + long-term debt 14,453,206",
		revenue: "11079166", revenueFrom: "income statement, three months: revenues 11,079,166"},
	{file: "nke/10k/nke-10-k-2025-07-17.html", period: "2025-05-31 FY", unit: 1e6,
		cash: "9151", cashFrom: "balance sheet: cash and equivalents 7,464 + short-term investments 1,687",
		debt: "7966", debtFrom: "balance sheet: current portion of long-term debt — + notes payable 5 + long-term debt 7,961",
		revenue: "46309", revenueFrom: "income statement: revenues 46,309"},
	{file: "nvda/10k/nvda-10-k-2025-02-26.html", period: "2025-01-26 FY", unit: 1e6,
		cash: "43210", cashFrom: "balance sheet: cash and cash equivalents 8,589 + marketable securities 34,621",
		debt: "8463", debtFrom: "balance sheet: short-term debt — + long-term debt 8,463",
		revenue: "130497", revenueFrom: "income statement: revenue 130,497"},
	{file: "nvda/10q/nvda-10-q-2025-08-27.html", period: "2025-07-27 Q2", unit: 1e6,
		cash: "56791", cashFrom: "balance sheet: cash and cash equivalents 11,639 + marketable securities 45,152",
		debt: "8466", debtFrom: "balance sheet: long-term debt 8,466",
		revenue: "46743", revenueFrom: "income statement, three months: revenue 46,743"},
	{file: "pg/10k/pg-10-k-2025-08-04.html", period: "2025-06-30 FY", unit: 1e6,
		cash: "9556", cashFrom: "balance sheet: cash and cash equivalents 9,556",
		debt: "34508", debtFrom: "balance sheet: debt due within one year 9,513 + long-term debt 24,995",
		revenue: "84284", revenueFrom: "income statement: net sales 84,284"},
	{file: "pg/10q/pg-10-q-2025-04-24.html", period: "2025-03-31 Q3", unit: 1e6,
		cash: "9116", cashFrom: "balance sheet: cash and cash equivalents 9,116",
		debt: "34141", debtFrom: "balance sheet: debt due within one year 9,889 + long-term debt 24,252",
		revenue: "19776", revenueFrom: "income statement, three months: net sales 19,776"},
	{file: "tsla/10k/tsla-10-k-2025-01-30.html", period: "2024-12-31 FY", unit: 1e6,
		cash: "36563", cashFrom: "balance sheet: cash and cash equivalents 16,139 + short-term investments 20,424",
		debt: "8213", debtFrom: "balance sheet: current portion of debt and finance leases 2,456 + debt and finance leases, net of current portion 5,757",
		revenue: "97690", revenueFrom: "income statement: total revenues 97,690"},
	{file: "tsla/10q/tsla-10-q-2025-07-24.html", period: "2025-06-30 Q2", unit: 1e6,
		cash: "36782", cashFrom: "balance sheet: cash and cash equivalents 15,587 + short-term investments 21,195",
		debt: "7220", debtFrom: "balance sheet: current portion of debt and finance leases 2,040 + debt and finance leases, net of current portion 5,180",
		revenue: "22496", revenueFrom: "income statement, three months: total revenues 22,496",
		cashTag: "CashAndCashEquivalentsAtCarryingValue+ShortTermInvestments", debtTag: "DebtCurrent+LongTermDebt+FinanceLeaseLiabilityCurrent+FinanceLeaseLiabilityNoncurrent"},
	{file: "unh/10k/unh-10-k-2025-02-27.html", period: "2024-12-31 FY", unit: 1e6,
		cash: "29113", cashFrom: "balance sheet: cash and cash equivalents 25,312 + short-term investments 3,801",
		debt: "76904", debtFrom: "balance sheet: short-term borrowings and current maturities of long-term debt 4,545 + long-term debt, less current maturities 72,359",
		revenue: "400278", revenueFrom: "income statement: total revenues 400,278"},
	{file: "unp/10k/unp-10-k-2025-02-07.html", period: "2024-12-31 FY", unit: 1e6,
		cash: "1036", cashFrom: "balance sheet: cash and cash equivalents 1,016 + short-term investments 20",
		debt: "31192", debtFrom: "balance sheet: debt due within one year 1,425 + debt due after one year 29,767",
		revenue: "24250", revenueFrom: "income statement: total operating revenues 24,250"},
	{file: "unp/10q/unp-10-q-2025-07-24.html", period: "2025-06-30 Q2", unit: 1e6,
		cash: "1060", cashFrom: "balance sheet: cash and cash equivalents 1,060",
		debt: "32813", debtFrom: "balance sheet: debt due within one year 2,522 + debt due after one year 30,291",
		revenue: "6154", revenueFrom: "income statement, three months: total operating revenues 6,154"},
	{file: "v/10k/v-10-k-2024-11-13.html", period: "2024-09-30 FY", unit: 1e6,
		cash: "15175", cashFrom: "balance sheet: cash and cash equivalents 11,975 + investment securities (current) 3,200",
		debt: "20836", debtFrom: "balance sheet: long-term debt 20,836 (current portion 0)",
		revenue: "35926", revenueFrom: "income statement: net revenue 35,926"},
	{file: "wmt/10k/wmt-10-k-2025-03-14.html", period: "2025-01-31 FY", unit: 1e6,
		cash: "9037", cashFrom: "balance sheet: cash and cash equivalents 9,037",
		debt: "45790", debtFrom: "balance sheet: short-term borrowings 3,068 + long-term debt due within one year 2,598 + finance lease obligations due within one year 800 + long-term debt 33,401 + long-term finance lease obligations 5,923",
		revenue: "680985", revenueFrom: "income statement: total revenues 680,985 (net sales 674,538 + membership and other income)",
		debtTag: "ShortTermBorrowings+LongTermDebtCurrent+LongTermDebtNoncurrent+FinanceLeaseLiability", rTag: "Revenues"},
	{file: "xom/10q/xom-10-q-2025-08-04.html", period: "2025-06-30 Q2", unit: 1e6,
		cash: "14352", cashFrom: "balance sheet: cash and cash equivalents 14,352",
		debt: "38989", debtFrom: "balance sheet: notes and loans payable 5,419 + long-term debt 33,570",
		revenue: "81506", revenueFrom: "income statement, three months: total revenues and other income 81,506"},
}

// TestFiledConceptsByHand checks cash and interest-bearing securities, debt and revenue of every
// shared filing with statements against the figures read from it by hand (filedFigures).
func TestFiledConceptsByHand(t *testing.T) {
	dir := ixDataDir(t)
	companies := map[string]bool{}
	for _, w := range filedFigures {
		companies[strings.SplitN(w.file, "/", 2)[0]] = true
		t.Run(w.file, func(t *testing.T) {
			t.Parallel()
			doc := ixParseFile(t, filepath.Join(dir, w.file))
			fs, err := InlineFundamentals(doc, FilingRef{}, "X")
			if err != nil {
				t.Fatal(err)
			}
			f := entry(t, index(t, fs), w.period)
			for _, c := range []struct {
				field      shariah.Field
				want, from string
				tag        string
			}{
				{shariah.CashAndSecurities, w.cash, w.cashFrom, w.cashTag},
				{shariah.TotalDebt, w.debt, w.debtFrom, w.debtTag},
				{shariah.TotalRevenue, w.revenue, w.revenueFrom, w.rTag},
			} {
				got, ok := f.Facts[c.field]
				if c.want == "" {
					if ok {
						t.Errorf("%s = %s (%s), but the filing gives no figure (%s)", c.field, got.Value, got.Tag, c.from)
					} else if f.Missing[c.field] == "" {
						t.Errorf("%s unmeasured without a reason", c.field)
					}
					continue
				}
				want := decimal.RequireFromString(c.want).Mul(decimal.NewFromInt(w.unit))
				if !ok {
					t.Errorf("%s: unmeasured (%s), want %s from %s", c.field, f.Missing[c.field], want, c.from)
					continue
				}
				if !got.Value.Decimal.Equal(want) {
					t.Errorf("%s = %s (%s), want %s from %s", c.field, got.Value, got.Tag, want, c.from)
				}
				if c.tag != "" && got.Tag != c.tag {
					t.Errorf("%s tag %s, want %s", c.field, got.Tag, c.tag)
				}
			}
		})
	}
	if len(companies) != 24 {
		t.Errorf("%d companies checked, want the 24 with statements", len(companies))
	}
}

// TestFiledTSLACashRatio: Tesla's 10-Q for 2025-06-30 gives cash and short-term investments of 36,782
// against total assets of 128,567 (balance sheet): an AAOIFI cash ratio of 28.61%, under the 30%
// limit. Before short-term investments were counted it read 12.12% (cash alone).
func TestFiledTSLACashRatio(t *testing.T) {
	doc := ixParseFile(t, filepath.Join(ixDataDir(t), "tsla/10q/tsla-10-q-2025-07-24.html"))
	fs, err := InlineFundamentals(doc, FilingRef{}, "TSLA")
	if err != nil {
		t.Fatal(err)
	}
	f := entry(t, index(t, fs), "2025-06-30 Q2")
	cash, assets := f.Facts[shariah.CashAndSecurities].Value.Decimal, f.Facts[shariah.TotalAssets].Value.Decimal
	if got := cash.Mul(decimal.NewFromInt(100)).Div(assets).StringFixed(2); got != "28.61" {
		t.Errorf("cash ratio %s%%, want 28.61%% (36,782 / 128,567)", got)
	}
	if got := f.Facts[shariah.CashAndSecurities].SumText(); got != "CashAndCashEquivalentsAtCarryingValue 15587000000 + ShortTermInvestments 21195000000 = 36782000000" {
		t.Errorf("the sum a reader redoes: %q", got)
	}
}
