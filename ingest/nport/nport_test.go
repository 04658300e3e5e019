package nport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// dataFile reads a file of the shared data folder (SHARIAH_DATA_DIR, else ../../../shared/data from
// this package), skipping the test when the folder is absent: the data lives beside the project.
func dataFile(t *testing.T, rel string) []byte {
	t.Helper()
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared data folder %s is absent (set SHARIAH_DATA_DIR to run the test on the real N-PORT sample)", dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Skipf("shared data file %s is absent: %v", rel, err)
	}
	return b
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func eqDec(t *testing.T, what string, got decimal.Decimal, want string) {
	t.Helper()
	if !got.Equal(dec(want)) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func eqRate(t *testing.T, what string, got *decimal.Decimal, want string) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = nil, want %s", what, want)
		return
	}
	eqDec(t, what, *got, want)
}

const samplePath = "sec/edgartools/NPORT.Dupree.xml"

// Figures checked by reading NPORT.Dupree.xml itself (Dupree Mutual Funds, N-PORT-P as of 2022-12-31).
func TestParseDupreeSample(t *testing.T) {
	t.Parallel()
	f, err := Parse(dataFile(t, samplePath))
	if err != nil {
		t.Fatal(err)
	}
	if f.RegistrantName != "Dupree Mutual Funds" || f.RegistrantLEI != "549300S8YVGTJ1NMTW57" {
		t.Errorf("registrant = %q %q", f.RegistrantName, f.RegistrantLEI)
	}
	if f.SeriesName != "Kentucky Tax-Free Short-to-Medium Series" || f.SeriesID != "S000012000" {
		t.Errorf("series = %q %q", f.SeriesName, f.SeriesID)
	}
	// repPdDate (as-of date), not repPdEnd (2023-06-30, fiscal year end).
	if f.ReportDate != "2022-12-31" {
		t.Errorf("ReportDate = %q, want 2022-12-31", f.ReportDate)
	}
	if len(f.Holdings) != 55 || f.Dropped != 0 {
		t.Fatalf("holdings = %d dropped = %d, want 55 and 0", len(f.Holdings), f.Dropped)
	}
	total, pct, withLEI := decimal.Zero, decimal.Zero, 0
	for _, h := range f.Holdings {
		total, pct = total.Add(h.ValueUSD), pct.Add(h.PctOfNAV)
		if h.LEI != "" {
			withLEI++
		}
		if !h.IsDebt || h.ISIN == "" || h.CUSIP == "" || h.Units != "PA" || h.CouponKind != "Fixed" ||
			h.InDefault == nil || *h.InDefault || h.Maturity == "" || h.CouponRate == nil {
			t.Errorf("holding %q: unexpected %+v", h.Name, h)
		}
	}
	eqDec(t, "sum valUSD", total, "40455026.70")
	eqDec(t, "sum pctVal", pct, "97.8357898155")
	if withLEI != 5 { // 50 of 55 report <lei>N/A</lei>
		t.Errorf("holdings with LEI = %d, want 5", withLEI)
	}

	h := f.Holdings[0]
	if h.Name != "KENTUCKY ST PPTY & BLDGS COMMN" || h.Title != "KY KYSFAC 5 08/01/2028" || h.LEI != "" ||
		h.CUSIP != "49151FGH7" || h.ISIN != "US49151FGH73" || h.Currency != "USD" || h.Country != "US" ||
		h.AssetCategory != "DBT" || h.IssuerCategory != "MUN" || h.Maturity != "2028-08-01" {
		t.Errorf("first holding = %+v", h)
	}
	eqDec(t, "first balance", h.Balance, "755000")
	eqDec(t, "first valUSD", h.ValueUSD, "794207.15")
	eqDec(t, "first pctVal", h.PctOfNAV, "1.9206978745")
	eqRate(t, "first coupon", h.CouponRate, "5")

	var uky *Holding
	for i := range f.Holdings {
		if f.Holdings[i].LEI == "549300CXE3YQ1HXYCQ71" {
			uky = &f.Holdings[i]
		}
	}
	if uky == nil {
		t.Fatal("no holding with LEI 549300CXE3YQ1HXYCQ71 (UNIVERSITY KY GEN RCPTS)")
	}
	if uky.Name != "UNIVERSITY KY GEN RCPTS" || uky.ISIN != "US914378EL49" || uky.CUSIP != "914378EL4" || uky.Maturity != "2028-04-01" {
		t.Errorf("UKY holding = %+v", *uky)
	}
	eqRate(t, "UKY coupon", uky.CouponRate, "4")
	eqDec(t, "UKY valUSD", uky.ValueUSD, "760425")

	if last := f.Holdings[54]; last.ISIN != "US914391V613" || last.Maturity != "2030-09-01" {
		t.Errorf("last holding = %+v", last)
	}
	if c := SukukCandidates(f); len(c) != 55 { // all are debt with an ISIN; none is known to be a sukuk
		t.Errorf("candidates = %d, want 55", len(c))
	}
}

func TestParseTruncated(t *testing.T) {
	t.Parallel()
	small, err := os.ReadFile(filepath.Join("testdata", "nport_small.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(small[:len(small)/2]); err == nil || !strings.Contains(err.Error(), "not well-formed") {
		t.Errorf("truncated fixture: err = %v, want a not well-formed error", err)
	}
	b := dataFile(t, samplePath)
	if _, err := Parse(b[:len(b)/2]); err == nil || !strings.Contains(err.Error(), "not well-formed") {
		t.Errorf("truncated sample: err = %v, want a not well-formed error", err)
	}
}

func TestParseNotNPORT(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"wrong root":     `<?xml version="1.0"?><rss><channel><title>x</title></channel></rss>`,
		"no holdings":    `<edgarSubmission><formData><genInfo><regName>X</regName></genInfo></formData></edgarSubmission>`,
		"other form":     `<edgarSubmission><headerData><submissionType>13F-HR</submissionType></headerData><formData><invstOrSecs/></formData></edgarSubmission>`,
		"empty":          ``,
		"not xml":        `{"invstOrSecs": []}`,
		"bad number":     `<edgarSubmission><formData><invstOrSecs><invstOrSec><name>A</name><valUSD>12,5</valUSD></invstOrSec></invstOrSecs></formData></edgarSubmission>`,
		"bad coupon num": `<edgarSubmission><formData><invstOrSecs><invstOrSec><debtSec><annualizedRt>five</annualizedRt></debtSec></invstOrSec></invstOrSecs></formData></edgarSubmission>`,
	} {
		if f, err := Parse([]byte(doc)); err == nil {
			t.Errorf("%s: parsed without error: %+v", name, f)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	// An N-PORT with an empty holdings block is valid and has no holdings.
	f, err := Parse([]byte(`<edgarSubmission><formData><invstOrSecs></invstOrSecs></formData></edgarSubmission>`))
	if err != nil || len(f.Holdings) != 0 {
		t.Errorf("empty invstOrSecs: %+v, %v", f, err)
	}
}

func TestParseSmallFixture(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "nport_small.xml"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.RegistrantName != "Example Trust" || f.RegistrantLEI != "5493000EXAMPLEFUND40" ||
		f.SeriesName != "Example Sukuk Income Fund" || f.SeriesID != "S000099999" || f.ReportDate != "2025-09-30" {
		t.Errorf("filing = %+v", f)
	}
	if len(f.Holdings) != 3 || f.Dropped != 1 {
		t.Fatalf("holdings = %d dropped = %d, want 3 and 1", len(f.Holdings), f.Dropped)
	}

	yes, no := true, false
	type want struct {
		Holding
		balance, value, pct, rate string
	}
	wants := []want{
		{Holding{Name: "EXAMPLE SUKUK LTD", Title: "EXAMPLE SUKUK 4.5 03/15/2030", LEI: "5493000EXAMPLE000193",
			ISIN: "XS1234567896", Currency: "USD", Country: "AE", AssetCategory: "DBT", IssuerCategory: "CORP",
			Units: "PA", Maturity: "2030-03-15", CouponKind: "Fixed", InDefault: &no, IsDebt: true},
			"2000000", "1985000.50", "4.25", "4.5"},
		{Holding{Name: "EXAMPLE FLOATING CERTIFICATES", Title: "EXAMPLE FRN 06/30/2027", Currency: "EUR",
			Country: "LU", AssetCategory: "DBT", IssuerCategory: "CORP", Units: "PA", Maturity: "2027-06-30",
			CouponKind: "Floating", InDefault: &yes, IsDebt: true},
			"500000", "540000", "1.1", ""},
		{Holding{Name: "Apple Inc", Title: "Apple Inc", LEI: "HWUPKR0MPOU8FGXBT394", CUSIP: "037833100",
			ISIN: "US0378331005", Currency: "USD", Country: "US", AssetCategory: "EC", IssuerCategory: "CORP",
			Units: "NS"},
			"1000", "230000", "0.49", ""},
	}
	for i, w := range wants {
		g := f.Holdings[i]
		if g.Name != w.Name || g.Title != w.Title || g.LEI != w.LEI || g.CUSIP != w.CUSIP || g.ISIN != w.ISIN ||
			g.Currency != w.Currency || g.Country != w.Country || g.AssetCategory != w.AssetCategory ||
			g.IssuerCategory != w.IssuerCategory || g.Units != w.Units || g.Maturity != w.Maturity ||
			g.CouponKind != w.CouponKind || g.IsDebt != w.IsDebt {
			t.Errorf("holding %d = %+v\nwant %+v", i, g, w.Holding)
		}
		if (g.InDefault == nil) != (w.InDefault == nil) || (g.InDefault != nil && *g.InDefault != *w.InDefault) {
			t.Errorf("holding %d InDefault = %v, want %v", i, g.InDefault, w.InDefault)
		}
		eqDec(t, "balance", g.Balance, w.balance)
		eqDec(t, "value", g.ValueUSD, w.value)
		eqDec(t, "pct", g.PctOfNAV, w.pct)
		if w.rate == "" {
			if g.CouponRate != nil {
				t.Errorf("holding %d CouponRate = %s, want nil", i, g.CouponRate)
			}
		} else {
			eqRate(t, "rate", g.CouponRate, w.rate)
		}
	}

	c := SukukCandidates(f)
	if len(c) != 1 || c[0].ISIN != "XS1234567896" {
		t.Errorf("candidates = %+v, want only XS1234567896", c)
	}
}

func TestReadCurated(t *testing.T) {
	t.Parallel()
	// Fictional rows written for this test (check digits valid where the row is meant to be good).
	const csvText = `isin,issuer_lei,structure,documentation_basis,title_type,purchase_undertaking,guarantee,tangible_asset_ratio,return_type,source,illustrative
# comment lines are ignored
XS1234567896,5493000EXAMPLE000193,ijarah,AAOIFI SS 62,beneficial,par,true,0.75,fixed,example offering circular,true
US0378331005,,hybrid,,legal,market,,,,example note,false
XS1234567890,,ijarah,,legal,par,,,,bad isin check digit,true
XS1234567896,,wakala,,legal,par,,,,duplicate isin,true
US0000000010,5493000EXAMPLE000194,wakala,,legal,par,,,,bad lei,true
US0000000010,,sukuk,,legal,par,,,,bad structure,true
US0000000010,,wakala,,owned,par,,,,bad title,true
US0000000010,,wakala,,legal,cost,,,,bad undertaking,true
US0000000010,,wakala,,legal,par,maybe,,,bad guarantee,true
US0000000010,,wakala,,legal,par,,1.2,,ratio above 1,true
US0000000010,,wakala,,legal,par,,,floating,bad return,true
US0000000010,,wakala,,legal,par,,,,,true
US0000000010,,wakala,,legal,par,,,,missing illustrative,
US0000000010,,wakala,,legal,par,,,
"US0000000010",,"mudarabah","multi
line basis",legal,none,false,0,profit-sharing,example,false
`
	ps, problems, err := ReadCurated(strings.NewReader(csvText))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 {
		t.Fatalf("programmes = %+v, want 3", ps)
	}
	p := ps[0]
	if p.ISIN != "XS1234567896" || p.IssuerLEI != "5493000EXAMPLE000193" || p.Structure != "ijarah" ||
		p.DocumentationBasis != "AAOIFI SS 62" || p.TitleType != "beneficial" || p.PurchaseUndertaking != "par" ||
		p.Guarantee == nil || !*p.Guarantee || p.TangibleAssetRatio == nil || !p.TangibleAssetRatio.Equal(dec("0.75")) ||
		p.ReturnType != "fixed" || p.Source != "example offering circular" || !p.Illustrative || p.Line != 3 {
		t.Errorf("first programme = %+v", p)
	}
	if p := ps[1]; p.ISIN != "US0378331005" || p.Guarantee != nil || p.TangibleAssetRatio != nil || p.ReturnType != "" || p.Illustrative || p.Line != 4 {
		t.Errorf("second programme = %+v", p)
	}
	if p := ps[2]; p.Structure != "mudarabah" || p.DocumentationBasis != "multi\nline basis" || p.Guarantee == nil || *p.Guarantee ||
		!p.TangibleAssetRatio.IsZero() || p.ReturnType != "profit-sharing" || p.Line != 17 {
		t.Errorf("third programme = %+v", p)
	}
	wantProblems := []string{
		"line 5: isin", "line 6: isin XS1234567896 already on line 3", "line 7: issuer_lei", "line 8: structure",
		"line 9: title_type", "line 10: purchase_undertaking", "line 11: guarantee", "line 12: tangible_asset_ratio",
		"line 13: return_type", "line 14: source is empty", "line 15: illustrative", "line 16: 9 fields, want 11",
	}
	if len(problems) != len(wantProblems) {
		t.Fatalf("problems = %q", problems)
	}
	for i, w := range wantProblems {
		if !strings.HasPrefix(problems[i], w) {
			t.Errorf("problem %d = %q, want prefix %q", i, problems[i], w)
		}
	}
}

func TestReadCuratedFileErrors(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"empty":          "",
		"missing column": "isin,issuer_lei,structure\n",
		"unknown column": strings.Join(append(append([]string{}, CuratedHeader...), "rating"), ",") + "\n",
		"bad quoting":    strings.Join(CuratedHeader, ",") + "\nXS1234567896,\"x\"y,ijarah,,legal,par,,,,s,true\n",
	} {
		ps, _, err := ReadCurated(strings.NewReader(text))
		if err == nil || ps != nil {
			t.Errorf("%s: programmes %v, err %v; want an error and nothing read", name, ps, err)
		}
	}
	// Header columns in another order, with a BOM and spaces, are accepted.
	hdr := "\ufeffsource, illustrative,isin,issuer_lei,structure,documentation_basis,title_type,purchase_undertaking,guarantee,tangible_asset_ratio,return_type\n"
	ps, problems, err := ReadCurated(strings.NewReader(hdr + "doc,false,XS1234567896,,murabaha,,legal,none,,,\n"))
	if err != nil || len(problems) != 0 || len(ps) != 1 || ps[0].Structure != "murabaha" || ps[0].Source != "doc" {
		t.Errorf("reordered header: %+v %q %v", ps, problems, err)
	}
}
