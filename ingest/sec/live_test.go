package sec_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/ingest/sec"
)

// withNewFiling returns real submissions JSON with one filing prepended to every column of the recent
// filings, as EDGAR lists a filing made today.
func withNewFiling(t *testing.T, subs []byte, row map[string]any) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(subs, &doc); err != nil {
		t.Fatal(err)
	}
	recent := doc["filings"].(map[string]any)["recent"].(map[string]any)
	for col, v := range recent {
		list, ok := v.([]any)
		if !ok {
			continue
		}
		val, ok := row[col]
		if !ok {
			val = ""
			if len(list) > 0 {
				if _, num := list[0].(float64); num {
					val = 0
				}
			}
		}
		recent[col] = append([]any{val}, list...)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLiveFilingDocument: EDGAR lists a 10-Q that companyfacts does not hold yet. The ingester reads
// its primary document (the real NVDA 10-Q for the quarter ending 2025-07-27, inline XBRL) and stores
// the new quarter with the filing's accession and document, next to the companyfacts history, within
// the same run; the trajectory stays companyfacts'. A broken document is reported with its name and
// changes nothing stored.
func TestLiveFilingDocument(t *testing.T) {
	t.Parallel()
	dir := sharedDir(t)
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Skipf("shared file %s: %v", rel, err)
		}
		return b
	}
	st := startStores(t)
	ctx := context.Background()
	ed := newEdgar()
	srv := httptest.NewServer(ed)
	defer srv.Close()
	const subsPath, cfPath = "/submissions/CIK0001045810.json", "/api/xbrl/companyfacts/CIK0001045810.json"
	ed.set("/files/company_tickers.json", read("sec/edgartools/company_tickers.json"))
	ed.set(cfPath, read("sec/fairvalue/sec-filing-companyfacts-NVDA.json"))
	realSubs := read("sec/fairvalue/sec-filing-submissions-NVDA.json")
	document := read("sec/ixbrl/nvda/10q/nvda-10-q-2025-08-27.html")
	// The accession numbers are made up by this test (the shared set has the document, not its URL).
	const accn, docName = "0001045810-25-999999", "nvda-20250727.htm"
	ed.set(subsPath, withNewFiling(t, realSubs, map[string]any{"accessionNumber": accn, "filingDate": "2025-08-27",
		"reportDate": "2025-07-27", "form": "10-Q", "primaryDocument": docName}))
	ed.set("/Archives/edgar/data/1045810/000104581025999999/"+docName, document)

	c := &sec.Client{HTTP: &httpx.Client{UserAgent: "test test@example.com", Limiter: countingLimiter()}, WWWBase: srv.URL, DataBase: srv.URL}
	src := st.source(c, []string{"NVDA"})
	rep, err := src.Ingest(ctx)
	if err != nil || rep.Documents != 1 || rep.Updated != 1 {
		t.Fatalf("ingest: %+v %v", rep, err)
	}
	fs, err := st.ref.Fundamentals(ctx, "NVDA")
	if err != nil {
		t.Fatal(err)
	}
	var q2, older *shariah.Fundamentals
	for i := range fs {
		switch fs[i].PeriodEnd + " " + fs[i].Period {
		case "2025-07-27 Q2":
			q2 = &fs[i]
		case "2024-10-27 Q3":
			older = &fs[i]
		}
	}
	if q2 == nil {
		t.Fatalf("no quarter from the new filing's document")
	}
	a := q2.Facts[shariah.TotalAssets]
	if a.Ref != accn || a.Document != docName || a.Form != "10-Q" || a.Filed != "2025-08-27" || a.CIK != "0001045810" || !a.Value.IsPositive() {
		t.Fatalf("new quarter's provenance %+v", a)
	}
	if r := q2.Facts[shariah.TotalRevenue]; r.Ref != accn || r.Value.String() != "46743000000" {
		t.Fatalf("new quarter's revenue %+v", r)
	}
	if older == nil || older.Facts[shariah.TotalAssets].Ref != "0001045810-24-000316" {
		t.Fatalf("companyfacts history: %+v", older)
	}
	traj, err := st.traj.Trajectory(ctx, "NVDA", 8)
	if err != nil || len(traj) == 0 {
		t.Fatalf("trajectory %v %v", traj, err)
	}
	for _, p := range traj {
		if p.PeriodEnd > "2024-10-27" {
			t.Fatalf("trajectory point %s from the document; the history is companyfacts'", p.PeriodEnd)
		}
	}

	// A later filing whose document is truncated: the run reports it by name and nothing changes.
	const accn2 = "0001045810-25-999998"
	ed.set(subsPath, withNewFiling(t, realSubs, map[string]any{"accessionNumber": accn2, "filingDate": "2025-11-19",
		"reportDate": "2025-10-26", "form": "10-Q", "primaryDocument": "nvda-20251026.htm"}))
	ed.set("/Archives/edgar/data/1045810/000104581025999998/nvda-20251026.htm", document[:len(document)/2])
	rep, err = src.Ingest(ctx)
	if err == nil || !strings.Contains(err.Error(), "nvda-20251026.htm") || !strings.Contains(err.Error(), "truncated") || rep.Failed != 1 {
		t.Fatalf("broken document: %+v %v", rep, err)
	}
	after, _ := st.ref.Fundamentals(ctx, "NVDA")
	for _, f := range after {
		for field, fact := range f.Facts {
			if fact.Ref == accn2 {
				t.Fatalf("%s %s %s stored from the broken document", f.PeriodEnd, f.Period, field)
			}
		}
		if f.PeriodEnd == "2025-07-27" && f.Period == "Q2" && f.Facts[shariah.TotalAssets].Ref != accn {
			t.Fatalf("stored quarter changed: %+v", f.Facts[shariah.TotalAssets])
		}
	}
	if len(after) != len(fs) {
		t.Fatalf("periods %d, before %d", len(after), len(fs))
	}
}
