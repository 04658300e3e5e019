package sec

import (
	"strings"
	"testing"

	"github.com/shariah-screen/shariah"
)

// Submissions: the fixture and the real files (shared data folder).

func TestFixtureSubmissions(t *testing.T) {
	t.Parallel()
	s, err := ParseSubmissions(fixture(t, "exa_submissions.json"))
	if err != nil {
		t.Fatal(err)
	}
	a := s.Asset()
	wantAsset := shariah.Asset{Symbol: "EXA-B", Name: "Example Corp", Type: shariah.Equity, Exchange: "NYSE",
		Country: "United States", Industry: "Services-Prepackaged Software", SIC: "7372", CIK: "0001234567",
		SICDescription: "Services-Prepackaged Software", SICSource: "SEC EDGAR submissions, CIK 0001234567",
		IndustrySource: "SEC EDGAR submissions (SIC description)", Source: "sec-submissions"}
	if a != wantAsset {
		t.Errorf("asset %+v\nwant  %+v", a, wantAsset)
	}
	if s.FiscalYearEnd != "1231" || len(s.FilingIndex.Files) != 1 || s.FilingIndex.Files[0].FilingCount != 12 {
		t.Errorf("fiscal year end %q, files %+v", s.FiscalYearEnd, s.FilingIndex.Files)
	}
	fs := s.Filings()
	if len(fs) != 4 {
		t.Fatalf("%d filings", len(fs))
	}
	want8K := Filing{Accession: "0001234567-25-000007", Form: "8-K", FilingDate: "2025-04-24", ReportDate: "2025-04-24",
		Items: []string{"2.02", "9.01"}, PrimaryDocument: "exa-8k_20250424.htm"}
	if got := fs[1]; got.Accession != want8K.Accession || got.Form != want8K.Form || got.FilingDate != want8K.FilingDate ||
		got.ReportDate != want8K.ReportDate || strings.Join(got.Items, "|") != "2.02|9.01" || got.PrimaryDocument != want8K.PrimaryDocument {
		t.Errorf("8-K row %+v", got)
	}
	if fs[0].Items != nil || fs[3].Form != "10-K" || fs[3].ReportDate != "2024-12-31" {
		t.Errorf("rows %+v %+v", fs[0], fs[3])
	}
}

func TestSubmissionsEdgeCases(t *testing.T) {
	t.Parallel()
	_, err := ParseSubmissions([]byte(`{"cik":"1","filings":{"recent":{"accessionNumber":["a","b"],"form":["10-K"]}}}`))
	if err == nil {
		t.Error("misaligned columns accepted")
	}
	if _, err := ParseSubmissions([]byte(`{"name":"x"}`)); err == nil {
		t.Error("submissions without cik accepted")
	}
	s, err := ParseSubmissions([]byte(`{"cik":"2","entityType":"other","name":"Foreign Fund","tickers":[],"exchanges":[],
		"addresses":{"business":{"stateOrCountry":"X0","stateOrCountryDescription":"United Kingdom"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	a := s.Asset()
	if a.Country != "United Kingdom" || a.Type != "" || a.Symbol != "" || a.CIK != "0000000002" {
		t.Errorf("foreign non-operating entity: %+v", a)
	}
	s, _ = ParseSubmissions([]byte(`{"cik":"3","addresses":{"business":{"stateOrCountry":"","stateOrCountryDescription":""},
		"mailing":{"stateOrCountry":"Z4","stateOrCountryDescription":"Z4"}}}`))
	if c := s.Country(); c != "" {
		t.Errorf("unknown country code gave %q", c)
	}
}

func TestRealSubmissions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file  string
		asset shariah.Asset
		rows  int
	}{
		{"fairvalue/sec-filing-submissions-AAPL.json", shariah.Asset{Symbol: "AAPL", Name: "Apple Inc.", Type: shariah.Equity,
			Exchange: "Nasdaq", Country: "United States", Industry: "Electronic Computers", SIC: "3571", CIK: "0000320193",
			Source: "sec-submissions"}, 1000},
		{"fairvalue/sec-filing-submissions-NVDA.json", shariah.Asset{Symbol: "NVDA", Name: "NVIDIA CORP", Type: shariah.Equity,
			Exchange: "Nasdaq", Country: "United States", Industry: "Semiconductors & Related Devices", SIC: "3674",
			CIK: "0001045810", Source: "sec-submissions"}, 1001},
		{"edgartools/company_submission.json", shariah.Asset{Symbol: "TSLA", Name: "Tesla, Inc.", Type: shariah.Equity,
			Exchange: "Nasdaq", Country: "United States", Industry: "Motor Vehicles & Passenger Car Bodies", SIC: "3711",
			CIK: "0001318605", Source: "sec-submissions"}, 1001},
	} {
		s, err := ParseSubmissions(dataFile(t, c.file))
		if err != nil {
			t.Fatal(err)
		}
		// The SIC code travels with EDGAR's description of it and names its source.
		c.asset.SICDescription, c.asset.SICSource = c.asset.Industry, "SEC EDGAR submissions, CIK "+c.asset.CIK
		c.asset.IndustrySource = "SEC EDGAR submissions (SIC description)"
		if a := s.Asset(); a != c.asset {
			t.Errorf("%s asset %+v\nwant %+v", c.file, a, c.asset)
		}
		fs := s.Filings()
		if len(fs) != c.rows {
			t.Errorf("%s: %d rows, want %d", c.file, len(fs), c.rows)
		}
		for _, f := range fs {
			if f.Accession == "" || f.Form == "" || f.FilingDate == "" {
				t.Errorf("%s: incomplete row %+v", c.file, f)
				break
			}
		}
	}

	// Apple's 8-K 0000320193-24-000120 (results for the quarter ending 2024-09-28), items "2.02,9.01".
	s, err := ParseSubmissions(dataFile(t, "fairvalue/sec-filing-submissions-AAPL.json"))
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, f := range s.Filings() {
		if f.Accession == "0000320193-24-000120" {
			found = true
			if f.Form != "8-K" || strings.Join(f.Items, ",") != "2.02,9.01" || f.ReportDate != "2024-10-31" ||
				f.FilingDate != "2024-10-31" || f.PrimaryDocument != "aapl-20241031.htm" {
				t.Errorf("8-K row %+v", f)
			}
		}
	}
	if !found {
		t.Error("8-K 0000320193-24-000120 not found")
	}

	// Cross-file: every 10-Q/10-K of the submissions within the companyfacts range is a period whose
	// end is the filing's report date and whose total assets cite that accession number.
	fs := fundamentalsOf(t, dataFile(t, "fairvalue/sec-filing-companyfacts-AAPL.json"), "AAPL")
	m := index(t, fs)
	last := fs[len(fs)-1].PeriodEnd
	matched := 0
	for _, f := range s.Filings() {
		if (f.Form != "10-Q" && f.Form != "10-K") || f.ReportDate > last {
			continue
		}
		p := "FY"
		if f.Form == "10-Q" {
			p = ""
			for _, q := range []string{"Q1", "Q2", "Q3"} {
				if _, ok := m[f.ReportDate+" "+q]; ok {
					p = q
				}
			}
		}
		e, ok := m[f.ReportDate+" "+p]
		if !ok {
			t.Errorf("%s %s (report date %s): no period", f.Form, f.Accession, f.ReportDate)
			continue
		}
		if ref := e.Facts[shariah.TotalAssets].Ref; ref != f.Accession {
			t.Errorf("%s: assets cite %s, submissions %s", key(e), ref, f.Accession)
		}
		matched++
	}
	if matched < 20 {
		t.Errorf("only %d periodic reports matched", matched)
	}
}
