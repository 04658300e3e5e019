package sec

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// ---------------------------------------------------------------------------------------------------
// helpers

// ixDataDir is the shared inline-XBRL folder (SHARIAH_DATA_DIR/sec/ixbrl, else ../../../shared/data),
// or a skip: the real filings are not part of the repository.
func ixDataDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	ix := filepath.Join(dir, "sec", "ixbrl")
	if _, err := os.Stat(ix); err != nil {
		tb.Skipf("inline-XBRL filings not found at %s (set SHARIAH_DATA_DIR to the shared data folder): %v", ix, err)
	}
	return ix
}

// ixFiles lists the shared filings, relative to the folder ("aapl/10k/aapl-10-k-2024-11-01.html").
func ixFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "*", "*.html"))
	if err != nil {
		tb.Fatal(err)
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(dir, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	sort.Strings(rel)
	return rel
}

func ixParseFile(tb testing.TB, path string) *IXDocument {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	d, err := ParseInlineXBRL(f, filepath.Base(path))
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

func ixParseString(t *testing.T, name, doc string) (*IXDocument, error) {
	t.Helper()
	return ParseInlineXBRL(strings.NewReader(doc), name)
}

// ixFixture parses testdata/ixbrl/exa-10-k-2025-02-20.html (hand-written, Example Corp).
func ixFixture(t *testing.T) *IXDocument {
	t.Helper()
	return ixParseFile(t, filepath.Join("testdata", "ixbrl", "exa-10-k-2025-02-20.html"))
}

// ixFind returns the facts of a concept, optionally at one end date.
func ixFind(d *IXDocument, concept, end string) []IXFact {
	var out []IXFact
	for _, f := range d.Facts {
		if f.Concept == concept && (end == "" || f.End == end) {
			out = append(out, f)
		}
	}
	return out
}

// ixOne returns the one non-dimensional fact of a concept at an end date.
func ixOne(t *testing.T, d *IXDocument, concept, end string) IXFact {
	t.Helper()
	var got []IXFact
	for _, f := range ixFind(d, concept, end) {
		if !f.Dimensional {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%s: %d non-dimensional facts of %s at %s, want 1: %+v", d.Name, len(got), concept, end, got)
	}
	return got[0]
}

func ixDec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// ixTiny is a minimal inline-XBRL document: one instant context "i" (2024-12-31), one duration
// context "d" (2024), units usd, shares and usdPerShare, and the given facts in the body.
func ixTiny(facts string) string {
	return `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL" xmlns:xbrli="http://www.xbrl.org/2003/instance"
 xmlns:xbrldi="http://xbrl.org/2006/xbrldi" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><head><title>tiny</title></head><body>
<div style="display:none"><ix:header><ix:hidden>
<ix:nonNumeric name="dei:DocumentType" contextRef="d" id="f-dt">10-Q</ix:nonNumeric>
<ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="d" id="f-cik">1234567</ix:nonNumeric>
</ix:hidden><ix:resources>
<xbrli:context id="i"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0001234567</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:instant>2024-12-31</xbrli:instant></xbrli:period></xbrli:context>
<xbrli:context id="d"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0001234567</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:startDate>2024-01-01</xbrli:startDate><xbrli:endDate>2024-12-31</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
<xbrli:unit id="shares"><xbrli:measure>xbrli:shares</xbrli:measure></xbrli:unit>
<xbrli:unit id="usdPerShare"><xbrli:divide><xbrli:unitNumerator><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unitNumerator><xbrli:unitDenominator><xbrli:measure>xbrli:shares</xbrli:measure></xbrli:unitDenominator></xbrli:divide></xbrli:unit>
</ix:resources></ix:header></div>
<p>` + facts + `</p>
</body></html>`
}

// ---------------------------------------------------------------------------------------------------
// hand-written documents: one rule each

// TestIXFormats: every value format SEC filings use, with scale and sign.
func TestIXFormats(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		format, text, scale, sign, want string
	}{
		{"ixt:num-dot-decimal", "1,234,567.89", "", "", "1234567.89"},
		{"ixt:num-dot-decimal", "1 234", "", "", "1234"},
		{"ixt:num-dot-decimal", "&#160;364,980&#160;", "6", "", "364980000000"},
		{"ixt:num-dot-decimal", "0.5", "", "", "0.5"},
		{"ixt:numdotdecimal", "2,500.5", "3", "", "2500500"},
		{"ixt:num-comma-decimal", "1.234,5", "", "", "1234.5"},
		{"ixt:numcommadecimal", "12,75", "-2", "", "0.1275"},
		{"ixt:fixed-zero", "&#8212;", "6", "", "0"},
		{"ixt:fixed-zero", "-", "", "", "0"},
		{"ixt:zerodash", "&#8211;", "6", "", "0"},
		{"ixt:zerodash", "&#8212;", "", "", "0"},
		{"ixt:zerodash", " - ", "", "", "0"},
		{"ixt-sec:numwordsen", "None", "", "", "0"},
		{"ixt-sec:numwordsen", "no", "", "", "0"},
		{"ixt-sec:numwordsen", "zero", "", "", "0"},
		{"ixt-sec:numwordsen", "one", "", "", "1"},
		{"ixt-sec:numwordsen", "Three", "", "", "3"},
		{"ixt-sec:numwordsen", "twenty-five", "", "", "25"},
		{"ixt-sec:numwordsen", "one hundred", "", "", "100"},
		{"ixt-sec:numwordsen", "two thousand three hundred and five", "", "", "2305"},
		{"ixt-sec:numwordsen", "five", "6", "", "5000000"},
		{"ixt:num-unit-decimal", "5 dollars and 20 cents", "", "", "5.2"},
		{"ixt:num-unit-decimal", "1 pound 5 pence", "", "", "1.05"},
		{"ixt:num-unit-decimal", "12 dollars", "", "", "12"},
		{"", "860", "6", "", "860000000"},
		{"", "1.25", "", "-", "-1.25"},
		{"ixt:num-dot-decimal", "150", "6", "-", "-150000000"},
		{"ixt:num-dot-decimal", "21.0", "-2", "", "0.21"},
		{"ixt:num-dot-decimal", "<span>45</span><b>.</b>6", "6", "", "45600000"},
	} {
		format := ""
		if c.format != "" {
			format = ` format="` + c.format + `"`
		}
		attrs := format
		if c.scale != "" {
			attrs += ` scale="` + c.scale + `"`
		}
		if c.sign != "" {
			attrs += ` sign="` + c.sign + `"`
		}
		doc := ixTiny(`<ix:nonFraction name="us-gaap:Assets" contextRef="i" unitRef="usd" decimals="INF" id="f-1"` + attrs + `>` + c.text + `</ix:nonFraction>`)
		d, err := ixParseString(t, "fmt.html", doc)
		if err != nil {
			t.Errorf("%s %q: %v", c.format, c.text, err)
			continue
		}
		f := ixOne(t, d, "us-gaap:Assets", "2024-12-31")
		if !f.Value.Equal(ixDec(c.want)) {
			t.Errorf("%s %q scale %q sign %q = %s, want %s", c.format, c.text, c.scale, c.sign, f.Value, c.want)
		}
	}
}

// TestIXErrors: each failure names the document and, when a fact is at fault, its concept and id.
func TestIXErrors(t *testing.T) {
	t.Parallel()
	full := ixTiny(`<ix:nonFraction name="us-gaap:Assets" contextRef="i" unitRef="usd" decimals="INF" id="f-1">5</ix:nonFraction>`)
	fact := func(name, format, text string) string {
		return ixTiny(`<ix:nonFraction name="` + name + `" contextRef="i" unitRef="usd" decimals="INF" id="f-bad" format="` + format + `">` + text + `</ix:nonFraction>`)
	}
	for _, c := range []struct {
		what, doc string
		is        error
		want      []string
	}{
		{"plain HTML", `<html><body><p>Annual report</p><table><tr><td>1,234</td></tr></table></body></html>`,
			ErrNotInlineXBRL, []string{"bad.html", "not an inline XBRL document"}},
		{"header without facts", `<html><body><ix:header><ix:resources></ix:resources></ix:header></body></html>`,
			ErrNotInlineXBRL, []string{"bad.html"}},
		{"truncated inside a fact", full[:strings.Index(full, `>5<`)+2], ErrTruncated,
			[]string{"bad.html", "us-gaap:Assets", `"f-1"`}},
		{"truncated inside a tag", full[:strings.Index(full, `unitRef="usd" decimals="INF" id="f-1"`)], ErrTruncated,
			[]string{"bad.html"}},
		{"truncated inside the header", full[:strings.Index(full, `<xbrli:unit id="shares"`)], ErrTruncated,
			[]string{"bad.html"}},
		{"truncated before </html>", full[:strings.Index(full, `</body>`)], ErrTruncated,
			[]string{"bad.html", "</html>"}},
		{"missing context", ixTiny(`<ix:nonFraction name="us-gaap:Assets" contextRef="c-99" unitRef="usd" decimals="INF" id="f-7">5</ix:nonFraction>`),
			nil, []string{"bad.html", "us-gaap:Assets", `"f-7"`, `context "c-99" is not defined`}},
		{"missing context of a text fact", ixTiny(`<ix:nonNumeric name="us-gaap:PolicyTextBlock" contextRef="nowhere" id="f-8">text</ix:nonNumeric>`),
			nil, []string{"bad.html", "us-gaap:PolicyTextBlock", `"f-8"`, `context "nowhere"`}},
		{"missing unit", ixTiny(`<ix:nonFraction name="us-gaap:Assets" contextRef="i" unitRef="eur" decimals="INF" id="f-9">5</ix:nonFraction>`),
			nil, []string{"bad.html", "us-gaap:Assets", `"f-9"`, `unit "eur" is not defined`}},
		{"no unitRef", ixTiny(`<ix:nonFraction name="us-gaap:Assets" contextRef="i" decimals="INF" id="f-10">5</ix:nonFraction>`),
			nil, []string{"bad.html", "us-gaap:Assets", `"f-10"`, "unitRef"}},
		{"unparsable number", fact("us-gaap:Liabilities", "ixt:num-dot-decimal", "12a4"),
			nil, []string{"bad.html", "us-gaap:Liabilities", `"f-bad"`, `"12a4"`}},
		{"comma-decimal text under dot-decimal", fact("us-gaap:Liabilities", "ixt:num-dot-decimal", "1.234,5"),
			nil, []string{"bad.html", "us-gaap:Liabilities", `"f-bad"`, `"1.234,5"`}},
		{"digits with separators and no format", fact("us-gaap:Liabilities", "", "1,234"),
			nil, []string{"bad.html", "us-gaap:Liabilities", `"f-bad"`, `"1,234"`}},
		{"number words", fact("us-gaap:Liabilities", "ixt-sec:numwordsen", "several"),
			nil, []string{"bad.html", "us-gaap:Liabilities", `"f-bad"`, `"several"`}},
		{"zerodash that is not a dash", fact("us-gaap:Liabilities", "ixt:zerodash", "0"),
			nil, []string{"bad.html", "us-gaap:Liabilities", `"f-bad"`, `"0"`}},
		{"unknown format", fact("us-gaap:Liabilities", "ixt:date-monthname-day-year-en", "September 28, 2024"),
			nil, []string{"bad.html", "us-gaap:Liabilities", `"f-bad"`, "unknown format", "September 28, 2024"}},
	} {
		_, err := ixParseString(t, "bad.html", c.doc)
		if err == nil {
			t.Errorf("%s: no error", c.what)
			continue
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: error %v is not %v", c.what, err, c.is)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", c.what, err, w)
			}
		}
	}
}

// TestIXFixtureFacts reads the hand-written 10-K, whose ix:header comes after every fact: contexts
// and units are resolved at the end; hidden facts, nested values, scale, sign, units, dimensions and
// duplicates follow the rules.
func TestIXFixtureFacts(t *testing.T) {
	t.Parallel()
	d := ixFixture(t)
	for _, c := range []struct {
		concept, end, want, unit string
	}{
		{"us-gaap:Assets", "2024-12-31", "1234500000", "USD"},
		{"us-gaap:Assets", "2023-12-31", "1100000000", "USD"},
		{"us-gaap:LongTermDebtNoncurrent", "2024-12-31", "300000000", "USD"},
		{"us-gaap:LongTermDebtCurrent", "2024-12-31", "0", "USD"}, // fixed-zero
		{"us-gaap:CommercialPaper", "2024-12-31", "0", "USD"},     // zerodash
		{"us-gaap:AccountsReceivableNetCurrent", "2024-12-31", "45600000", "USD"},
		{"us-gaap:NontradeReceivablesCurrent", "2024-12-31", "4400000", "USD"},
		{"us-gaap:Revenues", "2024-12-31", "2000000000", "USD"},
		{"us-gaap:NetIncomeLoss", "2024-12-31", "-150000000", "USD"},
		{"us-gaap:EarningsPerShareBasic", "2024-12-31", "-1.25", "USD/shares"},
		{"us-gaap:EffectiveIncomeTaxRateContinuingOperations", "2024-12-31", "0.21", "pure"},
		{"us-gaap:NumberOfOperatingSegments", "2024-12-31", "2", "segment"},
		{"us-gaap:LossContingencyPendingClaimsNumber", "2024-12-31", "0", "claim"},
		{"us-gaap:SaleOfStockPricePerShare", "2024-12-31", "12.5", "USD/shares"},
		{"us-gaap:DebtInstrumentFaceAmount", "2024-12-31", "75000000", "EUR"},
		{"us-gaap:InvestmentIncomeInterest", "2024-12-31", "12500000", "USD"}, // in ix:hidden
	} {
		f := ixOne(t, d, c.concept, c.end)
		if !f.Value.Equal(ixDec(c.want)) || f.Unit != c.unit {
			t.Errorf("%s at %s = %s %s, want %s %s", c.concept, c.end, f.Value, f.Unit, c.want, c.unit)
		}
	}

	// Instant versus duration.
	if f := ixOne(t, d, "us-gaap:Assets", "2024-12-31"); f.Start != "" || f.ID != "f-assets24" || f.Decimals != "-5" {
		t.Errorf("assets: start %q id %q decimals %q, want an instant, f-assets24 (the more precise duplicate), -5", f.Start, f.ID, f.Decimals)
	}
	if f := ixOne(t, d, "us-gaap:Revenues", "2024-12-31"); f.Start != "2024-01-01" {
		t.Errorf("revenue start %q, want 2024-01-01", f.Start)
	}
	// The note repeats total assets rounded to 1.2 billion under an equivalent context: one fact, and
	// no note since the two agree once rounded.
	if n := len(ixFind(d, "us-gaap:Assets", "2024-12-31")); n != 1 {
		t.Errorf("%d assets facts at 2024-12-31, want the duplicate removed", n)
	}
	if len(d.Notes) != 0 {
		t.Errorf("notes %v, want none", d.Notes)
	}
	// Dimensional facts.
	var widgets *IXFact
	for i, f := range ixFind(d, "us-gaap:Revenues", "2024-12-31") {
		if f.Dimensional {
			widgets = &ixFind(d, "us-gaap:Revenues", "2024-12-31")[i]
		}
	}
	if widgets == nil || !widgets.Value.Equal(ixDec("500000000")) ||
		strings.Join(widgets.Members, ",") != "exa:WidgetsMember,us-gaap:OperatingSegmentsMember" {
		t.Errorf("widgets revenue: %+v", widgets)
	}
	area := ixFind(d, "exa:WarehouseArea", "")
	if len(area) != 1 || !area[0].Dimensional || len(area[0].Members) != 0 || len(area[0].Dims) != 1 ||
		area[0].Dims[0] != (Dimension{Axis: "exa:SiteAxis", Member: "Warehouse 7", Typed: true}) || area[0].Unit != "sqft" {
		t.Errorf("typed-member fact: %+v", area)
	}
	// A nil fact is kept as nil and never converted.
	inv := ixFind(d, "us-gaap:InventoryNet", "")
	if len(inv) != 1 || !inv[0].Nil {
		t.Errorf("nil inventory: %+v", inv)
	}
	if _, ok := d.CompanyFacts(FilingRef{}).Facts["us-gaap"]["InventoryNet"]; ok {
		t.Error("a nil fact reached companyfacts")
	}
}

// TestIXFixtureCover: the cover page, with a period end date in words nested around another fact,
// an excluded footnote mark in the name and two share classes.
func TestIXFixtureCover(t *testing.T) {
	t.Parallel()
	d := ixFixture(t)
	i := d.Info
	if i.CIK != "0001234567" || i.DocumentType != "10-K" || i.PeriodEndDate != "2024-12-31" || i.FiscalYearFocus != "2024" ||
		i.FiscalPeriodFocus != "FY" || i.RegistrantName != "EXAMPLE CORP" || i.AmendmentFlag != "false" {
		t.Errorf("cover %+v", i)
	}
	if got := i.Cover["dei:CurrentFiscalYearEndDate"]; got != "December 31" {
		t.Errorf("nested cover fact %q, want December 31", got)
	}
	// Check boxes: the "☒" next to "No" tagged fixed-false is false; a ballot box ☒ is true.
	if i.Cover["dei:EntityShellCompany"] != "false" || i.Cover["dei:DocumentAnnualReport"] != "true" {
		t.Errorf("cover booleans: shell company %q, annual report %q", i.Cover["dei:EntityShellCompany"], i.Cover["dei:DocumentAnnualReport"])
	}
	want := []ClassShares{{"us-gaap:CommonClassAMember", ixDec("1000000"), "2025-02-14"}, {"us-gaap:CommonClassBMember", ixDec("250000"), "2025-02-14"}}
	if len(i.Shares) != len(want) {
		t.Fatalf("shares %+v, want %+v", i.Shares, want)
	}
	for k := range want {
		if i.Shares[k].Class != want[k].Class || !i.Shares[k].Shares.Equal(want[k].Shares) || i.Shares[k].AsOf != want[k].AsOf {
			t.Errorf("shares[%d] = %+v, want %+v", k, i.Shares[k], want[k])
		}
	}
	// The period end falls back on the fact's context when the words are not a date.
	doc := ixTiny(`<ix:nonNumeric name="dei:DocumentPeriodEndDate" contextRef="d" id="f-ped">the end of Sept. this year</ix:nonNumeric>`)
	d2, err := ixParseString(t, "ped.html", doc)
	if err != nil || d2.Info.PeriodEndDate != "2024-12-31" || d2.Info.CIK != "0001234567" || d2.Info.DocumentType != "10-Q" {
		t.Errorf("fallback period end: %+v, %v", d2, err)
	}
}

// TestIXDuplicates: equal duplicates collapse; disagreeing ones keep the most precise decimals, with
// a note when they disagree beyond rounding, and never fail.
func TestIXDuplicates(t *testing.T) {
	t.Parallel()
	doc := ixTiny(`
<ix:nonFraction name="us-gaap:Assets" contextRef="i" unitRef="usd" decimals="-6" scale="6" id="a1">10</ix:nonFraction>
<ix:nonFraction name="us-gaap:Assets" contextRef="i" unitRef="usd" decimals="-6" scale="6" id="a2">10</ix:nonFraction>
<ix:nonFraction name="us-gaap:Liabilities" contextRef="i" unitRef="usd" decimals="-9" scale="9" id="l1">7</ix:nonFraction>
<ix:nonFraction name="us-gaap:Liabilities" contextRef="i" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal" id="l2">6,800</ix:nonFraction>
<ix:nonFraction name="us-gaap:Goodwill" contextRef="i" unitRef="usd" decimals="-6" scale="6" id="g1">5</ix:nonFraction>
<ix:nonFraction name="us-gaap:Goodwill" contextRef="i" unitRef="usd" decimals="-3" scale="3" format="ixt:num-dot-decimal" id="g2">4,000</ix:nonFraction>
<ix:nonFraction name="us-gaap:Goodwill" contextRef="d" unitRef="usd" decimals="-3" scale="3" format="ixt:num-dot-decimal" id="g3">4,000</ix:nonFraction>`)
	d, err := ixParseString(t, "dup.html", doc)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ixFind(d, "us-gaap:Assets", "")); n != 1 {
		t.Errorf("%d assets facts, want 1", n)
	}
	if f := ixOne(t, d, "us-gaap:Liabilities", "2024-12-31"); !f.Value.Equal(ixDec("6800000000")) || f.ID != "l2" {
		t.Errorf("liabilities %s (%s), want the more precise 6800000000 (l2)", f.Value, f.ID)
	}
	// Goodwill: an instant and a duration are different facts; the two instants disagree beyond
	// rounding (5 million against 4 million), the note says so.
	gw := ixFind(d, "us-gaap:Goodwill", "2024-12-31")
	if len(gw) != 2 {
		t.Fatalf("goodwill facts %+v", gw)
	}
	if f := gw[0]; f.Start != "" || f.ID != "g2" || !f.Value.Equal(ixDec("4000000")) {
		t.Errorf("goodwill instant %+v, want g2 4000000", f)
	}
	if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "us-gaap:Goodwill") || !strings.Contains(d.Notes[0], "disagree") {
		t.Errorf("notes %q, want one on goodwill", d.Notes)
	}
}

// TestIXRawTextAndPrefixes: an XHTML "<title/>" does not swallow the document, and ix elements under
// another prefix are found by their namespace.
func TestIXRawTextAndPrefixes(t *testing.T) {
	t.Parallel()
	doc := strings.NewReplacer("<title>tiny</title>", "<title/><script/>", "ix:", "inl:", "xmlns:ix=", "xmlns:inl=").Replace(
		ixTiny(`<ix:nonFraction name="us-gaap:Assets" contextRef="i" unitRef="usd" decimals="INF" id="f-1">5</ix:nonFraction>`))
	d, err := ixParseString(t, "prefix.html", doc)
	if err != nil {
		t.Fatal(err)
	}
	if f := ixOne(t, d, "us-gaap:Assets", "2024-12-31"); !f.Value.Equal(ixDec("5")) {
		t.Errorf("assets %s", f.Value)
	}
}

func TestIXFilingDateFromName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"aapl-10-k-2024-11-01.html": "2024-11-01", "x/y/nvda-10-q-2025-08-27.htm": "2025-08-27",
		"aapl-20240928.htm": "", "aapl-10-k-2024-13-01.html": "", "": ""} {
		got, ok := FilingDateFromName(name)
		if got != want || ok != (want != "") {
			t.Errorf("FilingDateFromName(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

// TestIXFixtureFundamentals: the one mapping reads the converted document: amounts, the class sum of
// the shares, and the provenance (the document name when the accession is not known).
func TestIXFixtureFundamentals(t *testing.T) {
	t.Parallel()
	d := ixFixture(t)
	for _, accn := range []string{"", "0001234567-25-000005"} {
		ref := FilingRef{Accession: accn}
		fs, err := InlineFundamentals(d, ref, "EXA")
		if err != nil {
			t.Fatal(err)
		}
		m := index(t, fs)
		wantRef := accn
		if wantRef == "" {
			wantRef = "exa-10-k-2025-02-20.html"
		}
		fy := entry(t, m, "2024-12-31 FY")
		want(t, fy, shariah.TotalAssets, "1234500000", wantRef, "Assets")
		want(t, fy, shariah.TotalDebt, "300000000", wantRef, "CommercialPaper+LongTermDebtCurrent+LongTermDebtNoncurrent")
		want(t, fy, shariah.Receivables, "50000000", wantRef, "AccountsReceivableNetCurrent+NontradeReceivablesCurrent")
		want(t, fy, shariah.TotalRevenue, "2000000000", wantRef, "Revenues")
		want(t, fy, shariah.InterestIncome, "12500000", wantRef, "InvestmentIncomeInterest")
		sh := want(t, fy, shariah.SharesOutstanding, "1250000", wantRef, SharesTag)
		if len(sh.Classes) != 2 || sh.AsOf != "2025-02-14" || sh.Document != "exa-10-k-2025-02-20.html" || sh.Filed != "2025-02-20" || sh.Form != "10-K" {
			t.Errorf("shares fact %+v", sh)
		}
		if fy.FiscalYear != 2024 {
			t.Errorf("fiscal year %d", fy.FiscalYear)
		}
		absent(t, fy, shariah.Inventory, "") // reported as nil
	}
	cf := d.CompanyFacts(FilingRef{})
	if cf.CIK != "0001234567" || cf.EntityName != "EXAMPLE CORP" {
		t.Errorf("companyfacts identity %q %q", cf.CIK, cf.EntityName)
	}
	if _, ok := cf.Facts["us-gaap"]["Revenues"].Units["USD"]; !ok || len(cf.Facts["us-gaap"]["Revenues"].Units["USD"]) != 2 {
		t.Errorf("revenues %+v, want the two non-dimensional years only", cf.Facts["us-gaap"]["Revenues"])
	}
	// Without a filing date anywhere the mapping cannot give provenance: a clear error.
	d2 := *d
	d2.Name = "exa.html"
	if _, err := InlineFundamentals(&d2, FilingRef{}, "EXA"); err == nil || !strings.Contains(err.Error(), "filing date unknown") {
		t.Errorf("no filing date: %v", err)
	}
}

// ---------------------------------------------------------------------------------------------------
// the shared filings

// TestIXAllSharedFilings parses every shared filing: no error, a CIK, the document type of its
// folder, a period end, shares outstanding; statements except in WFC's and IBM's 10-Ks.
func TestIXAllSharedFilings(t *testing.T) {
	t.Parallel()
	dir := ixDataDir(t)
	files := ixFiles(t, dir)
	if len(files) < 35 {
		t.Fatalf("%d filings under %s, want 35", len(files), dir)
	}
	var total time.Duration
	var bytesRead int64
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		d, err := ParseInlineXBRL(bytes.NewReader(b), filepath.Base(rel))
		el := time.Since(start)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		total += el
		bytesRead += int64(len(b))
		parts := strings.Split(rel, "/")
		wantType := map[string]string{"10k": "10-K", "10q": "10-Q"}[parts[1]]
		i := d.Info
		if len(i.CIK) != 10 || i.DocumentType != wantType || !ixIsDate(i.PeriodEndDate) || len(i.Shares) == 0 ||
			i.FiscalYearFocus == "" || i.FiscalPeriodFocus == "" || i.RegistrantName == "" {
			t.Errorf("%s: cover %+v", rel, i)
		}
		if filed, ok := FilingDateFromName(rel); !ok || filed <= i.PeriodEndDate {
			t.Errorf("%s: filing date %q not after the period end %s", rel, filed, i.PeriodEndDate)
		}
		if v, ok := i.Cover["dei:EntityShellCompany"]; ok && v != "false" {
			t.Errorf("%s: shell company %q, want false", rel, v)
		}
		coverOnly := rel == "wfc/10k/wfc-10-k-2025-02-25.html" || rel == "ibm/10k/ibm-10-k-2025-02-25.html"
		if d.HasStatements() == coverOnly {
			t.Errorf("%s: HasStatements %v", rel, d.HasStatements())
		}
		var classes []string
		for _, s := range i.Shares {
			classes = append(classes, fmt.Sprintf("%s=%s@%s", strings.TrimPrefix(s.Class, "us-gaap:"), s.Shares, s.AsOf))
		}
		t.Logf("%-40s %7.1f KB %6.1f ms %5d facts  %s %s %s FY%s %s  shares %s  notes %d", rel, float64(len(b))/1024,
			el.Seconds()*1000, len(d.Facts), i.CIK, i.DocumentType, i.PeriodEndDate, i.FiscalYearFocus, i.FiscalPeriodFocus,
			strings.Join(classes, " "), len(d.Notes))
		for _, n := range d.Notes {
			t.Logf("    %s", n)
		}
	}
	t.Logf("%d filings, %.1f MB in %v: %.1f ms per file, %.0f MB/s", len(files), float64(bytesRead)/1e6, total,
		total.Seconds()*1000/float64(len(files)), float64(bytesRead)/1e6/total.Seconds())
}

func ixIsDate(s string) bool {
	_, err := time.Parse(dateLayout, s)
	return err == nil
}

// TestIXMultiClassShares: GOOGL, META and V name their classes of common stock on the cover page.
func TestIXMultiClassShares(t *testing.T) {
	t.Parallel()
	dir := ixDataDir(t)
	for rel, want := range map[string]string{
		"googl/10k/googl-10-k-2025-02-05.html": "us-gaap:CommonClassAMember=5833000000 us-gaap:CommonClassBMember=860000000 goog:CapitalClassCMember=5497000000",
		"meta/10k/meta-10-k-2025-01-30.html":   "us-gaap:CommonClassAMember=2189898148 us-gaap:CommonClassBMember=343761117",
		"v/10k/v-10-k-2024-11-13.html":         "us-gaap:CommonClassAMember=1728105021 v:CommonClassB1Member=4835384 v:CommonClassB2Member=120338948 us-gaap:CommonClassCMember=9595774",
	} {
		d := ixParseFile(t, filepath.Join(dir, rel))
		var got []string
		for _, s := range d.Info.Shares {
			got = append(got, s.Class+"="+s.Shares.String())
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%s: shares %v, want %s", rel, got, want)
		}
	}
}

const ixAAPLAccn = "0000320193-24-000123"

// TestIXAppleTenK checks the screening inputs of Apple's FY2024 10-K read from its document.
func TestIXAppleTenK(t *testing.T) {
	t.Parallel()
	d := ixParseFile(t, filepath.Join(ixDataDir(t), "aapl/10k/aapl-10-k-2024-11-01.html"))
	const end = "2024-09-28" // the instant as written in the contexts, and in companyfacts
	sum := func(concepts ...string) decimal.Decimal {
		s := decimal.Zero
		for _, c := range concepts {
			f := ixOne(t, d, c, end)
			if f.Unit != "USD" || f.Start != "" {
				t.Errorf("%s: unit %s start %q", c, f.Unit, f.Start)
			}
			s = s.Add(f.Value)
		}
		return s
	}
	for _, c := range []struct {
		concepts []string
		want     string
	}{
		{[]string{"us-gaap:Assets"}, "364980000000"},
		{[]string{"us-gaap:LongTermDebtNoncurrent", "us-gaap:LongTermDebtCurrent", "us-gaap:CommercialPaper"}, "106629000000"},
		{[]string{"us-gaap:AccountsReceivableNetCurrent", "us-gaap:NontradeReceivablesCurrent"}, "66243000000"},
	} {
		if got := sum(c.concepts...); !got.Equal(ixDec(c.want)) {
			t.Errorf("%s at %s = %s, want %s", strings.Join(c.concepts, "+"), end, got, c.want)
		}
	}
	if d.Info.PeriodEndDate != end || d.Info.CIK != "0000320193" {
		t.Errorf("cover %+v", d.Info)
	}
}

// ixCFKey identifies a fact across the two readers.
type ixCFKey struct{ concept, unit, start, end string }

// ixCompanyfactsIndex lists the companyfacts values by concept, unit and period, restricted to one
// accession when accn is not "".
func ixCompanyfactsIndex(t *testing.T, cf CompanyFacts, accn string) map[ixCFKey][]Fact {
	t.Helper()
	idx := map[ixCFKey][]Fact{}
	for tax, concepts := range cf.Facts {
		for tag, c := range concepts {
			for unit, fs := range c.Units {
				for _, f := range fs {
					if accn == "" || f.Accn == accn {
						k := ixCFKey{tax + ":" + tag, unit, f.Start, f.End}
						idx[k] = append(idx[k], f)
					}
				}
			}
		}
	}
	return idx
}

// TestIXAppleAgainstCompanyfacts: every non-dimensional numeric fact of the 10-K that companyfacts
// also holds under the same accession has the same value.
func TestIXAppleAgainstCompanyfacts(t *testing.T) {
	t.Parallel()
	d := ixParseFile(t, filepath.Join(ixDataDir(t), "aapl/10k/aapl-10-k-2024-11-01.html"))
	cf, err := ParseCompanyFacts(dataFile(t, "fairvalue/sec-filing-companyfacts-AAPL.json"))
	if err != nil {
		t.Fatal(err)
	}
	idx := ixCompanyfactsIndex(t, cf, ixAAPLAccn)
	matched, onlyIX := 0, 0
	found := map[ixCFKey]bool{}
	for _, f := range d.Facts {
		if f.Dimensional || f.Nil || f.End == "" {
			continue
		}
		k := ixCFKey{f.Concept, f.Unit, f.Start, f.End}
		got, ok := idx[k]
		if !ok {
			onlyIX++
			continue
		}
		found[k] = true
		for _, c := range got {
			if !ixDec(c.Val.String()).Equal(f.Value) {
				t.Errorf("%s %s %s..%s: document %s, companyfacts %s", f.Concept, f.Unit, f.Start, f.End, f.Value, c.Val)
			}
		}
		matched++
	}
	var onlyCF []string
	for k := range idx {
		if !found[k] {
			onlyCF = append(onlyCF, fmt.Sprintf("%s %s %s..%s", k.concept, k.unit, k.start, k.end))
		}
	}
	sort.Strings(onlyCF)
	t.Logf("AAPL 10-K: %d facts equal in both readers; %d non-dimensional facts only in the document (companyfacts keeps one filing per fact and frame), %d only in companyfacts under %s: %v",
		matched, onlyIX, len(onlyCF), ixAAPLAccn, onlyCF)
	if matched <= 100 {
		t.Errorf("only %d facts compared, want more than 100", matched)
	}
}

// TestIXNvidiaComparatives: NVIDIA's companyfacts file ends in late 2024, before these two documents
// were filed, so they are compared through their comparatives (the same concept, unit and period
// reported in earlier filings, latest filed first). A comparative may legitimately differ:
//   - rounded: the document rounds to its decimals what an earlier filing gave more precisely;
//   - split: NVIDIA split its stock ten-for-one in June 2024, and the FY2025 10-K restates share
//     counts and per-share amounts of earlier years (ratio 10 up to rounding of small per-share values);
//   - restated: reclassified or restated amounts (deferred taxes, other assets), listed in the log.
//
// Exact agreement must hold for most comparatives and restatements must be a small minority.
func TestIXNvidiaComparatives(t *testing.T) {
	t.Parallel()
	dir := ixDataDir(t)
	cf, err := ParseCompanyFacts(dataFile(t, "fairvalue/sec-filing-companyfacts-NVDA.json"))
	if err != nil {
		t.Fatal(err)
	}
	idx := ixCompanyfactsIndex(t, cf, "")
	ten := decimal.NewFromInt(10)
	near := func(a, b decimal.Decimal) bool { // within 5%
		return !b.IsZero() && a.Sub(b).Abs().Div(b.Abs()).LessThan(ixDec("0.05"))
	}
	for _, rel := range []string{"nvda/10k/nvda-10-k-2025-02-26.html", "nvda/10q/nvda-10-q-2025-08-27.html"} {
		d := ixParseFile(t, filepath.Join(dir, rel))
		count := map[string]int{}
		var diffs []string
		for _, f := range d.Facts {
			if f.Dimensional || f.Nil || f.End == "" {
				continue
			}
			cands, ok := idx[ixCFKey{f.Concept, f.Unit, f.Start, f.End}]
			if !ok {
				continue
			}
			sort.SliceStable(cands, func(i, j int) bool { return cands[i].Filed > cands[j].Filed })
			latest := cands[0]
			old := ixDec(latest.Val.String())
			kind := "equal"
			p := ixPrecision(f.Decimals)
			switch {
			case old.Equal(f.Value):
			case p > -30 && p < 30 && old.Round(int32(p)).Equal(f.Value):
				kind = "rounded"
			case (f.Unit == "shares" || f.Unit == "USD/shares") && (near(f.Value, old.Mul(ten)) || near(f.Value.Mul(ten), old)):
				kind = "split"
			default:
				kind = "restated"
			}
			count[kind]++
			if kind != "equal" {
				diffs = append(diffs, fmt.Sprintf("%-8s %s %s..%s: document %s, companyfacts %s (%s %s)", kind, f.Concept, f.Start, f.End, f.Value, latest.Val, latest.Form, latest.Accn))
			}
		}
		total := count["equal"] + count["rounded"] + count["split"] + count["restated"]
		sort.Strings(diffs)
		t.Logf("%s: %d comparatives: %d equal, %d rounded by the document, %d restated for the stock split, %d restated or reclassified",
			rel, total, count["equal"], count["rounded"], count["split"], count["restated"])
		for _, s := range diffs {
			t.Logf("    %s", s)
		}
		if total < 100 || count["equal"]*100 < 85*total || count["restated"]*100 >= 5*total {
			t.Errorf("%s: %v of %d: want at least 100 compared, 85%% equal and under 5%% restated", rel, count, total)
		}
	}
}

// TestIXAppleFundamentals: the one mapping gives the FY2024 period from the document alone, with the
// accession as provenance when known and the document name otherwise.
func TestIXAppleFundamentals(t *testing.T) {
	t.Parallel()
	d := ixParseFile(t, filepath.Join(ixDataDir(t), "aapl/10k/aapl-10-k-2024-11-01.html"))
	for _, accn := range []string{ixAAPLAccn, ""} {
		ref := FilingRef{Accession: accn, Filed: "2024-11-01", Document: "aapl-20240928.htm"}
		fs, err := Fundamentals(d.CompanyFacts(ref), "AAPL")
		if err != nil {
			t.Fatal(err)
		}
		wantRef := accn
		if wantRef == "" {
			wantRef = "aapl-20240928.htm"
		}
		m := index(t, fs)
		fy := entry(t, m, "2024-09-28 FY")
		if fy.FiscalYear != 2024 {
			t.Errorf("fiscal year %d", fy.FiscalYear)
		}
		want(t, fy, shariah.TotalAssets, "364980000000", wantRef, "Assets")
		// The balance sheet's commercial paper 9,967, term debt 10,912 (current) and 85,750 (non-current),
		// plus the finance-lease liabilities of the lease note (896: inside other liabilities).
		want(t, fy, shariah.TotalDebt, "107525000000", wantRef, "CommercialPaper+LongTermDebtCurrent+LongTermDebtNoncurrent+FinanceLeaseLiability")
		want(t, fy, shariah.Receivables, "66243000000", wantRef, "AccountsReceivableNetCurrent+NontradeReceivablesCurrent")
		want(t, fy, shariah.TotalRevenue, "391035000000", wantRef, "RevenueFromContractWithCustomerExcludingAssessedTax")
		sh := want(t, fy, shariah.SharesOutstanding, "15115823000", wantRef, SharesTag)
		if sh.AsOf != "2024-10-18" || sh.Document != "aapl-20240928.htm" || sh.CIK != "0000320193" {
			t.Errorf("shares provenance %+v", sh)
		}
		// Apple reports no interest income line in this 10-K (see SOURCES.md).
		absent(t, fy, shariah.InterestIncome, "")
		for _, f := range fs {
			if f.Period == "FY" && f.PeriodEnd != "2024-09-28" {
				t.Errorf("FY period %s: comparatives are not periods of their own", f.PeriodEnd)
			}
		}
	}
}

// TestIXCoverOnlyFilings: WFC's and IBM's 10-Ks carry their statements in an exhibit. The document
// yields no fundamentals periods at all (not zeros), and InlineFundamentals says why.
func TestIXCoverOnlyFilings(t *testing.T) {
	t.Parallel()
	dir := ixDataDir(t)
	for _, rel := range []string{"wfc/10k/wfc-10-k-2025-02-25.html", "ibm/10k/ibm-10-k-2025-02-25.html"} {
		d := ixParseFile(t, filepath.Join(dir, rel))
		if d.HasStatements() {
			t.Errorf("%s: HasStatements", rel)
		}
		fs, err := Fundamentals(d.CompanyFacts(FilingRef{}), "X")
		if err != nil && !errors.Is(err, ErrNoUSGAAP) {
			t.Errorf("%s: %v", rel, err)
		}
		if len(fs) != 0 {
			t.Errorf("%s: %d fundamentals periods, want none: %+v", rel, len(fs), fs)
		}
		_, err = InlineFundamentals(d, FilingRef{}, "X")
		if !errors.Is(err, ErrNoStatements) || !strings.Contains(err.Error(), filepath.Base(rel)) {
			t.Errorf("%s: InlineFundamentals error %v, want ErrNoStatements naming the document", rel, err)
		}
		var concepts []string
		seen := map[string]bool{}
		for _, f := range d.Facts {
			if !seen[f.Concept] {
				seen[f.Concept] = true
				concepts = append(concepts, f.Concept)
			}
		}
		t.Logf("%s: %d numeric facts, concepts %v", rel, len(d.Facts), concepts)
	}
}

// TestIXSharedFundamentals maps every shared document with statements and logs the inputs of its own
// period, with the concept each came from: which interest tags NFLX, GOOGL, UNP use, and what is
// missing and why. Each document must give its own period with total assets and shares.
func TestIXSharedFundamentals(t *testing.T) {
	t.Parallel()
	dir := ixDataDir(t)
	for _, rel := range ixFiles(t, dir) {
		d := ixParseFile(t, filepath.Join(dir, rel))
		if !d.HasStatements() {
			continue
		}
		fs, err := InlineFundamentals(d, FilingRef{}, strings.ToUpper(strings.Split(rel, "/")[0]))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		var own *shariah.Fundamentals
		for i := range fs {
			if fs[i].PeriodEnd == d.Info.PeriodEndDate && fs[i].Period != "Q4" {
				own = &fs[i]
			}
		}
		if own == nil {
			t.Errorf("%s: no period ending %s in %d periods", rel, d.Info.PeriodEndDate, len(fs))
			continue
		}
		for _, field := range []shariah.Field{shariah.TotalAssets, shariah.SharesOutstanding} {
			if _, ok := own.Facts[field]; !ok {
				t.Errorf("%s %s: no %s (%s)", rel, own.Period, field, own.Missing[field])
			}
		}
		var parts []string
		for _, field := range []shariah.Field{shariah.TotalRevenue, shariah.InterestIncome, shariah.TotalDebt, shariah.CashAndSecurities, shariah.Receivables} {
			if f, ok := own.Facts[field]; ok {
				parts = append(parts, fmt.Sprintf("%s=%s[%s]", field, f.Value, f.Tag))
			} else {
				parts = append(parts, fmt.Sprintf("%s: %s", field, own.Missing[field]))
			}
		}
		t.Logf("%s %s %d: %s", rel, own.Period, own.FiscalYear, strings.Join(parts, "; "))
	}
}

// ---------------------------------------------------------------------------------------------------
// speed and memory

// ixLargest is the largest shared filing, or a synthetic document of about 4 MB when the shared data
// is absent (the benchmark must run anywhere).
func ixLargest(tb testing.TB) (string, []byte) {
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "sec", "ixbrl", "*", "*", "*.html"))
	var best string
	var size int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			best, size = f, st.Size()
		}
	}
	if best != "" {
		b, err := os.ReadFile(best)
		if err != nil {
			tb.Fatal(err)
		}
		return filepath.Base(best), b
	}
	return "synthetic-4mb.html", ixSynthetic(4 << 20)
}

// ixSynthetic builds an inline-XBRL document of about n bytes: table rows of styled HTML with a
// tagged number in every other cell, like a statement.
func ixSynthetic(n int) []byte {
	var b strings.Builder
	head := ixTiny("")
	b.WriteString(head[:strings.Index(head, "</body>")])
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `<tr><td style="padding:0 1pt;font-family:'Times New Roman';font-size:10pt"><span style="color:#000000">Line item %d</span></td>`+
			`<td style="text-align:right"><span><ix:nonFraction name="us-gaap:Item%d" contextRef="i" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal" id="f-%d">%d,%03d</ix:nonFraction></span></td></tr>`+"\n",
			i, i, i, i%1000+1, i%1000)
	}
	b.WriteString("</body></html>")
	return []byte(b.String())
}

func BenchmarkParseInlineXBRL(b *testing.B) {
	name, doc := ixLargest(b)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ParseInlineXBRL(bytes.NewReader(doc), name); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIXMemory logs what reading the largest document costs in memory, per MB of document: bytes
// allocated in all, the heap the parsed document keeps, and the peak of the live heap while parsing.
// The peak is sampled with the collector running almost continuously (GOGC=2), so that the heap in use
// is close to what is live rather than to the collector's pacing (4 MB minimum by default). Not
// parallel: it reads the process's heap and sets its GC percentage, which other tests would disturb.
func TestIXMemory(t *testing.T) {
	ixDataDir(t)
	name, doc := ixLargest(t)
	mb := float64(len(doc)) / (1 << 20)

	// Allocations and retained heap, with the collector as configured.
	runtime.GC()
	var before, after, kept runtime.MemStats
	runtime.ReadMemStats(&before)
	d, err := ParseInlineXBRL(bytes.NewReader(doc), name)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&kept)
	allocated := after.TotalAlloc - before.TotalAlloc
	retained := int64(kept.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(d)

	// Peak live heap, sampled.
	old := debug.SetGCPercent(2)
	defer debug.SetGCPercent(old)
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	d2, err := ParseInlineXBRL(bytes.NewReader(doc), name)
	close(stop)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(d2)
	runtime.KeepAlive(doc)
	peakAbove := int64(peak.Load()) - int64(base.HeapAlloc)
	t.Logf("%s (%.2f MB, %d facts): allocated %.2f MB (%.2f MB per MB) in %d allocations; the parsed document keeps %.2f MB (%.2f MB per MB); live heap peak while parsing %.2f MB above the baseline (%.2f MB per MB)",
		name, mb, len(d.Facts), float64(allocated)/(1<<20), float64(allocated)/(1<<20)/mb, after.Mallocs-before.Mallocs,
		float64(retained)/(1<<20), float64(retained)/(1<<20)/mb, float64(peakAbove)/(1<<20), float64(peakAbove)/(1<<20)/mb)
	if float64(allocated) > 4*float64(len(doc)) || retained > int64(len(doc))/2 {
		t.Errorf("allocated %d and kept %d bytes for a %d-byte document: the reader must not hold the document", allocated, retained, len(doc))
	}
}
