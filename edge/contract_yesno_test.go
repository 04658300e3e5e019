package edge_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
)

// TestContractYesNoFollowsPrimary reads, as the yes/no clients do (by field name and JSON type), a
// company whose methodologies disagree: with receivables at 40% of total assets MSCI (33.33%) fails
// while AAOIFI, the default ruleset's primary, passes. compliance_status stays QUESTIONABLE (four
// states), is_compliant is true (the bot's tick), verdict_methodology names AAOIFI, financial_screen_pass
// is AAOIFI's (true), the per-methodology entries keep MSCI's failure, the explanation names AAOIFI;
// a portfolio scan's status reads COMPLIANT (the tracker's word) and counts it compliant and
// questionable; MCP says the same; ?methodology=msci makes the yes/no MSCI's. Then debt at 31% of total
// assets fails AAOIFI alone: is_compliant false with financial_screen_pass false, an AAOIFI ratio failing.
func TestContractYesNoFollowsPrimary(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	ctx := context.Background()
	set := func(f shariah.Field, share string) {
		t.Helper()
		fs, err := e.ref.Fundamentals(ctx, "MSFT")
		if err != nil || len(fs) == 0 {
			t.Fatalf("MSFT fundamentals: %v", err)
		}
		last := fs[len(fs)-1]
		assets := last.Facts[shariah.TotalAssets].Value.Decimal
		last.Facts[f] = shariah.Fact{Value: shariah.NewNumber(assets.Mul(decimal.RequireFromString(share)).Round(0)), Source: shariah.SourceIllustrative, Ref: "test"}
		if err := e.ref.PutFundamentals(ctx, map[string][]shariah.Fundamentals{"MSFT": {last}}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.ref.BumpVersion(ctx); err != nil {
			t.Fatal(err)
		}
		e.awaitData(t)
	}
	set(shariah.Receivables, "0.40")
	r := e.do(t, "POST", "/api/screen/MSFT", map[string]any{}, k).json(t)
	r = checkScreening(t, "screen MSFT", r)
	by, _ := field(t, "screen MSFT", r, "by_methodology", "object").(map[string]any)
	msci, _ := by["MSCI"].(map[string]any)
	if r["compliance_status"] != "QUESTIONABLE" || r["shariah_compliance_status"] != "questionable" ||
		field(t, "screen MSFT", r, "is_compliant", "boolean", "null") != true || r["verdict_methodology"] != "AAOIFI" ||
		field(t, "screen MSFT", r, "financial_screen_pass", "boolean", "null") != true || msci["is_compliant"] != false ||
		r["aaoifi_compliant"] != true || r["msci_compliant"] != false {
		t.Fatalf("MSFT: status %v is_compliant %v verdict_methodology %v financial %v MSCI %v", r["compliance_status"], r["is_compliant"],
			r["verdict_methodology"], r["financial_screen_pass"], msci["is_compliant"])
	}
	if ex, _ := r["compliance_explanation"].(string); !strings.Contains(ex, "The yes/no verdict follows AAOIFI, the ruleset's primary methodology: compliant.") {
		t.Errorf("explanation %q", ex)
	}
	scan := e.do(t, "POST", "/api/portfolio/scan", map[string]any{"symbols": []string{"MSFT"}}, k).json(t)
	it, _ := scan["results"].(map[string]any)["MSFT"].(map[string]any)
	sum, _ := scan["summary"].(map[string]any)
	if it["status"] != "COMPLIANT" || it["compliance_status"] != "QUESTIONABLE" || it["is_compliant"] != true ||
		sum["compliant"] != 1.0 || sum["questionable"] != 1.0 || sum["non_compliant"] != 0.0 {
		t.Fatalf("scan: status %v compliance_status %v is_compliant %v summary %v", it["status"], it["compliance_status"], it["is_compliant"], sum)
	}
	m := callTool(t, mcpClient(t, e), "screen_stock", map[string]any{"symbol": "MSFT"})
	if m["is_compliant"] != true || m["verdict_methodology"] != "AAOIFI" || m["compliance_status"] != "QUESTIONABLE" {
		t.Fatalf("MCP screen_stock: %v %v %v", m["is_compliant"], m["verdict_methodology"], m["compliance_status"])
	}
	v := e.do(t, "GET", "/api/result/MSFT?methodology=msci", nil, k).json(t)
	if v["is_compliant"] != false || v["verdict_methodology"] != "MSCI" || v["financial_screen_pass"] != false || v["compliance_status"] != "NON_COMPLIANT" {
		t.Fatalf("?methodology=msci: %v %v %v %v", v["is_compliant"], v["verdict_methodology"], v["financial_screen_pass"], v["compliance_status"])
	}

	set(shariah.Receivables, "0.0001")
	set(shariah.TotalDebt, "0.31")
	r = checkScreening(t, "screen MSFT debt", e.do(t, "POST", "/api/screen/MSFT", map[string]any{}, k).json(t))
	if r["compliance_status"] != "QUESTIONABLE" || r["is_compliant"] != false || r["financial_screen_pass"] != false || r["aaoifi_compliant"] != false ||
		r["ftse_compliant"] != true {
		t.Fatalf("MSFT debt 31%%: status %v is_compliant %v financial %v AAOIFI %v FTSE %v", r["compliance_status"], r["is_compliant"],
			r["financial_screen_pass"], r["aaoifi_compliant"], r["ftse_compliant"])
	}
}
