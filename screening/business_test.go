package screening_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// TestActivityMappingBySIC: SIC codes, alone (no industry name), map to the activity of
// docs/business-classification.md; codes beside the ranges map to nothing.
func TestActivityMappingBySIC(t *testing.T) {
	t.Parallel()
	cases := []struct {
		sic      string
		category string // "" = nothing found
		activity string
		primary  bool
	}{
		{"6021", "conventional_finance", "conventional finance", true},   // national commercial banks
		{"6022", "conventional_finance", "conventional finance", true},   // state commercial banks
		{"6099", "conventional_finance", "conventional finance", true},   // functions related to depository banking
		{"6141", "conventional_finance", "conventional finance", true},   // personal credit institutions
		{"6199", "conventional_finance", "conventional finance", true},   // finance services
		{"6211", "conventional_finance", "conventional finance", true},   // security brokers and dealers
		{"6311", "conventional_finance", "conventional insurance", true}, // life insurance
		{"6324", "conventional_finance", "conventional insurance", true}, // hospital and medical service plans (UNH)
		{"6331", "conventional_finance", "conventional insurance", true}, // fire, marine and casualty
		{"6399", "conventional_finance", "conventional insurance", true},
		{"6411", "conventional_finance", "conventional insurance", true},           // insurance agents and brokers
		{"6282", "conventional_finance", "conventional financial services", false}, // investment advice
		{"6200", "conventional_finance", "conventional financial services", false}, // exchanges
		{"2082", "alcohol", "alcohol", true},                                       // malt beverages
		{"2084", "alcohol", "alcohol", true},                                       // wines
		{"2085", "alcohol", "alcohol", true},                                       // distilled spirits
		{"5180", "alcohol", "alcohol", true},                                       // beer, wine and distilled beverages wholesale
		{"5182", "alcohol", "alcohol", true},
		{"2111", "tobacco", "tobacco", true}, // cigarettes
		{"2141", "tobacco", "tobacco", true},
		{"5194", "tobacco", "tobacco", true}, // tobacco wholesale
		{"0213", "pork", "pork", true},       // hogs
		{"213", "pork", "pork", true},        // a pack that dropped the leading zero
		{"2011", "pork", "meat packing (may include pork)", false},
		{"7993", "gambling", "gambling", true},
		{"7011", "gambling", "hotels and motels (may include casino hotels)", false}, // no industry to say which
		{"3484", "weapons", "weapons and ammunition", true},                          // small arms
		{"3482", "weapons", "weapons and ammunition", true},
		{"3489", "weapons", "weapons and ammunition", true},
		{"3795", "defense", "defense", true}, // tanks
		{"3812", "defense", "aerospace and defense", false},
		{"7812", "cinema", "cinema", true},
		{"3652", "music", "music", true},
		// Not prohibited: beside the ranges.
		{"2080", "", "", false}, // beverages (soft drinks)
		{"2086", "", "", false}, // bottled and canned soft drinks
		{"6010", "", "", false},
		{"6100", "", "", false},
		{"6300", "", "", false},
		{"6412", "", "", false},
		{"6798", "", "", false}, // real estate investment trusts
		{"3571", "", "", false}, // electronic computers
		{"3711", "", "", false}, // motor vehicles
		{"7372", "", "", false}, // prepackaged software
		{"x1", "", "", false},   // not a code
	}
	for _, c := range cases {
		acts, known := screening.ClassifyActivities(shariah.Asset{SIC: c.sic})
		if c.sic == "x1" {
			if known || len(acts) != 0 {
				t.Errorf("SIC %q: known %v, %v", c.sic, known, acts)
			}
			continue
		}
		if !known {
			t.Errorf("SIC %s: not known", c.sic)
		}
		var got *screening.Activity
		for i := range acts {
			if acts[i].Category == c.category {
				got = &acts[i]
			}
		}
		if c.category == "" {
			if len(acts) != 0 {
				t.Errorf("SIC %s: %+v, want nothing", c.sic, acts)
			}
			continue
		}
		if got == nil || got.Activity != c.activity || got.Primary != c.primary || !strings.HasPrefix(got.Reason, "SIC ") {
			t.Errorf("SIC %s: %+v, want %s/%s primary %v", c.sic, acts, c.category, c.activity, c.primary)
		}
	}
}

// TestActivityMappingByName: GICS sub-industries (and the GICS industries of FinanceDatabase) map by
// name; the names that are not prohibited map to nothing.
func TestActivityMappingByName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		industry, sector string
		category         string
		activity         string
		primary          bool
	}{
		{"Managed Health Care", "Health Care", "conventional_finance", "conventional insurance", true},
		{"Insurance Brokers", "Financials", "conventional_finance", "conventional insurance", true},
		{"Life & Health Insurance", "Financials", "conventional_finance", "conventional insurance", true},
		{"Multi-line Insurance", "Financials", "conventional_finance", "conventional insurance", true},
		{"Property & Casualty Insurance", "Financials", "conventional_finance", "conventional insurance", true},
		{"Reinsurance", "Financials", "conventional_finance", "conventional insurance", true},
		{"Insurance", "Financials", "conventional_finance", "conventional insurance", true}, // FinanceDatabase
		{"Diversified Banks", "Financials", "conventional_finance", "conventional finance", true},
		{"Regional Banks", "Financials", "conventional_finance", "conventional finance", true},
		{"Consumer Finance", "Financials", "conventional_finance", "conventional finance", true},
		{"Asset Management & Custody Banks", "Financials", "conventional_finance", "conventional finance", true},
		{"Investment Banking & Brokerage", "Financials", "conventional_finance", "conventional finance", true},
		{"Commercial & Residential Mortgage Finance", "Financials", "conventional_finance", "conventional finance", true},
		{"Banks", "Financials", "conventional_finance", "conventional finance", true}, // FinanceDatabase
		{"Multi-Sector Holdings", "Financials", "conventional_finance", "conventional financial services", false},
		{"Financial Exchanges & Data", "Financials", "conventional_finance", "conventional financial services", false},
		{"", "Financials", "conventional_finance", "conventional financial services", false}, // a sector alone
		{"Brewers", "Consumer Staples", "alcohol", "alcohol", true},
		{"Distillers & Vintners", "Consumer Staples", "alcohol", "alcohol", true},
		{"Tobacco", "Consumer Staples", "tobacco", "tobacco", true},
		{"Casinos & Gaming", "Consumer Discretionary", "gambling", "gambling", true},
		{"Hotels, Resorts & Cruise Lines", "Consumer Discretionary", "hotels", "hotels", true},
		{"Movies & Entertainment", "Communication Services", "cinema", "cinema", true},
		{"Aerospace & Defense", "Industrials", "defense", "aerospace and defense", false},
		{"Adult Entertainment", "", "adult_entertainment", "adult entertainment", true},
		// Not prohibited.
		{"Soft Drinks & Non-alcoholic Beverages", "Consumer Staples", "", "", false},
		{"Islamic Banks", "Financials", "", "", false},
		{"Transaction & Payment Processing Services", "Financials", "", "", false},
		{"Health Care Services", "Health Care", "", "", false},
		{"Interactive Home Entertainment", "Communication Services", "", "", false},
		{"Semiconductors", "Information Technology", "", "", false},
		{"Packaged Foods & Meats", "Consumer Staples", "", "", false},
		{"", "Health Care", "", "", false}, // a sector alone, not a financial one
	}
	for _, c := range cases {
		acts, known := screening.ClassifyActivities(shariah.Asset{Industry: c.industry, Sector: c.sector})
		if !known {
			t.Errorf("%q: not known", c.industry)
		}
		if c.category == "" {
			if len(acts) != 0 {
				t.Errorf("%q: %+v, want nothing", c.industry, acts)
			}
			continue
		}
		if len(acts) == 0 || acts[0].Category != c.category || acts[0].Activity != c.activity || acts[0].Primary != c.primary {
			t.Errorf("%q / %q: %+v, want %s/%s primary %v", c.industry, c.sector, acts, c.category, c.activity, c.primary)
		}
	}
	// The SIC code is read first; an industry name narrows a code broader than the activity: 7011
	// beside "Hotels, Resorts & Cruise Lines" is a hotel (MSCI), not a casino.
	acts, _ := screening.ClassifyActivities(shariah.Asset{SIC: "7011", SICDescription: "Hotels & Motels", Industry: "Hotels, Resorts & Cruise Lines"})
	if len(acts) != 1 || acts[0].Category != "hotels" || acts[0].Reason != "SIC 7011 Hotels & Motels" {
		t.Errorf("hotel with a GICS sub-industry: %+v", acts)
	}
	acts, _ = screening.ClassifyActivities(shariah.Asset{SIC: "7011", Industry: "Casinos & Gaming"})
	if len(acts) != 2 || acts[0].Category != "gambling" || !acts[0].Primary || acts[0].Reason != "industry Casinos & Gaming" {
		t.Errorf("casino hotel: %+v", acts)
	}
}

// unh is UnitedHealth Group as the S&P 500 constituents list describes it (GICS sub-industry
// Managed Health Care), with clean ratios: only the business screen can fail it.
func unh() screening.ScreenInputs {
	in := base()
	in.Asset.Symbol, in.Asset.Name = "UNH", "UnitedHealth Group"
	in.Asset.Sector, in.Asset.Industry = "Health Care", "Managed Health Care"
	in.Asset.IndustrySource = "S&P 500 constituents, indices/sp500-datasets (GICS sub-industry)"
	return in
}

// TestManagedHealthCareFailsAsInsurance: a health insurer fails the business screen of every
// methodology as conventional insurance, and every explanation names the classification and source.
func TestManagedHealthCareFailsAsInsurance(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"spec", "aaoifi-ss21", "djim-2026", "ftse-2024", "msci-2025", "sp-2023"} {
		rs := allRulesets(t)[name]
		r := screening.Screen(unh(), rs, "")
		if r.ComplianceStatus != "NON_COMPLIANT" || r.BusinessScreenPass == nil || *r.BusinessScreenPass {
			t.Fatalf("%s: UNH %s, business pass %v", name, r.ComplianceStatus, r.BusinessScreenPass)
		}
		const want = "conventional insurance (GICS sub-industry Managed Health Care)"
		if r.BusinessScreenReason == nil || *r.BusinessScreenReason != want {
			t.Errorf("%s: business_screen_reason %v, want %q", name, r.BusinessScreenReason, want)
		}
		for k, mr := range r.ByMethodology {
			if mr.Verdict != screening.NonCompliant || len(mr.Business.Prohibited) != 1 ||
				!strings.Contains(mr.Reason, "conventional insurance (GICS sub-industry Managed Health Care, from S&P 500 constituents") ||
				!strings.Contains(mr.Business.Reason, "prohibited: conventional insurance") {
				t.Errorf("%s %s: %s %q %q", name, k, mr.Verdict, mr.Reason, mr.Business.Reason)
			}
		}
		if !strings.Contains(r.ComplianceExplanation, "conventional insurance") {
			t.Errorf("%s: explanation %q", name, r.ComplianceExplanation)
		}
	}
	// The same company known only by its SIC code (EDGAR: 6324 Hospital & Medical Service Plans).
	in := unh()
	in.Asset.Sector, in.Asset.Industry, in.Asset.IndustrySource = "", "", ""
	in.Asset.SIC, in.Asset.SICDescription, in.Asset.SICSource = "6324", "Hospital & Medical Service Plans", "SEC EDGAR submissions, CIK 0000731766"
	r := screening.Screen(in, allRulesets(t)["spec"], "")
	if r.ComplianceStatus != "NON_COMPLIANT" || r.BusinessScreenReason == nil ||
		*r.BusinessScreenReason != "conventional insurance (SIC 6324 Hospital & Medical Service Plans)" ||
		r.BusinessActivities[0].Source != "SEC EDGAR submissions, CIK 0000731766" {
		t.Fatalf("UNH by SIC: %s %v %+v", r.ComplianceStatus, r.BusinessScreenReason, r.BusinessActivities)
	}
	// The report (REST and MCP) names the activity and its source.
	var biz string
	for _, s := range screening.ReportSections(r) {
		biz += s.Body
	}
	if !strings.Contains(biz, "conventional insurance (prohibited, from SIC 6324 Hospital & Medical Service Plans, SEC EDGAR submissions") {
		t.Errorf("report: %s", biz)
	}
}

// TestUnclassifiedCompanyIsMarked: no SIC code, industry or sector: no verdict, a data_quality
// note, business_screen_pass null with a reason that says so, and the classification "none".
func TestUnclassifiedCompanyIsMarked(t *testing.T) {
	t.Parallel()
	in := base()
	in.Asset.Sector, in.Asset.Industry, in.Asset.SIC = "", "", ""
	r := screening.Screen(in, allRulesets(t)["spec"], "")
	if r.ComplianceStatus != "INSUFFICIENT_DATA" || r.BusinessScreenPass != nil {
		t.Fatalf("unclassified: %s %v", r.ComplianceStatus, r.BusinessScreenPass)
	}
	if r.BusinessClassification.Basis != screening.BasisNone || !strings.Contains(r.BusinessClassification.Text, "no classification") {
		t.Errorf("classification %+v", r.BusinessClassification)
	}
	if !strings.Contains(strings.Join(r.DataQuality.Notes, " | "), "business classification unknown") {
		t.Errorf("notes %v", r.DataQuality.Notes)
	}
	if r.BusinessScreenReason == nil || !strings.Contains(*r.BusinessScreenReason, "business classification unknown") {
		t.Errorf("business_screen_reason %v", r.BusinessScreenReason)
	}
	for k, mr := range r.ByMethodology {
		if mr.Business.Pass != nil || !strings.Contains(mr.Business.Reason, "business classification unknown") ||
			!strings.Contains(mr.Reason, "business classification unknown") {
			t.Errorf("%s: %v %q %q", k, mr.Business.Pass, mr.Business.Reason, mr.Reason)
		}
	}
	var report string
	for _, s := range screening.ReportSections(r) {
		report += s.Body
	}
	if !strings.Contains(report, "Business classification unknown") {
		t.Errorf("report: %s", report)
	}
	// A classified clean company: the business screen's reason names what was read and where from.
	in = base()
	in.Asset.SIC, in.Asset.SICDescription, in.Asset.SICSource = "3571", "Electronic Computers", "SEC EDGAR submissions, CIK 0000320193"
	in.Asset.Industry, in.Asset.IndustrySource = "Technology Hardware, Storage & Peripherals", "S&P 500 constituents, indices/sp500-datasets (GICS sub-industry)"
	r = screening.Screen(in, allRulesets(t)["spec"], "")
	const text = "SIC 3571 Electronic Computers (SEC EDGAR submissions, CIK 0000320193); GICS sub-industry Technology Hardware, " +
		"Storage & Peripherals (S&P 500 constituents, indices/sp500-datasets (GICS sub-industry))"
	if r.BusinessClassification.Basis != screening.BasisSICAndIndustry || r.BusinessClassification.Text != text {
		t.Errorf("classification %+v", r.BusinessClassification)
	}
	if mr := r.ByMethodology["AAOIFI"]; mr.Business.Reason != "nothing this methodology excludes in "+text || *mr.Business.Pass != true {
		t.Errorf("AAOIFI business %+v", mr.Business)
	}
	if len(r.DataQuality.Notes) != 0 {
		t.Errorf("notes of a classified company %v", r.DataQuality.Notes)
	}
}

// TestMergeKeepsClassificationTogether: a SIC code keeps its own description and source, and an
// industry its source, whichever record comes first.
func TestMergeKeepsClassificationTogether(t *testing.T) {
	t.Parallel()
	gics := shariah.Asset{Symbol: "AAPL", Sector: "Information Technology", Industry: "Technology Hardware, Storage & Peripherals",
		IndustrySource: "gics", Source: "sp500-constituents"}
	subs := shariah.Asset{Symbol: "AAPL", SIC: "3571", SICDescription: "Electronic Computers", SICSource: "edgar",
		Industry: "Electronic Computers", IndustrySource: "edgar-sic", Source: "sec-submissions"}
	m := gics.Merge(subs)
	if m.Industry != gics.Industry || m.IndustrySource != "gics" || m.SIC != "3571" || m.SICDescription != "Electronic Computers" || m.SICSource != "edgar" {
		t.Errorf("GICS first: %+v", m)
	}
	pack := shariah.Asset{Symbol: "AAPL", SIC: "3571", Source: "pack"}
	m = pack.Merge(subs)
	if m.SIC != "3571" || m.SICDescription != "" || m.SICSource != "" || m.Industry != "Electronic Computers" || m.IndustrySource != "edgar-sic" {
		t.Errorf("a code without description keeps none from another source: %+v", m)
	}
}

func BenchmarkClassifyActivities(b *testing.B) {
	a := shariah.Asset{SIC: "3571", SICDescription: "Electronic Computers", SICSource: "SEC EDGAR submissions, CIK 0000320193",
		Sector: "Information Technology", Industry: "Technology Hardware, Storage & Peripherals", IndustrySource: "S&P 500 constituents"}
	b.ReportAllocs()
	for b.Loop() {
		screening.ClassifyActivities(a)
	}
}

// TestActivityRulesDocumented: docs/business-classification.md names every activity, SIC range and
// industry name of ActivityRules, so the table and its documentation cannot drift apart silently.
func TestActivityRulesDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "docs", "business-classification.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.ToLower(string(b))
	for _, r := range screening.ActivityRules {
		if !strings.Contains(doc, strings.ToLower(strings.SplitN(r.Activity, " (", 2)[0])) {
			t.Errorf("activity %q not documented", r.Activity)
		}
		for _, rg := range r.SIC {
			code := fmt.Sprintf("%04d", rg[0])
			if rg[1] != rg[0] {
				code += fmt.Sprintf("-%04d", rg[1])
			}
			if !strings.Contains(doc, code) {
				t.Errorf("%s: SIC %s not documented", r.Activity, code)
			}
		}
		for _, n := range append(append([]string{}, r.Names...), r.Words...) {
			if !strings.Contains(doc, n) {
				t.Errorf("%s: name %q not documented", r.Activity, n)
			}
		}
	}
}
