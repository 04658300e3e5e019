package screening_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// TestYesNoFollowsPrimary: a ruleset's yes/no (is_compliant, business_screen_pass,
// financial_screen_pass) is its primary methodology's verdict, named by verdict_methodology, while
// compliance_status keeps the agreement of all of them; by_methodology keeps every entry. A ruleset
// naming another primary gives that one's yes/no on the same inputs; ?methodology= names its own.
func TestYesNoFollowsPrimary(t *testing.T) {
	t.Parallel()
	rs := allRulesets(t)
	spec := rs["spec"]
	if spec.Primary != "aaoifi" || spec.PrimaryMethodology().Name != "AAOIFI" {
		t.Fatalf("spec primary %q", spec.Primary)
	}
	// Debt of 31% of total assets and of market cap: only AAOIFI's 30% fails.
	in := base()
	in.Fundamentals[0].Facts[shariah.TotalDebt] = fact(310_000)
	check := func(name string, r screening.Result, status, methodology string, yes bool) {
		t.Helper()
		if r.ComplianceStatus != status || r.VerdictMethodology != methodology || r.IsCompliant == nil || *r.IsCompliant != yes ||
			r.FinancialScreenPass == nil || *r.FinancialScreenPass != yes || r.BusinessScreenPass == nil || !*r.BusinessScreenPass {
			t.Fatalf("%s: %s verdict_methodology %q is_compliant %v financial %v business %v", name, r.ComplianceStatus,
				r.VerdictMethodology, r.IsCompliant, r.FinancialScreenPass, r.BusinessScreenPass)
		}
		if e := r.ByMethodology[screening.MethodologyKey(methodology)]; e.IsCompliant == nil || *e.IsCompliant != yes {
			t.Fatalf("%s: is_compliant %v, %s's entry %v", name, yes, methodology, e.IsCompliant)
		}
		if len(r.ByMethodology) != len(r.Methodologies) || len(r.ByMethodology) == 0 {
			t.Fatalf("%s: by_methodology %d entries, methodologies %d", name, len(r.ByMethodology), len(r.Methodologies))
		}
	}
	r := screening.Screen(in, spec, "")
	check("spec", r, "QUESTIONABLE", "AAOIFI", false)
	// financial_screen_pass false means AAOIFI's ratio is above its threshold (what the bot says).
	if d := r.ByMethodology["AAOIFI"].Ratios[0]; d.ID != "debt" || d.Pass == nil || *d.Pass {
		t.Fatalf("AAOIFI debt %+v", d)
	}
	if !strings.HasSuffix(r.ComplianceExplanation, "The yes/no verdict follows AAOIFI, the ruleset's primary methodology: non-compliant.") {
		t.Fatalf("explanation %q", r.ComplianceExplanation)
	}
	// The same inputs under a ruleset whose primary is S&P (which passes) while AAOIFI fails: yes.
	sp := *spec
	sp.Primary = "sp"
	r = screening.Screen(in, &sp, "")
	check("primary sp", r, "QUESTIONABLE", "S&P", true)
	if r.AAOIFICompliant == nil || *r.AAOIFICompliant || r.Methodologies["AAOIFI"] != screening.NonCompliant {
		t.Fatalf("primary sp: AAOIFI entry lost: %v %v", r.AAOIFICompliant, r.Methodologies)
	}
	// ?methodology= names the methodology the yes/no follows.
	check("methodology=djim", screening.Screen(in, spec, "djim"), "COMPLIANT", "DJIM", true)
	check("view aaoifi of primary sp", r.View(&sp, "aaoifi"), "NON_COMPLIANT", "AAOIFI", false)
	// A one-methodology ruleset: its one methodology.
	check("sp-2023", screening.Screen(in, rs["sp-2023"], ""), "COMPLIANT", "S&P", true)
	// Every ruleset file names a primary among its methodologies (or has one methodology).
	for name, x := range rs {
		if _, ok := x.Methodology(x.PrimaryMethodology().ID); !ok || (len(x.Methodologies) > 1 && x.Primary == "") {
			t.Errorf("ruleset %s: primary %q", name, x.Primary)
		}
	}
	// A primary that is not one of the methodologies is refused.
	b, _ := json.Marshal(spec)
	var m map[string]any
	json.Unmarshal(b, &m)
	m["primary"] = "nope"
	b, _ = json.Marshal(m)
	if _, err := screening.ParseRuleset(b); err == nil || !strings.Contains(err.Error(), `primary "nope"`) {
		t.Fatalf("primary nope: %v", err)
	}
}

// TestYesNoRealFilings screens AAPL, NVDA and KO from the shared data's filings and closes (as
// TestScreenRealFilings does; KO with the default pack's SIC 2080, as load --default then --shared
// classifies it): is_compliant is AAOIFI's verdict, and financial_screen_pass is false exactly when one
// of AAOIFI's ratios is at or above its threshold, so a client printing "above the AAOIFI threshold"
// on financial_screen_pass false says what is true. The figures are logged for the notes.
func TestYesNoRealFilings(t *testing.T) {
	t.Parallel()
	sec, prices := realFilings(t)
	rs := allRulesets(t)
	for _, sym := range []string{"AAPL", "NVDA", "KO"} {
		in := screening.ScreenInputs{PriceSource: shariah.SourceHistory, Now: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)}
		for _, a := range sec.Assets {
			if a.Symbol == sym {
				in.Asset = a
				break
			}
		}
		in.Asset.Currency = "USD"
		if in.Asset.SIC == "" && in.Asset.Sector == "" {
			in.Asset.SIC, in.Asset.Sector = "2080", "Consumer Staples" // KO: the default pack's record
		}
		for _, f := range sec.Fundamentals {
			if f.Symbol == sym {
				in.Fundamentals = append(in.Fundamentals, f)
			}
		}
		for _, s := range prices.Series {
			if s.Symbol == sym && s.Interval == "1mo" {
				in.Monthly = s.Bars
			}
		}
		r := screening.Screen(in, rs["spec"], "")
		a := r.ByMethodology["AAOIFI"]
		aaoifiRatioFails := false
		for _, rr := range a.Ratios {
			aaoifiRatioFails = aaoifiRatioFails || (rr.Pass != nil && !*rr.Pass)
		}
		if r.VerdictMethodology != "AAOIFI" || r.IsCompliant == nil || *r.IsCompliant != (a.Verdict == screening.Compliant) ||
			r.FinancialScreenPass == nil || *r.FinancialScreenPass == aaoifiRatioFails {
			t.Fatalf("%s: is_compliant %v financial %v, AAOIFI %s (a ratio fails: %v)", sym, r.IsCompliant, r.FinancialScreenPass, a.Verdict, aaoifiRatioFails)
		}
		ss21 := screening.Screen(in, rs["aaoifi-ss21"], "")
		t.Logf("%s: %s, is_compliant %v (AAOIFI %s), financial_screen_pass %v; %s | aaoifi-ss21: is_compliant %v",
			sym, r.ComplianceStatus, *r.IsCompliant, a.Verdict, *r.FinancialScreenPass, r.ComplianceExplanation, fmtBool(ss21.IsCompliant))
	}
}

func fmtBool(b *bool) string {
	if b == nil {
		return "null"
	}
	return strconv.FormatBool(*b)
}
