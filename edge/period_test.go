package edge_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/datapack"
	"github.com/shariah-screen/shariah/insights"
)

// TestSharedTenKCompaniesOnePeriod loads the SEC filings of the shared data set and, for every company
// whose screening stands on a 10-K (its latest filing), checks that /api/filings/{symbol}/provenance and
// /api/database/stock/{symbol} show the inputs the screening used, from the same period with the same
// label: the fiscal year, not its fourth quarter. Figures that depend on which concepts feed an input
// (debt, cash) are compared between the answers, not written here; ABBV's revenue and total assets are
// checked against its 10-K by hand.
func TestSharedTenKCompaniesOnePeriod(t *testing.T) {
	t.Parallel()
	dir := sharedData(t, "sec/ixbrl")
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanEnterprise))
	p := datapack.ReadSEC(os.DirFS(dir))
	if _, err := datapack.Load(context.Background(), e.ref, p, datapack.Extras{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.traj.PutTrajectories(context.Background(), insights.FiledTrajectoriesOf(p.Fundamentals)); err != nil {
		t.Fatal(err)
	}
	e.awaitData(t)

	// The companies with an inline-XBRL filing whose latest period is a fiscal year (from its 10-K).
	latest := map[string]shariah.Fundamentals{}
	for _, f := range p.Fundamentals {
		ta, ok := f.Facts[shariah.TotalAssets]
		if !ok || ta.Document == "" { // inline-XBRL documents name their document
			continue
		}
		if l, ok := latest[f.Symbol]; !ok || f.PeriodEnd > l.PeriodEnd || (f.PeriodEnd == l.PeriodEnd && f.Period == "FY") {
			latest[f.Symbol] = f
		}
	}
	var tenK []string
	for sym, f := range latest {
		if f.Period == "FY" {
			tenK = append(tenK, sym)
		}
	}
	sort.Strings(tenK)
	// By hand from sec/ixbrl/: the 25 companies less those with a later 10-Q (AAPL, BA, HUBS, IBM, JNJ,
	// KO, NFLX, NVDA, TSLA, UNP, XOM) and WFC (statements in an exhibit), with GOOG beside GOOGL.
	if got := strings.Join(tenK, ","); got != "ABBV,ADBE,AMZN,CRM,GOOG,GOOGL,HD,MA,META,NKE,PG,UNH,V,WMT" {
		t.Fatalf("companies screened on a 10-K: %s", got)
	}

	// Every company with an inline-XBRL filing: the answers agree with the screening on each input's
	// value and period; those screened on a 10-K stand on the fiscal year.
	var all []string
	for sym := range latest {
		all = append(all, sym)
	}
	sort.Strings(all)
	fields := []string{"total_assets", "total_debt", "cash_and_securities", "receivables", "total_revenue", "interest_income", "shares_outstanding"}
	for _, sym := range all {
		res := e.do(t, "POST", "/api/screen/"+sym, nil, k).json(t)
		dq := res["data_quality"].(map[string]any)
		label := dq["period_label"]
		isTenK := latest[sym].Period == "FY"
		if isTenK && (dq["period"] != "FY" || label != fmt.Sprintf("FY%d", latest[sym].FiscalYear)) {
			t.Errorf("%s: screened %v %v, want its fiscal year %d", sym, dq["period"], label, latest[sym].FiscalYear)
			continue
		}
		t.Logf("%s: screened on %v; input periods %v", sym, label, dq["input_periods"])
		used := screeningUsed(t, res)
		prov := e.do(t, "GET", "/api/filings/"+sym+"/provenance", nil, k).json(t)
		stock := e.do(t, "GET", "/api/database/stock/"+sym, nil, k).json(t)
		if prov["period"] != dq["period"] || prov["period_label"] != label || stock["fundamentals"].(map[string]any)["period"] != dq["period"] ||
			stock["data_quality"].(map[string]any)["period_label"] != label {
			t.Errorf("%s: provenance %v %v, stock view %v", sym, prov["period"], prov["period_label"], stock["data_quality"])
		}
		periods := dq["input_periods"].(map[string]any)
		pin, sin := prov["inputs"].(map[string]any), stock["inputs"].(map[string]any)
		facts := stock["fundamentals"].(map[string]any)["facts"].(map[string]any)
		for _, f := range fields {
			pv, sv := pin[f].(map[string]any), sin[f].(map[string]any)
			if (isTenK && periods[f] != label) || pv["period_label"] != periods[f] || sv["period_label"] != periods[f] {
				t.Errorf("%s %s: periods screening %v, provenance %v, stock view %v (screened %v)", sym, f, periods[f], pv["period_label"], sv["period_label"], label)
			}
			carried := periods[f] != label
			if carried != (pv["carried_forward"] == true) || carried != (sv["carried_forward"] == true) {
				t.Errorf("%s %s: carried %v; provenance %v, stock view %v", sym, f, carried, pv["carried_forward"], sv["carried_forward"])
			}
			u, known := used[f]
			switch {
			case !known: // shares: the market cap's, not among the ratios' figures
				if pv["available"] != sv["available"] || pv["value"] != sv["value"] {
					t.Errorf("%s %s: provenance %v, stock view %v", sym, f, pv, sv)
				}
			case u == nil: // the screening found it missing: so do the others, in the same period
				if pv["available"] != false || sv["available"] != false || (!carried && facts[f] != nil) {
					t.Errorf("%s %s: the screening lacks it, provenance %v, stock view %v", sym, f, pv, sv)
				}
			default:
				fv, _ := facts[f].(map[string]any)
				if pv["available"] != true || pv["value"] != u || sv["value"] != u || (!carried && (fv == nil || fv["value"] != u)) {
					t.Errorf("%s %s: the screening used %v; provenance %v, stock view %v, facts %v", sym, f, u, pv["value"], sv["value"], fv)
				}
				if isTenK && (pv["form"] != "10-K" || sv["form"] != "10-K") {
					t.Errorf("%s %s: from %v / %v, want the 10-K", sym, f, pv["form"], sv["form"])
				}
			}
		}
		// The trajectory keeps the quarter, and says it came from the 10-K whose fiscal year is screened.
		tr := e.do(t, "GET", "/api/insights/"+sym+"/trajectory", nil, k).json(t)
		qs := tr["quarters"].([]any)
		if len(qs) == 0 {
			t.Errorf("%s: no trajectory", sym)
			continue
		}
		last := qs[len(qs)-1].(map[string]any)
		if !isTenK {
			if last["from_annual_filing"] != false || last["form"] != "10-Q" {
				t.Errorf("%s: latest trajectory quarter %v, want its 10-Q", sym, last)
			}
			continue
		}
		if last["period"] != "Q4" || last["from_annual_filing"] != true || last["form"] != "10-K" || last["label"] != fmt.Sprintf("Q4 %d", latest[sym].FiscalYear) ||
			!strings.Contains(fmt.Sprint(last["note"]), label.(string)) {
			t.Errorf("%s: latest trajectory quarter %v", sym, last)
		}
	}

	// ABBV, by hand: abbv-10-k-2025-02-14.html, Consolidated Statements of Earnings, "Net revenues"
	// 56,334 (us-gaap:Revenues, fact f-56, context c-1 = 2024-01-01..2024-12-31, in millions); the
	// fourth quarter's 15,102 (context c-528, 2024-10-01..2024-12-31) is the figure the provenance
	// showed before. Consolidated Balance Sheets, "Total assets" 135,161 (us-gaap:Assets, fact f-177,
	// context c-13 = 2024-12-31).
	prov := e.do(t, "GET", "/api/filings/ABBV/provenance", nil, k).json(t)
	in := prov["inputs"].(map[string]any)
	rev, ta := in["total_revenue"].(map[string]any), in["total_assets"].(map[string]any)
	if rev["value"] != 56334e6 || rev["period_label"] != "FY2024" || ta["value"] != 135161e6 || ta["period_label"] != "FY2024" {
		t.Errorf("ABBV provenance: revenue %v %v, total assets %v %v", rev["value"], rev["period_label"], ta["value"], ta["period_label"])
	}
}

// screeningUsed reads the inputs a spec screening used from its answer: AAOIFI's ratios over total
// assets (debt, cash, receivables and total assets) and its impure-revenue ratio over revenue, and the
// revenue breakdown's interest income. An input the screening found missing maps to nil.
func screeningUsed(t *testing.T, res map[string]any) map[string]any {
	t.Helper()
	out := map[string]any{}
	aaoifi := res["by_methodology"].(map[string]any)["AAOIFI"].(map[string]any)
	for _, r := range aaoifi["ratios"].([]any) {
		rr := r.(map[string]any)
		switch rr["id"] {
		case "debt":
			out["total_debt"], out["total_assets"] = rr["numerator"], rr["denominator"]
		case "cash":
			out["cash_and_securities"] = rr["numerator"]
		case "receivables":
			out["receivables"] = rr["numerator"]
		case "impure_revenue":
			out["total_revenue"] = rr["denominator"]
		}
	}
	out["interest_income"] = res["revenue_breakdown"].(map[string]any)["interest_income"]
	return out
}
