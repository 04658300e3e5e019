package edge_test

import (
	"context"
	"encoding/csv"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	sredis "github.com/shariah-screen/shariah/redis"
)

func TestCSVExportIsSafeRFC4180(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	// A record whose name a spreadsheet would run as a formula.
	rc, err := sredis.Open(e.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	st := sredis.NewRefStore(rc)
	ctx := context.Background()
	if err := st.PutAssets(ctx, []shariah.Asset{{Symbol: "EVIL", Name: "=HYPERLINK(\"http://x\",\"y\")", Type: shariah.Equity,
		Sector: "Industrials", Industry: "Machinery", Currency: "USD"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.BumpVersion(ctx); err != nil {
		t.Fatal(err)
	}
	// the catalog reloads on the new version (its cached version may lag by up to a second)
	deadline := time.Now().Add(5 * time.Second)
	for e.do(t, "POST", "/api/screen/EVIL", nil, k).StatusCode != 200 {
		if time.Now().After(deadline) {
			t.Fatal("EVIL never became screenable")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// MSFT stands on illustrative inputs in the default pack: its row's marks column says so.
	if r := e.do(t, "POST", "/api/screen/MSFT", nil, k); r.StatusCode != 200 {
		t.Fatalf("screen MSFT: %d %s", r.StatusCode, r.body)
	}
	req := httptest.NewRequest("GET", "http://example.com/api/reports/export/csv", nil)
	req.Header.Set("X-API-Key", k["X-API-Key"])
	resp, err := e.srv.App().Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), "attachment; filename=") || !strings.Contains(string(body), "\r\n") {
		t.Fatalf("csv: %d %v", resp.StatusCode, resp.Header)
	}
	rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if rows[0][0] != "symbol" || len(rows) < 2 {
		t.Fatalf("header %v", rows[0])
	}
	marksCol := len(rows[0]) - 1
	if rows[0][marksCol] != "marks" {
		t.Fatalf("no marks column: %v", rows[0])
	}
	found, msft := false, false
	for _, row := range rows[1:] {
		if row[0] == "MSFT" {
			msft = true
			if row[marksCol] != "illustrative" {
				t.Fatalf("MSFT's marks column %q", row[marksCol])
			}
		}
		if row[0] == "EVIL" {
			found = true
			if !strings.HasPrefix(row[1], "'=") {
				t.Fatalf("formula not neutralised: %q", row[1])
			}
		}
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
				t.Fatalf("unsafe cell %q", cell)
			}
		}
	}
	if !found || !msft {
		t.Fatalf("EVIL exported %v, MSFT %v", found, msft)
	}
}
