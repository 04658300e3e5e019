package datapack

import (
	"os"
	"strings"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shopspring/decimal"
)

// screenBusiness screens a merged asset record with clean ratios under the spec ruleset: only its
// classification can fail it.
func screenBusiness(t *testing.T, a shariah.Asset) screening.Result {
	t.Helper()
	rs, err := rules.Rulesets()
	if err != nil {
		t.Fatal(err)
	}
	f := func(v int64) shariah.Fact {
		return shariah.Fact{Value: shariah.NewNumber(decimal.NewFromInt(v)), Source: shariah.SourceFiling, Ref: "test"}
	}
	in := screening.ScreenInputs{Asset: a, Now: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), PriceSource: shariah.SourceHistory,
		Fundamentals: []shariah.Fundamentals{{Symbol: a.Symbol, PeriodEnd: "2026-06-30", Period: "Q2", Currency: "USD", Facts: map[shariah.Field]shariah.Fact{
			shariah.TotalAssets: f(1_000_000), shariah.TotalRevenue: f(1_000_000), shariah.TotalDebt: f(100),
			shariah.CashAndSecurities: f(100), shariah.Receivables: f(100), shariah.InterestIncome: f(100),
			shariah.ImpureRevenue: f(0), shariah.SharesOutstanding: f(1_000_000)}}}}
	d := time.Date(2023, 10, 31, 0, 0, 0, 0, time.UTC)
	for range 36 {
		in.Monthly = append(in.Monthly, shariah.Bar{Date: d, Open: shariah.PriceScale, High: shariah.PriceScale, Low: shariah.PriceScale, Close: shariah.PriceScale})
		d = d.AddDate(0, 1, 0)
	}
	return screening.Screen(in, rs["spec"], "")
}

// insurerSubmissions is an EDGAR submissions document written for this test: an invented insurer
// (CIK 7654321) classified by EDGAR under SIC 6331.
const insurerSubmissions = `{"cik":"7654321","entityType":"operating","sic":"6331",
 "sicDescription":"Fire, Marine & Casualty Insurance","name":"Example Mutual Holdings","tickers":["EXMU"],
 "exchanges":["NYSE"],"addresses":{"business":{"stateOrCountry":"OH","stateOrCountryDescription":"OH"}},
 "filings":{"recent":{"accessionNumber":[],"filingDate":[],"reportDate":[],"form":[],"items":[],"primaryDocument":[]},"files":[]}}`

// TestSubmissionsSICReachesTheScreen: a submissions document's SIC code goes through the shared-data
// reader and the asset merge (beside a directory record with a non-prohibited-looking industry) to the
// business screen, which fails the company as insurance on the SIC code and names EDGAR as the source.
func TestSubmissionsSICReachesTheScreen(t *testing.T) {
	t.Parallel()
	fsys := mapFS(map[string]string{
		secSubmissions[0]: insurerSubmissions,
		PathSP500Constituents: "Symbol,Security,GICS Sector,GICS Sub-Industry,Headquarters Location,Date added,CIK,Founded\n" +
			"EXMU,Example Mutual,Financials,Multi-Sector Holdings,\"Columbus, Ohio\",2000-01-01,7654321,1900\n",
	})
	sp, err := ReadSP500Constituents(fsys, PathSP500Constituents)
	if err != nil {
		t.Fatal(err)
	}
	sp.Add(ReadSEC(fsys))
	merged := assetsBySymbol(mergeAssets(sp.Assets))
	a := merged["EXMU"]
	if a.SIC != "6331" || a.SICDescription != "Fire, Marine & Casualty Insurance" || a.SICSource != "SEC EDGAR submissions, CIK 0007654321" ||
		a.Industry != "Multi-Sector Holdings" || a.IndustrySource != IndustrySourceSP500 {
		t.Fatalf("merged record %+v", a)
	}
	r := screenBusiness(t, a)
	want := "conventional insurance (SIC 6331 Fire, Marine & Casualty Insurance)"
	if r.ComplianceStatus != "NON_COMPLIANT" || r.BusinessScreenReason == nil || *r.BusinessScreenReason != want {
		t.Fatalf("EXMU: %s %v", r.ComplianceStatus, r.BusinessScreenReason)
	}
	if c := r.BusinessClassification; c.Basis != screening.BasisSICAndIndustry || !strings.Contains(c.Text, "SIC 6331 Fire, Marine & Casualty Insurance (SEC EDGAR submissions, CIK 0007654321)") ||
		!strings.Contains(c.Text, "GICS sub-industry Multi-Sector Holdings") {
		t.Errorf("classification %+v", c)
	}
}

// TestSharedDataClassifications: with the shared data, the merged records of load --shared carry every
// SIC code the shared data holds (the three submissions files: AAPL 3571, NVDA 3674, TSLA 3711) with
// EDGAR's description, the GICS sub-industry of every S&P 500 company, and UNH (Managed Health Care,
// no SIC code in the shared data) fails the business screen as conventional insurance.
func TestSharedDataClassifications(t *testing.T) {
	dir := sharedDataDir(t)
	p, _, err := ReadAllShared(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	as := assetsBySymbol(mergeAssets(p.Assets))
	for sym, want := range map[string][2]string{"AAPL": {"3571", "Electronic Computers"}, "NVDA": {"3674", "Semiconductors & Related Devices"},
		"TSLA": {"3711", "Motor Vehicles & Passenger Car Bodies"}} {
		a := as[sym]
		if a.SIC != want[0] || a.SICDescription != want[1] || !strings.HasPrefix(a.SICSource, "SEC EDGAR submissions") || a.IndustrySource != IndustrySourceSP500 {
			t.Errorf("%s: %+v", sym, a)
		}
		r := screenBusiness(t, a)
		if r.BusinessScreenPass == nil || !*r.BusinessScreenPass || r.BusinessClassification.Basis != screening.BasisSICAndIndustry {
			t.Errorf("%s: business %v %+v", sym, r.BusinessScreenPass, r.BusinessClassification)
		}
	}
	unh := as["UNH"]
	if unh.Industry != "Managed Health Care" || unh.IndustrySource != IndustrySourceSP500 {
		t.Fatalf("UNH record %+v", unh)
	}
	r := screenBusiness(t, unh)
	if r.ComplianceStatus != "NON_COMPLIANT" || r.BusinessScreenPass == nil || *r.BusinessScreenPass ||
		r.BusinessScreenReason == nil || *r.BusinessScreenReason != "conventional insurance (GICS sub-industry Managed Health Care)" {
		t.Fatalf("UNH: %s %v %v", r.ComplianceStatus, r.BusinessScreenPass, r.BusinessScreenReason)
	}
	// The 25 inline-XBRL companies: every one but HUBS is classified (a SIC code or a GICS
	// sub-industry); HubSpot is in neither the S&P 500 list nor a submissions file nor FinanceDatabase
	// under its own ticker, so its screening says its classification is unknown.
	var unknown []string
	for _, sym := range []string{"AAPL", "ABBV", "ADBE", "AMZN", "BA", "CRM", "GOOGL", "HD", "HUBS", "IBM", "JNJ", "KO", "MA", "META",
		"NFLX", "NKE", "NVDA", "PG", "TSLA", "UNH", "UNP", "V", "WFC", "WMT", "XOM"} {
		a, ok := as[sym]
		if !ok {
			t.Errorf("%s: no record", sym)
			continue
		}
		c := screening.ClassificationOf(a)
		if !c.Known() {
			unknown = append(unknown, sym)
			r := screenBusiness(t, a)
			if r.BusinessScreenPass != nil || r.ComplianceStatus != "INSUFFICIENT_DATA" ||
				!strings.Contains(strings.Join(r.DataQuality.Notes, " "), "business classification unknown") {
				t.Errorf("%s unclassified: %s %v %v", sym, r.ComplianceStatus, r.BusinessScreenPass, r.DataQuality.Notes)
			}
		}
		t.Logf("%-5s %-17s %s", sym, c.Basis, c.Text)
	}
	if strings.Join(unknown, " ") != "HUBS" {
		t.Errorf("unclassified: %v, want HUBS only", unknown)
	}
	if r := screenBusiness(t, as["WFC"]); r.BusinessScreenPass == nil || *r.BusinessScreenPass {
		t.Errorf("WFC (Diversified Banks): business pass %v", r.BusinessScreenPass)
	}
}
