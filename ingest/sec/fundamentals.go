package sec

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// DerivedQ4Note is the Fact.Note of a fourth-quarter flow value computed as the fiscal-year value minus
// the first three quarters: companies file no 10-Q for Q4, so a quarterly series needs the derivation,
// and the note keeps it from passing as a reported number.
const DerivedQ4Note = "derived: FY minus Q1-Q3"

// ImpureRevenueMissing is the Missing reason of impure_revenue on every period: XBRL financial
// statements do not break revenue down by (im)permissibility of the activity.
const ImpureRevenueMissing = "not in XBRL filings; revenue from prohibited activities needs segment data"

// SharesTag names the cover-page tag shares outstanding come from.
const SharesTag = "dei:EntityCommonStockSharesOutstanding"

// The recipes of the screening inputs, after the data README's tag table. Each alternative is a list
// of tags summed when present at the same instant; the first alternative with any value wins. Debt and
// cash are assembled from the balance sheet's lines by debtRecipe and cashRecipe; debtTags and
// cashTagsAll name their concepts, to describe a missing input.
var (
	assetsTags = [][]string{{"Assets"}}
	debtTags   = [][]string{{"DebtCurrent"}, {"ShortTermBorrowings"}, {"CommercialPaper"}, {"OtherShortTermBorrowings"}, {"NotesAndLoansPayable"}, {"LongTermDebtCurrent"}, {ltdLeasesCurrent},
		{"LongTermDebtNoncurrent"}, {ltdLeases}, {"LongTermDebt"}, {"ConvertibleDebtCurrent"}, {"ConvertibleNotesPayableCurrent"}, {"ConvertibleDebtNoncurrent"},
		{"ConvertibleNotesPayable"}, {"FinanceLeaseLiability"}, {"FinanceLeaseLiabilityCurrent"}, {"FinanceLeaseLiabilityNoncurrent"}}
	cashTagsAll = [][]string{{"CashAndCashEquivalentsAtCarryingValue"}, {restrictedCashTag}, {"CashCashEquivalentsAndShortTermInvestments"},
		{"ShortTermInvestments"}, {"OtherShortTermInvestments"}, {"MarketableSecuritiesCurrent"}, {"AvailableForSaleSecuritiesDebtSecuritiesCurrent"},
		{"DebtSecuritiesAvailableForSaleExcludingAccruedInterestCurrent"}, {"HeldToMaturitySecuritiesCurrent"}, {"Investments"}}
	// ReceivablesNetCurrent (all current receivables, trade and other, in one line: Walmart, Exxon) is
	// the table's two tags in one; used only when neither of them is reported.
	receivTags   = [][]string{{"AccountsReceivableNetCurrent", "NontradeReceivablesCurrent"}, {"ReceivablesNetCurrent"}}
	inventoryTag = [][]string{{"InventoryNet"}}
	// SalesRevenueNet is the revenue tag of filings before ASC 606 (2018): without it AAPL has no revenue
	// for fiscal 2009-2015. It comes last, after the table's two tags.
	revenueTags = []string{"Revenues", "RevenueFromContractWithCustomerExcludingAssessedTax", "SalesRevenueNet"}
	// interestTags is the table's interest-income row in its order. InvestmentIncomeInterestAndDividend
	// includes dividends: used only when no interest-only tag is reported, it overstates interest
	// income, which errs on the side of caution for a ratio that must stay under a ceiling.
	interestTags = []string{"InvestmentIncomeInterest", "InvestmentIncomeInterestAndDividend", "InterestIncomeOther",
		"InterestIncomeOperating", "InterestAndDividendIncomeOperating"}
)

// The long-term debt tags that include finance-lease obligations.
const (
	ltdLeases        = "LongTermDebtAndCapitalLeaseObligations"
	ltdLeasesCurrent = "LongTermDebtAndCapitalLeaseObligationsCurrent"
)

const restrictedCashTag = "CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents"

// ContradictedPrefix starts the Missing reason of an input whose filed concepts contradict each other
// (a total smaller than its tagged parts, a negative balance): the input is left unmeasured, the
// period's other inputs are kept, and loaders log the reason as a problem (Contradictions).
const ContradictedPrefix = "contradicted by the filing: "

// Concepts of cash and interest-bearing securities and of interest-bearing debt.
const (
	cashTag            = "CashAndCashEquivalentsAtCarryingValue"
	cashAndSTITag      = "CashCashEquivalentsAndShortTermInvestments"
	debtCurrentTag     = "DebtCurrent"
	stBorrowingsTag    = "ShortTermBorrowings"
	ltdCurrentTag      = "LongTermDebtCurrent"
	ltdNoncurrentTag   = "LongTermDebtNoncurrent"
	ltdTag             = "LongTermDebt"
	financeLeaseTag    = "FinanceLeaseLiability"
	financeLeaseCurTag = "FinanceLeaseLiabilityCurrent"
	financeLeaseNCTag  = "FinanceLeaseLiabilityNoncurrent"
	notesLoansTag      = "NotesAndLoansPayable"
	investmentsTag     = "Investments"
	assetsCurrentTag   = "AssetsCurrent"
)

// securityFamilies are the current interest-bearing securities beside cash, one line per family: the
// first concept of a family reported at the instant stands for it (ShortTermInvestments is Boeing's
// line "short-term and other investments", of which OtherShortTermInvestments is a part;
// MarketableSecuritiesCurrent and the available-for-sale debt securities, current, overlap when both
// are reported, and a note's available-for-sale figure may include securities held as cash
// equivalents, so it is no contradiction for it to be the larger). Across families a value equal to
// one already counted is the same line tagged twice and is counted once. None of the 25 filers of the
// shared set tags time deposits apart from these lines.
var securityFamilies = [][]string{
	{"ShortTermInvestments", "OtherShortTermInvestments"},
	{"MarketableSecuritiesCurrent", "AvailableForSaleSecuritiesDebtSecuritiesCurrent", "DebtSecuritiesAvailableForSaleExcludingAccruedInterestCurrent"},
	{"HeldToMaturitySecuritiesCurrent"},
}

// shortTermTags are the short-term borrowing lines summed when the filer tags no ShortTermBorrowings
// total (Coca-Cola: commercial paper plus other short-term borrowings make its "loans and notes
// payable").
var shortTermTags = []string{"CommercialPaper", "OtherShortTermBorrowings"}

// Convertible notes are interest-bearing debt too (Snowflake's only debt from 2024-10-31), counted
// only when no other debt line of their side is reported.
var (
	convertibleCurrentTags    = []string{"ConvertibleDebtCurrent", "ConvertibleNotesPayableCurrent"}
	convertibleNoncurrentTags = []string{"ConvertibleDebtNoncurrent", "ConvertibleNotesPayable"}
)

// Contradictions lists the inputs the mapping left unmeasured because the filing's concepts
// contradict each other, one line each ("TSLA 2025-06-30 Q2 total_debt: contradicted by the filing:
// ..."), in period order, for loaders to log as problems.
func Contradictions(fs []shariah.Fundamentals) []string {
	var out []string
	for _, f := range fs {
		for _, field := range shariah.Fields {
			if r := f.Missing[field]; strings.HasPrefix(r, ContradictedPrefix) {
				out = append(out, fmt.Sprintf("%s %s %s %s: %s", f.Symbol, f.PeriodEnd, f.Period, field, r))
			}
		}
	}
	return out
}

// recipe is the concepts an instant input sums at one period end, why they were chosen where a choice
// was made, and a contradiction that leaves the input unmeasured.
type recipe struct {
	tags  []string
	notes []string
	bad   string
}

func (b *book) has(tag, end string) bool { return len(b.candidates(tag, end, "", 0, 0)) > 0 }

// value is the picked value of tag at the instant end.
func (b *book) value(tag, end string) (decimal.Decimal, bool) {
	o, ok := b.pick(b.candidates(tag, end, "", 0, 0))
	return o.val, ok
}

// tolerance is how far a total may differ from its parts before they contradict: half a percent of
// the total, for rounding (filers round a note's figure: J&J's DebtCurrent "6.0" billion beside its
// balance sheet's $5,983 million).
func tolerance(total decimal.Decimal) decimal.Decimal {
	return total.Abs().Mul(decimal.RequireFromString("0.005"))
}

func sameLine(a, b decimal.Decimal) bool { return a.Sub(b).Abs().LessThanOrEqual(tolerance(a)) }

// precision is the number of significant digits before trailing zeros of a whole amount: 5983000000
// has 4, 6000000000 has 1.
func precision(v decimal.Decimal) int {
	s := strings.TrimRight(v.Abs().Truncate(0).String(), "0")
	return len(s)
}

// atLeastParts reports whether total is no smaller than the sum of the tags reported at end (a total of
// those lines, not a part of them).
func (b *book) atLeastParts(total decimal.Decimal, tags []string, end string) bool {
	sum := decimal.Zero
	for _, t := range tags {
		if v, ok := b.value(t, end); ok {
			sum = sum.Add(v)
		}
	}
	return sum.Sub(total).LessThanOrEqual(tolerance(total))
}

// cashRecipe is cash and interest-bearing securities at end: cash and equivalents plus one line per
// family of current securities (securityFamilies), or the filer's own total of the two,
// CashCashEquivalentsAndShortTermInvestments, when it is tagged (Alphabet, Adobe, Coca-Cola), checked
// against its tagged parts. A balance sheet that shows cash only with restricted cash included
// (Procter & Gamble tags no CashAndCashEquivalentsAtCarryingValue) gives
// CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents instead: it may hold a little
// restricted cash, which errs towards a higher cash ratio.
func (b *book) cashRecipe(end string) recipe {
	var r recipe
	cash := cashTag
	if !b.has(cash, end) && b.has(restrictedCashTag, end) {
		cash = restrictedCashTag
	}
	parts := []string{cash}
	var counted []decimal.Decimal // the securities lines counted
	for _, fam := range securityFamilies {
		for _, tag := range fam {
			v, ok := b.value(tag, end)
			if !ok {
				continue
			}
			dup := false
			for _, c := range counted {
				dup = dup || c.Equal(v)
			}
			if dup {
				r.notes = append(r.notes, fmt.Sprintf("%s %s equals a securities line already counted: counted once", tag, v))
			} else {
				parts = append(parts, tag)
				counted = append(counted, v)
			}
			break
		}
	}
	// Visa and Mastercard tag their current investment securities (Visa's "investment securities"
	// 3,200, Mastercard's "investments" 330, both in current assets) as Investments, a concept that
	// may also total long-term holdings: counted only when no other securities line is reported and
	// the value fits in current assets beside cash.
	if len(parts) == 1 {
		inv, okI := b.value(investmentsTag, end)
		ca, okA := b.value(assetsCurrentTag, end)
		c, okC := b.value(cash, end)
		if okI && okA && okC && inv.IsPositive() && inv.Add(c).LessThanOrEqual(ca) {
			parts = append(parts, investmentsTag)
			r.notes = append(r.notes, "Investments read as the current investment securities: no other securities line is tagged and the value fits in current assets")
		}
	}
	if total, ok := b.value(cashAndSTITag, end); ok {
		sum := decimal.Zero
		var named []string
		for _, t := range parts {
			if v, ok := b.value(t, end); ok && t != restrictedCashTag {
				sum = sum.Add(v)
				named = append(named, t+" "+v.String())
			}
		}
		if sum.Sub(total).GreaterThan(tolerance(total)) {
			r.bad = fmt.Sprintf("%s %s at %s is smaller than its tagged parts (%s)", cashAndSTITag, total, end, strings.Join(named, " + "))
			return r
		}
		r.tags = []string{cashAndSTITag}
		r.notes = append(r.notes, "the filer's own total of cash, cash equivalents and short-term investments")
		return r
	}
	r.tags = parts
	return r
}

// debtRecipe is interest-bearing debt at end, from the balance sheet's lines:
//   - current: DebtCurrent (short-term borrowings and current maturities in one line: Boeing, Tesla,
//     UnitedHealth, Exxon, P&G), else the current maturities of long-term debt
//     (LongTermDebtAndCapitalLeaseObligationsCurrent, finance leases included, or LongTermDebtCurrent)
//     plus the short-term borrowings beside them: ShortTermBorrowings (the total of the short-term
//     lines, commercial paper included: Walmart's $3.07 billion), else NotesAndLoansPayable when it is
//     at least the commercial paper and other short-term borrowings tagged (Coca-Cola), else
//     CommercialPaper plus OtherShortTermBorrowings (Home Depot's commercial paper). A
//     ShortTermBorrowings equal to the current maturities is one line (IBM's "short-term debt" is its
//     current maturities), and a DebtCurrent that is a rounded copy of ShortTermBorrowings gives way
//     to it (J&J);
//   - noncurrent: LongTermDebtNoncurrent, else LongTermDebtAndCapitalLeaseObligations (finance leases
//     included: Home Depot, AbbVie, Coca-Cola, Union Pacific, Boeing, Exxon), else LongTermDebt, which
//     includes the current maturities when LongTermDebtCurrent is tagged beside it (the current part is
//     then not added again) and is the noncurrent line otherwise (Tesla, Adobe);
//   - convertible notes when no other line of their side is reported;
//   - finance-lease liabilities not already inside those lines: FinanceLeaseLiability, else its current
//     and noncurrent parts (Walmart's two balance-sheet lines; Apple, Alphabet, Amazon, Meta, Tesla and
//     Salesforce carry them inside other liabilities and tag them in the lease note). Operating leases
//     are never interest-bearing debt. Every shipped ruleset counts finance leases as interest-bearing
//     debt (none of the published methodologies excludes them); they stay a named component.
//
// A non-zero line equal to one already counted is the same line tagged twice (dedupe).
func (b *book) debtRecipe(end string) recipe {
	var r recipe
	leaseCur, leaseNC := false, false // finance leases already inside the current / noncurrent line
	debtCurrentLine := false
	add := func(tags ...string) {
		for _, t := range tags {
			if b.has(t, end) {
				r.tags = append(r.tags, t)
			}
		}
	}
	currentMaturities := ""
	if dc, ok := b.value(debtCurrentTag, end); ok {
		// The same line tagged twice, once rounded in a note (J&J's DebtCurrent "6.0" billion beside its
		// balance sheet's ShortTermBorrowings $5,983 million): the more precise value.
		if stb, ok := b.value(stBorrowingsTag, end); ok && sameLine(dc, stb) && !stb.Equal(dc) && precision(stb) > precision(dc) {
			add(stBorrowingsTag)
			r.notes = append(r.notes, fmt.Sprintf("%s %s is %s %s rounded: the precise value used", debtCurrentTag, dc, stBorrowingsTag, stb))
		} else {
			add(debtCurrentTag)
		}
		debtCurrentLine = true
	} else {
		switch {
		case b.has(ltdLeasesCurrent, end):
			currentMaturities, leaseCur = ltdLeasesCurrent, true
		case b.has(ltdCurrentTag, end):
			currentMaturities = ltdCurrentTag
		}
		if stb, ok := b.value(stBorrowingsTag, end); ok {
			add(stBorrowingsTag)
			if cm, ok := b.value(currentMaturities, end); ok && cm.IsPositive() && sameLine(stb, cm) {
				r.notes = append(r.notes, fmt.Sprintf("%s %s equals %s %s: one line, counted once", stBorrowingsTag, stb, currentMaturities, cm))
				currentMaturities, leaseCur = "", false
			}
		} else if nlp, ok := b.value(notesLoansTag, end); ok && b.atLeastParts(nlp, shortTermTags, end) {
			// Coca-Cola's balance-sheet line "loans and notes payable", the total of its commercial paper
			// and other short-term borrowings (only the former tagged apart in its 10-Q).
			add(notesLoansTag)
		} else {
			add(shortTermTags...)
		}
		if currentMaturities != "" {
			add(currentMaturities)
		}
		if len(r.tags) == 0 {
			for _, t := range convertibleCurrentTags {
				if b.has(t, end) {
					add(t)
					break
				}
			}
		}
	}
	nc := len(r.tags)
	switch {
	case b.has(ltdNoncurrentTag, end):
		add(ltdNoncurrentTag)
	case b.has(ltdLeases, end):
		add(ltdLeases)
		leaseNC = true
		// A filer whose long-term debt includes its finance leases reports its current debt line the
		// same way (Boeing: DebtCurrent beside LongTermDebtAndCapitalLeaseObligations, its debt and
		// finance-lease total DebtAndCapitalLeaseObligations equal to the two).
		leaseCur = leaseCur || debtCurrentLine
	case b.has(ltdTag, end):
		if currentMaturities == ltdCurrentTag {
			r.tags = slices.DeleteFunc(r.tags, func(t string) bool { return t == ltdCurrentTag })
			r.notes = append(r.notes, ltdTag+" includes its current maturities: "+ltdCurrentTag+" not added again")
		}
		add(ltdTag)
	}
	if len(r.tags) == nc {
		for _, t := range convertibleNoncurrentTags {
			if b.has(t, end) {
				add(t)
				break
			}
		}
	}
	switch {
	case leaseCur && leaseNC:
		r.notes = append(r.notes, "finance-lease obligations are inside the long-term debt lines")
	case leaseCur:
		add(financeLeaseNCTag)
	case leaseNC:
		add(financeLeaseCurTag)
		r.notes = append(r.notes, "noncurrent finance-lease obligations are inside "+ltdLeases)
	default:
		total, ok := b.value(financeLeaseTag, end)
		cur, okC := b.value(financeLeaseCurTag, end)
		ncv, okN := b.value(financeLeaseNCTag, end)
		if ok && (okC || okN) && cur.Add(ncv).Sub(total).GreaterThan(tolerance(total)) {
			r.bad = fmt.Sprintf("%s %s at %s is smaller than its parts (%s %s + %s %s)", financeLeaseTag, total, end,
				financeLeaseCurTag, cur, financeLeaseNCTag, ncv)
			return r
		}
		if ok {
			add(financeLeaseTag)
		} else {
			add(financeLeaseCurTag, financeLeaseNCTag)
		}
	}
	r.tags = b.dedupe(r.tags, end, &r.notes)
	return r
}

// dedupe drops a line whose non-zero value equals one already counted: the same balance-sheet line
// tagged with two concepts (Apple's 2019 commercial paper, 5,980, also tagged
// OtherShortTermBorrowings; NVIDIA's 2016 convertible notes, 1,413, tagged ConvertibleDebtCurrent on
// the balance sheet and LongTermDebt in the debt note).
func (b *book) dedupe(tags []string, end string, notes *[]string) []string {
	var out []string
	var kept []decimal.Decimal
	for _, t := range tags {
		v, _ := b.value(t, end)
		dup := ""
		for i, k := range kept {
			if !v.IsZero() && v.Equal(k) {
				dup = out[i]
			}
		}
		if dup != "" {
			*notes = append(*notes, fmt.Sprintf("%s %s equals %s: one line tagged twice, counted once", t, v, dup))
			continue
		}
		out = append(out, t)
		kept = append(kept, v)
	}
	return out
}

// related are tags outside the recipes that explain an absence: when one is reported for the period,
// the Missing reason names it instead of only saying "not reported", and the value is still not used.
var related = map[shariah.Field][]struct{ tag, why string }{
	shariah.InterestIncome: {
		{"NonoperatingIncomeExpense", "interest not separated"},
		{"InterestIncomeExpenseNonoperatingNet", "net of interest expense; interest income not separated"},
		{"InterestAndOtherIncome", "interest and other income combined"},
	},
	shariah.TotalRevenue: {
		{"RevenueFromContractWithCustomerIncludingAssessedTax", "includes assessed taxes, not in the tag table"},
	},
	shariah.TotalDebt: {
		{"LongTermNotesPayable", "notes payable, not in the tag table"},
	},
}

// Duration windows in days (end minus start): 13-week quarters are 90 or 91 days and 14-week ones 97
// or 98; 52/53-week fiscal years are 363/364 or 370/371 days.
const (
	quarterMin, quarterMax = 80, 100
	yearMin, yearMax       = 350, 380
)

const dateLayout = "2006-01-02"

// obs is a parsed fact of one of the tags the recipes use.
type obs struct {
	Fact
	tag        string
	val        decimal.Decimal
	start, end time.Time // start is zero for instants
}

func (o obs) days() int { return daysBetween(o.start, o.end) }

func daysBetween(a, b time.Time) int { return int(b.Sub(a).Hours() / 24) }

// filing is what companyfacts tells about one accession: its form and filing date, its own period
// end (the latest Assets instant it reports, else its latest duration end) and the start of the
// longest duration ending there (the fiscal year-to-date), from which its fiscal period follows.
type filing struct {
	accn, form, filed, fp string
	fy                    int
	end                   string
	ytdStart              time.Time
	assetsEnd, durEnd     string
}

// isPeriodForm reports the periodic reports that define a fiscal period (amendments included).
func isPeriodForm(form string) bool {
	base := strings.TrimSuffix(form, "/A")
	return base == "10-K" || base == "10-Q"
}

// label is the fiscal period of a periodic report. The year-to-date duration decides, because the
// filers' own fp is not reliable (Snowflake tagged its FY2023 Q1 10-Q "FY"; NVIDIA tagged its FY2011
// Q1 10-Q "Q2"); fp is the fallback when the filing reports no duration.
func (f *filing) label() (string, bool) {
	days := -1
	if !f.ytdStart.IsZero() {
		end, _ := time.Parse(dateLayout, f.end)
		days = daysBetween(f.ytdStart, end)
	}
	switch strings.TrimSuffix(f.form, "/A") {
	case "10-K":
		if (days >= yearMin && days <= yearMax) || (days < 0 && f.fp == "FY") {
			return "FY", true
		}
	case "10-Q":
		switch {
		case days >= 0 && days <= 135:
			return "Q1", true
		case days > 135 && days <= 225:
			return "Q2", true
		case days > 225 && days <= 300:
			return "Q3", true
		case days < 0 && (f.fp == "Q1" || f.fp == "Q2" || f.fp == "Q3"):
			return f.fp, true
		}
	}
	return "", false
}

// fiscalYear is the fiscal year by the calendar year in which a fiscal year starting at ytdStart ends
// (ytdStart plus one year minus a day, so a 53-week year ending on 2 January counts with the previous
// year), shifted by the filer's own convention (see calibrate). Without a duration, the filing's fy.
func (f *filing) fiscalYear(offset int) int {
	if f.ytdStart.IsZero() {
		return f.fy
	}
	return f.ytdStart.AddDate(1, 0, -1).Year() + offset
}

// book indexes a company's facts for the recipes.
type book struct {
	cik     string
	gaap    map[string][]obs // used tags, USD facts only
	cover   []obs            // dei:EntityCommonStockSharesOutstanding
	filings map[string]*filing
	byEnd   map[string][]*filing // periodic reports by their own period end
}

// period is one fiscal period to emit.
type period struct {
	end, label string
	fy         int
	orig       *filing // the first periodic report of this end
}

// Fundamentals turns companyfacts into one shariah.Fundamentals per fiscal quarter and fiscal year
// (oldest first), each input with its provenance: the accession number, form and filing date of the
// filing that first reported it, and the XBRL tags it came from.
//
// Periods are those of the company's 10-Q and 10-K filings (amendments included), keyed by period
// end; the label (Q1..Q3 from the year-to-date length, FY for a 10-K) and the fiscal year are computed
// from the reported durations, because filers' fy/fp tags are sometimes wrong (see label, calibrate).
// A 10-K yields a "Q4" entry (instants from the 10-K, flows derived as FY minus Q1-Q3) and an "FY"
// entry. Balance-sheet inputs are instants at the period end; revenue and interest income are the
// 3-month (quarters) or 12-month (FY) durations ending there. Among several filings reporting the same
// value, the earliest filed wins; when their values differ, the period's own filing (original, then
// amendments) wins over later comparatives and earlier releases. Inputs that are not reported are
// left out of Facts, with the reason in Missing: nothing is guessed. Periods with neither total
// assets nor revenue are dropped. Money is read from the USD unit only. Debt adds CommercialPaper to
// the balance sheet's lines and finance-lease liabilities (see debtRecipe); cash and interest-bearing
// securities from cash plus the current securities lines (see cashRecipe). An input whose concepts
// contradict each other (a total smaller than its tagged parts, a negative balance) is left out with
// a Missing reason starting with ContradictedPrefix; the period's other inputs stay.
func Fundamentals(cf CompanyFacts, symbol string) ([]shariah.Fundamentals, error) {
	b, err := newBook(cf)
	if err != nil {
		return nil, err
	}
	var out []shariah.Fundamentals
	for _, p := range b.periods() {
		f, err := b.fundamentals(p, symbol)
		if err != nil {
			return nil, err
		}
		_, assets := f.Facts[shariah.TotalAssets]
		_, revenue := f.Facts[shariah.TotalRevenue]
		if assets || revenue {
			out = append(out, f)
		}
	}
	shariah.SortFundamentals(out)
	return out, nil
}

// usedTags are the us-gaap tags parsed into obs.
func usedTags() []string {
	var tags []string
	for _, alts := range [][][]string{assetsTags, debtTags, cashTagsAll, receivTags, inventoryTag,
		{revenueTags, interestTags, {assetsCurrentTag, notesLoansTag}}} {
		for _, alt := range alts {
			tags = append(tags, alt...)
		}
	}
	for _, rs := range related {
		for _, r := range rs {
			tags = append(tags, r.tag)
		}
	}
	return tags
}

func parseObs(tag string, f Fact) (obs, error) {
	o := obs{Fact: f, tag: tag}
	var err error
	if o.val, err = decimal.NewFromString(f.Val.String()); err != nil {
		return obs{}, fmt.Errorf("companyfacts %s %s (%s): value %q: %w", tag, f.End, f.Accn, f.Val, err)
	}
	if o.end, err = time.Parse(dateLayout, f.End); err != nil {
		return obs{}, fmt.Errorf("companyfacts %s (%s): end: %w", tag, f.Accn, err)
	}
	if f.Start != "" {
		if o.start, err = time.Parse(dateLayout, f.Start); err != nil {
			return obs{}, fmt.Errorf("companyfacts %s (%s): start: %w", tag, f.Accn, err)
		}
	}
	if f.Accn == "" || f.Filed == "" {
		return obs{}, fmt.Errorf("companyfacts %s %s: fact without accession number or filing date", tag, f.End)
	}
	return o, nil
}

func newBook(cf CompanyFacts) (*book, error) {
	gaap := cf.Facts["us-gaap"]
	if len(gaap) == 0 {
		return nil, fmt.Errorf("cik %s: %w", cf.CIK, ErrNoUSGAAP)
	}
	b := &book{cik: string(cf.CIK), gaap: map[string][]obs{}, filings: map[string]*filing{}, byEnd: map[string][]*filing{}}
	if err := b.readObs(cf); err != nil {
		return nil, err
	}
	b.readFilings(cf)
	b.readYearToDate(gaap)
	for _, fl := range b.filings {
		if isPeriodForm(fl.form) && fl.end != "" {
			b.byEnd[fl.end] = append(b.byEnd[fl.end], fl)
		}
	}
	for _, fls := range b.byEnd {
		sort.Slice(fls, func(i, j int) bool {
			if fls[i].filed != fls[j].filed {
				return fls[i].filed < fls[j].filed
			}
			return fls[i].accn < fls[j].accn
		})
	}
	return b, nil
}

// readObs reads the USD facts of the tags the recipes use and the cover page's shares outstanding.
func (b *book) readObs(cf CompanyFacts) error {
	gaap := cf.Facts["us-gaap"]
	for _, tag := range usedTags() {
		if _, done := b.gaap[tag]; done {
			continue
		}
		var list []obs
		for _, f := range gaap[tag].Units["USD"] {
			o, err := parseObs(tag, f)
			if err != nil {
				return err
			}
			list = append(list, o)
		}
		b.gaap[tag] = list
	}
	for _, f := range cf.Facts["dei"]["EntityCommonStockSharesOutstanding"].Units["shares"] {
		o, err := parseObs(SharesTag, f)
		if err != nil {
			return err
		}
		b.cover = append(b.cover, o)
	}
	return nil
}

// readFilings lists every accession of any taxonomy, with its own period end from its us-gaap facts:
// the latest Assets instant, else the latest duration end.
func (b *book) readFilings(cf CompanyFacts) {
	for taxonomy, concepts := range cf.Facts {
		for tag, c := range concepts {
			for unit, facts := range c.Units {
				for _, f := range facts {
					fl := b.filings[f.Accn]
					if fl == nil {
						fl = &filing{accn: f.Accn, form: f.Form, filed: f.Filed, fp: f.FP, fy: f.FY}
						b.filings[f.Accn] = fl
					}
					if taxonomy != "us-gaap" {
						continue
					}
					if tag == "Assets" && unit == "USD" && f.Start == "" && f.End > fl.assetsEnd {
						fl.assetsEnd = f.End
					}
					if f.Start != "" && f.End > fl.durEnd {
						fl.durEnd = f.End
					}
				}
			}
		}
	}
	for _, fl := range b.filings {
		fl.end = fl.assetsEnd
		if fl.end == "" {
			fl.end = fl.durEnd
		}
	}
}

// readYearToDate sets the year-to-date start of each filing: the longest us-gaap duration of at most
// a year ending at its end.
func (b *book) readYearToDate(gaap map[string]Concept) {
	for _, c := range gaap {
		for _, facts := range c.Units {
			for _, f := range facts {
				fl := b.filings[f.Accn]
				if f.Start == "" || fl == nil || f.End != fl.end {
					continue
				}
				start, err1 := time.Parse(dateLayout, f.Start)
				end, err2 := time.Parse(dateLayout, f.End)
				if err1 != nil || err2 != nil || daysBetween(start, end) > yearMax {
					continue
				}
				if fl.ytdStart.IsZero() || start.Before(fl.ytdStart) {
					fl.ytdStart = start
				}
			}
		}
	}
}

// calibrate returns the filer's fiscal-year naming offset against fiscalYear's calendar rule, read
// from its latest 10-K: NVIDIA's fiscal 2024 ends in January 2024 (offset 0) while a retailer may call
// the year ending in January 2024 fiscal 2023 (offset -1). Only the latest 10-K is trusted because
// older DEI tags are the ones found wrong (NVIDIA's 10-Ks for fiscal 2011 to 2021 carry fy one less).
func (b *book) calibrate() int {
	var latest *filing
	for _, fls := range b.byEnd {
		for _, fl := range fls {
			if l, ok := fl.label(); ok && l == "FY" && !fl.ytdStart.IsZero() && fl.fy != 0 &&
				(latest == nil || fl.end > latest.end) {
				latest = fl
			}
		}
	}
	if latest == nil {
		return 0
	}
	off := latest.fy - latest.ytdStart.AddDate(1, 0, -1).Year()
	if off < -1 || off > 1 {
		return 0
	}
	return off
}

// periods lists the fiscal periods, one per period end of a periodic report (two for a 10-K).
func (b *book) periods() []period {
	off := b.calibrate()
	var out []period
	for end, fls := range b.byEnd {
		for _, fl := range fls {
			l, ok := fl.label()
			if !ok {
				continue
			}
			fy := fl.fiscalYear(off)
			if l == "FY" {
				out = append(out, period{end: end, label: "Q4", fy: fy, orig: fl})
			}
			out = append(out, period{end: end, label: l, fy: fy, orig: fl})
			break
		}
	}
	return out
}

// isOwn reports whether accn is a periodic report whose own period ends at end.
func (b *book) isOwn(accn, end string) bool {
	fl := b.filings[accn]
	return fl != nil && isPeriodForm(fl.form) && fl.end == end
}

// candidates are the facts of tag ending at end: instants when start is "" and minDays is 0, else
// durations of minDays..maxDays days, also starting at start when start is not "".
func (b *book) candidates(tag, end, start string, minDays, maxDays int) []obs {
	var out []obs
	for _, o := range b.gaap[tag] {
		if end != "" && o.End != end {
			continue
		}
		if minDays == 0 {
			if o.Start == "" {
				out = append(out, o)
			}
			continue
		}
		if o.Start == "" || (start != "" && o.Start != start) {
			continue
		}
		if d := o.days(); d >= minDays && d <= maxDays {
			out = append(out, o)
		}
	}
	return out
}

// pick chooses among facts for one period: the earliest filed when all agree; when values differ, the
// earliest of the period's own filings (the fact's end is the filing's period end), so a restatement
// in a later comparative or an earlier release does not replace the period's own report.
func (b *book) pick(cands []obs) (obs, bool) {
	if len(cands) == 0 {
		return obs{}, false
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Filed != cands[j].Filed {
			return cands[i].Filed < cands[j].Filed
		}
		return cands[i].Accn < cands[j].Accn
	})
	agree := true
	for _, c := range cands[1:] {
		if !c.val.Equal(cands[0].val) {
			agree = false
			break
		}
	}
	if !agree {
		for _, c := range cands {
			if b.isOwn(c.Accn, c.End) {
				return c, true
			}
		}
	}
	return cands[0], true
}

// fact builds the provenance of one picked value; periodEnd is the period it is used for.
func (b *book) fact(o obs, val decimal.Decimal, tag, periodEnd string) shariah.Fact {
	f := shariah.Fact{Value: shariah.NewNumber(val), Source: shariah.SourceFiling, Ref: o.Accn,
		Filed: o.Filed, Form: o.Form, Tag: tag, Document: o.Doc, CIK: b.cik}
	if !b.isOwn(o.Accn, periodEnd) {
		f.Note = fmt.Sprintf("reported in %s %s, not in the period's own filing", o.Form, o.Accn)
	}
	return f
}

// joinNotes joins the non-empty notes with "; ".
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// instant sums the first alternative with any tag reported at end.
func (b *book) instant(alts [][]string, end string) (shariah.Fact, bool) {
	for _, alt := range alts {
		var parts []obs
		for _, tag := range alt {
			if o, ok := b.pick(b.candidates(tag, end, "", 0, 0)); ok {
				parts = append(parts, o)
			}
		}
		if len(parts) == 0 {
			continue
		}
		sum := decimal.Zero
		var tags, refs []string
		mixed := false
		for _, p := range parts {
			sum = sum.Add(p.val)
			tags = append(tags, p.tag)
			refs = append(refs, p.tag+" "+p.Accn)
			mixed = mixed || p.Accn != parts[0].Accn
		}
		// The provenance is the period's own filing when a part comes from it.
		ref := parts[0]
		for _, p := range parts {
			if b.isOwn(p.Accn, end) {
				ref = p
				break
			}
		}
		f := b.fact(ref, sum, strings.Join(tags, "+"), end)
		if mixed {
			f.Note = joinNotes(f.Note, "components from several filings: "+strings.Join(refs, ", "))
		}
		if len(parts) > 1 {
			for _, p := range parts {
				f.Components = append(f.Components, shariah.Component{Concept: p.tag, Value: shariah.NewNumber(p.val)})
			}
		}
		return f, true
	}
	return shariah.Fact{}, false
}

// negative names the first of a balance's parts filed negative at end, "" when none is: a balance of
// cash, securities, debt or assets is never below zero.
func (b *book) negative(tags []string, end string) string {
	for _, t := range tags {
		if v, ok := b.value(t, end); ok && v.IsNegative() {
			return fmt.Sprintf("%s at %s is negative (%s)", t, end, v)
		}
	}
	return ""
}

// flow finds a duration input for a period: the 3-month value for Q1..Q3, the fiscal-year value for
// FY, and for Q4 the fiscal-year value minus the three quarters, else a reported 3-month value.
func (b *book) flow(tags []string, p period) (shariah.Fact, bool) {
	for _, tag := range tags {
		switch p.label {
		case "FY":
			if o, ok := b.pick(b.candidates(tag, p.end, "", yearMin, yearMax)); ok {
				return b.fact(o, o.val, tag, p.end), true
			}
		case "Q4":
			if f, ok := b.deriveQ4(tag, p.end); ok {
				return f, true
			}
			fallthrough
		default:
			if o, ok := b.pick(b.candidates(tag, p.end, "", quarterMin, quarterMax)); ok {
				return b.fact(o, o.val, tag, p.end), true
			}
		}
	}
	return shariah.Fact{}, false
}

// revenue is the period's total revenue: Revenues or RevenueFromContractWithCustomerExcludingAssessedTax,
// the larger when both are reported, since Revenues is the total and revenue from contracts with
// customers a part of it (Walmart's total revenues include membership and other income beside its net
// sales); SalesRevenueNet (before ASC 606) when neither is.
func (b *book) revenue(p period) (shariah.Fact, bool) {
	var best shariah.Fact
	found := false
	var seen []string
	for _, tag := range revenueTags[:2] {
		f, ok := b.flow([]string{tag}, p)
		if !ok {
			continue
		}
		seen = append(seen, tag+" "+f.Value.Decimal.String())
		if !found || f.Value.Decimal.GreaterThan(best.Value.Decimal) {
			best, found = f, true
		}
	}
	if !found {
		return b.flow(revenueTags[2:], p)
	}
	if len(seen) == 2 {
		if a, c := strings.Fields(seen[0])[1], strings.Fields(seen[1])[1]; a != c {
			best.Note = joinNotes(best.Note, "the larger of "+strings.Join(seen, " and ")+": total revenues include revenue beside that from contracts with customers")
		}
	}
	return best, true
}

// deriveQ4 computes the fourth quarter of tag for the fiscal year ending at end: the FY value minus
// three consecutive 3-month quarters starting at the fiscal year's start. The chain must leave a
// fourth quarter of quarter length, so a missing or overlapping quarter fails rather than misleads.
func (b *book) deriveQ4(tag, end string) (shariah.Fact, bool) {
	fy, ok := b.pick(b.candidates(tag, end, "", yearMin, yearMax))
	if !ok {
		return shariah.Fact{}, false
	}
	val := fy.val
	start := fy.start
	for i := 0; i < 3; i++ {
		q, ok := b.pick(b.candidates(tag, "", start.Format(dateLayout), quarterMin, quarterMax))
		if !ok || !q.end.Before(fy.end) {
			return shariah.Fact{}, false
		}
		val = val.Sub(q.val)
		start = q.end.AddDate(0, 0, 1)
	}
	if d := daysBetween(start, fy.end); d < quarterMin || d > quarterMax {
		return shariah.Fact{}, false
	}
	f := b.fact(fy, val, tag, end)
	f.Note = joinNotes(DerivedQ4Note, f.Note)
	return f, true
}

// shares reads the cover-page shares outstanding of the period's own filings (original first): the
// values at the filing's latest instant (near the filing date, kept in AsOf). A multi-class issuer
// (GOOGL, META, V) reports one value per class of common stock; market cap needs them all, so they are
// summed share for share and the classes are named in the fact. The inline-XBRL reader names each
// class (Fact.Class); companyfacts drops the dimension, so its values at one instant are summed as
// distinct classes (equal values are taken as one repeated fact) and the note says the classes are not
// named.
func (b *book) shares(p period) (shariah.Fact, string) {
	var accns []string
	for _, fl := range b.byEnd[p.end] {
		accns = append(accns, fl.accn)
	}
	for _, accn := range accns {
		var got []obs
		for _, o := range b.cover {
			if o.Accn == accn {
				got = append(got, o)
			}
		}
		if len(got) == 0 {
			continue
		}
		sort.SliceStable(got, func(i, j int) bool { return got[i].End > got[j].End })
		var at []obs // the values at the latest instant, one per class
		seen := map[string]bool{}
		for _, o := range got {
			key := o.Class
			if key == "" {
				key = "value " + o.val.String()
			}
			if o.End != got[0].End || seen[key] {
				continue
			}
			seen[key] = true
			at = append(at, o)
		}
		sum := decimal.Zero
		for _, o := range at {
			sum = sum.Add(o.val)
		}
		f := b.fact(at[0], sum, SharesTag, p.end)
		f.AsOf = at[0].End
		if len(at) > 1 {
			var parts []string
			named := true
			for _, o := range at {
				named = named && o.Class != ""
				f.Classes = append(f.Classes, shariah.ShareClass{Class: o.Class, Shares: shariah.NewNumber(o.val)})
				parts = append(parts, strings.TrimSpace(o.Class+" "+o.val.String()))
			}
			f.Note = joinNotes(fmt.Sprintf("sum of %d share classes on the cover page (%s), counted share for share", len(at), strings.Join(parts, ", ")), f.Note)
			if !named {
				f.Note += "; companyfacts does not name the classes"
			}
		}
		return f, ""
	}
	return shariah.Fact{}, fmt.Sprintf("not reported: no %s on the cover page of filing %s", SharesTag,
		strings.Join(accns, " or "))
}

// missing explains an absent input: a related tag the filer reports for the period if any, else what
// was looked for ("no InventoryNet at 2024-04-30").
func (b *book) missing(field shariah.Field, tags []string, p period, what string) string {
	for _, r := range related[field] {
		for _, o := range b.gaap[r.tag] {
			if o.End == p.end {
				return fmt.Sprintf("not reported; the filer reports only %s (%s)", r.tag, r.why)
			}
		}
	}
	return fmt.Sprintf("not reported: no %s", fmt.Sprintf(what, strings.Join(tags, " or "), p.end))
}

func flatten(alts [][]string) []string {
	var out []string
	for _, a := range alts {
		out = append(out, strings.Join(a, "+"))
	}
	return out
}

func (b *book) fundamentals(p period, symbol string) (shariah.Fundamentals, error) {
	f := shariah.Fundamentals{Symbol: symbol, PeriodEnd: p.end, Period: p.label, FiscalYear: p.fy,
		Currency: "USD", Facts: map[shariah.Field]shariah.Fact{}, Missing: map[shariah.Field]string{}}
	debt, cash := b.debtRecipe(p.end), b.cashRecipe(p.end)
	for _, in := range []struct {
		field shariah.Field
		alts  [][]string
		r     *recipe
		desc  [][]string
	}{
		{shariah.TotalAssets, assetsTags, nil, assetsTags},
		{shariah.TotalDebt, [][]string{debt.tags}, &debt, debtTags},
		{shariah.CashAndSecurities, [][]string{cash.tags}, &cash, cashTagsAll},
		{shariah.Receivables, receivTags, nil, receivTags},
		{shariah.Inventory, inventoryTag, nil, inventoryTag},
	} {
		bad := ""
		if in.r != nil {
			bad = in.r.bad
		}
		if bad == "" && in.field != shariah.Receivables && in.field != shariah.Inventory {
			for _, alt := range in.alts {
				if bad = b.negative(alt, p.end); bad != "" {
					break
				}
			}
		}
		if bad != "" {
			f.Missing[in.field] = ContradictedPrefix + bad
			continue
		}
		if fact, ok := b.instant(in.alts, p.end); ok {
			if in.r != nil {
				fact.Note = joinNotes(fact.Note, strings.Join(in.r.notes, "; "))
			}
			f.Facts[in.field] = fact
		} else {
			f.Missing[in.field] = b.missing(in.field, flatten(in.desc), p, "%s at %s")
		}
	}
	what := map[string]string{"FY": "fiscal-year %s ending %s",
		"Q4": "fiscal-year and three 3-month values of %s to derive the quarter ending %s"}[p.label]
	if what == "" {
		what = "3-month %s ending %s"
	}
	for _, in := range []struct {
		field shariah.Field
		tags  []string
	}{
		{shariah.TotalRevenue, revenueTags},
		{shariah.InterestIncome, interestTags},
	} {
		fact, ok := b.flow(in.tags, p)
		if in.field == shariah.TotalRevenue {
			fact, ok = b.revenue(p)
		}
		if ok {
			f.Facts[in.field] = fact
		} else {
			f.Missing[in.field] = b.missing(in.field, in.tags, p, what)
		}
	}
	if fact, why := b.shares(p); why == "" {
		f.Facts[shariah.SharesOutstanding] = fact
	} else {
		f.Missing[shariah.SharesOutstanding] = why
	}
	f.Missing[shariah.ImpureRevenue] = ImpureRevenueMissing
	return f, nil
}
