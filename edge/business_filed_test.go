package edge_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/datapack"
)

// TestSharedBusinessClassification loads the shared data set as load --shared does and screens over
// REST: UNH (GICS sub-industry Managed Health Care, no SIC code in the shared data) fails the business
// screen as conventional insurance; AAPL's screening names its SIC code from its EDGAR submissions
// beside its GICS sub-industry; HUBS, which no shared file classifies, says so and never passes.
func TestSharedBusinessClassification(t *testing.T) {
	t.Parallel()
	dir := sharedData(t, datapack.PathSP500Constituents)
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanEnterprise))
	p, x, err := datapack.ReadAllShared(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := datapack.Load(context.Background(), e.ref, p, x, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.awaitData(t)
	screen := func(sym string) (map[string]any, map[string]any) {
		r := e.do(t, "POST", "/api/screen/"+sym, nil, k)
		if r.StatusCode != 200 {
			t.Fatalf("%s: %d %s", sym, r.StatusCode, r.body)
		}
		m := r.json(t)
		c, _ := m["business_classification"].(map[string]any)
		return m, c
	}

	unh, c := screen("UNH")
	if unh["compliance_status"] != "NON_COMPLIANT" || unh["business_screen_pass"] != false ||
		unh["business_screen_reason"] != "conventional insurance (GICS sub-industry Managed Health Care)" {
		t.Errorf("UNH: %v %v %v", unh["compliance_status"], unh["business_screen_pass"], unh["business_screen_reason"])
	}
	if c["basis"] != "industry" || c["industry"] != "Managed Health Care" || !strings.Contains(c["industry_source"].(string), "GICS sub-industry") {
		t.Errorf("UNH classification %v", c)
	}
	for key, v := range unh["by_methodology"].(map[string]any) {
		bs := v.(map[string]any)["business_screen"].(map[string]any)
		if bs["pass"] != false || !strings.HasPrefix(bs["reason"].(string), "prohibited: conventional insurance (GICS sub-industry Managed Health Care, from S&P 500 constituents") {
			t.Errorf("UNH %s business screen %v", key, bs)
		}
	}

	aapl, c := screen("AAPL")
	if c["basis"] != "sic_and_industry" || c["sic"] != "3571" || c["sic_description"] != "Electronic Computers" ||
		c["sic_source"] != "SEC EDGAR submissions, CIK 0000320193" || aapl["business_screen_pass"] != true {
		t.Errorf("AAPL classification %v, business %v", c, aapl["business_screen_pass"])
	}
	bs := aapl["by_methodology"].(map[string]any)["AAOIFI"].(map[string]any)["business_screen"].(map[string]any)
	if r, _ := bs["reason"].(string); !strings.Contains(r, "SIC 3571 Electronic Computers (SEC EDGAR submissions, CIK 0000320193)") ||
		!strings.Contains(r, "GICS sub-industry Technology Hardware, Storage & Peripherals") {
		t.Errorf("AAPL business reason %q", r)
	}

	hubs, c := screen("HUBS")
	notes := strings.Join(strs(hubs["data_quality"].(map[string]any)["notes"]), " | ")
	// (its verdict may still be non-compliant on a filed ratio: a failing ratio decides without a classification)
	if c["basis"] != "none" || hubs["business_screen_pass"] != nil || hubs["compliance_status"] == "COMPLIANT" ||
		!strings.Contains(notes, "business classification unknown") || !strings.Contains(hubs["business_screen_reason"].(string), "business classification unknown") {
		t.Errorf("HUBS: %v %v %v %q %v", c, hubs["business_screen_pass"], hubs["compliance_status"], notes, hubs["business_screen_reason"])
	}
}
