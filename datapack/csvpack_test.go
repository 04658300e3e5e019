package datapack

import (
	"strings"
	"testing"
	"testing/fstest"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/datapack/defaultpack"
)

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func TestReadPackReportsBadRowsWithFileAndLine(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"companies.csv": file("symbol,name,asset_type,exchange,country,currency,sector,industry,sic,cik,isin,extra\n" +
			"aapl,Apple Inc.,equity,NASDAQ,United States,usd,Information Technology,Hardware,3571,320193,US0378331005,ignored\n" +
			"BAD SYMBOL,X,equity,,,,,,,,,\n" + // line 3
			"MSFT,,equity,,,,,,,,,\n" + // line 4: no name
			"SPUS,SP Funds,etf,,,,,,,,US0378331006,\n" + // line 5: ISIN check digit
			"AAPL,Dup,equity,,,,,,,,,\n" + // line 6: duplicate
			"KO,Coca-Cola,bond,,,,,,,,,\n"), // line 7: type
		"fundamentals.csv": file("symbol,period_end,period,total_assets,total_debt,source,source_ref\n" +
			"AAPL,2024-09-28,FY,364980000000,96700000000,filing,0000320193-24-000123\n" +
			"AAPL,2024-13-01,Q1,1,,filing,x\n" + // line 3: date
			"AAPL,2024-06-29,Q3,-5,,illustrative,\n" + // line 4: negative
			"AAPL,2024-06-29,Q3,5,,filing,\n" + // line 5: filing without ref
			"AAPL,2024-06-29,H1,5,,illustrative,\n"), // line 6: period
		"prices.csv": file("symbol,date,open,high,low,close,volume\n" +
			"AAPL,2024-01-02,185.0,186.5,184.1,185.64,82488700\n" +
			"AAPL,2024-01-03,184.2,185.9,183.4,184.25,58414500\n" +
			"AAPL,2024-01-04,x,1,1,1,1\n" + // line 4
			"AAPL,2024-01-05,10,9,8,9.5,1\n" + // line 5: high below open
			"AAPL,2024-01-02,185.0,186.5,184.1,185.70,1\n"), // later row wins its date
		"etf_holdings.csv": file("etf_symbol,holding_symbol,name,weight,shares,market_value,as_of\n" +
			"SPUS,NVDA,NVIDIA,13.33%,1851709,384044446.6,2026-07-17\n" +
			"SPUS,,Cash,0.0102,,,2026-07-17\n" +
			"SPUS,AAPL,Apple,130%,,,2026-07-17\n"), // line 4
		"notes.txt": file("hello"),
	}
	p := ReadPack(fsys, "test-pack", false)
	want := map[string]bool{
		"companies.csv:3": true, "companies.csv:4": true, "companies.csv:5": true, "companies.csv:6": true, "companies.csv:7": true,
		"fundamentals.csv:3": true, "fundamentals.csv:4": true, "fundamentals.csv:5": true, "fundamentals.csv:6": true,
		"prices.csv:4": true, "prices.csv:5": true, "etf_holdings.csv:4": true, "notes.txt:0": true,
	}
	got := map[string]bool{}
	for _, pr := range p.Problems {
		got[pr.File+":"+itoa(pr.Line)] = true
	}
	for k := range want {
		if !got[k] {
			t.Errorf("problem %s not reported; got %v", k, p.Problems)
		}
	}
	if len(p.Problems) != len(want) {
		t.Errorf("%d problems, want %d: %v", len(p.Problems), len(want), p.Problems)
	}
	if len(p.Assets) != 1 || p.Assets[0].Symbol != "AAPL" || p.Assets[0].Currency != "USD" || p.Assets[0].CIK != "0000320193" || p.Assets[0].Source != "test-pack" {
		t.Fatalf("assets %+v", p.Assets)
	}
	if len(p.Fundamentals) != 1 || p.Fundamentals[0].Facts[shariah.TotalDebt].Value.String() != "96700000000" ||
		p.Fundamentals[0].Facts[shariah.TotalAssets].Ref != "0000320193-24-000123" {
		t.Fatalf("fundamentals %+v", p.Fundamentals)
	}
	if len(p.Series) != 1 || len(p.Series[0].Bars) != 2 || p.Series[0].Bars[0].Close.String() != "185.70" || p.Series[0].Source != shariah.SourceHistory {
		t.Fatalf("series %+v", p.Series)
	}
	if len(p.Holdings) != 2 || p.Holdings[0].Weight.String() != "0.1333" || p.Holdings[1].Symbol != "" {
		t.Fatalf("holdings %+v", p.Holdings)
	}
}

func TestReadPackMissingColumnsSkipsTheFile(t *testing.T) {
	t.Parallel()
	p := ReadPack(fstest.MapFS{"companies.csv": file("symbol,name\nAAPL,Apple\n")}, "x", false)
	if len(p.Problems) != 1 || !strings.Contains(p.Problems[0].Msg, "asset_type") || len(p.Assets) != 0 {
		t.Fatalf("%+v", p.Problems)
	}
}

func TestDefaultPackIsClean(t *testing.T) {
	t.Parallel()
	p := ReadPack(defaultpack.FS, "default-pack", true)
	if len(p.Problems) != 0 {
		t.Fatalf("default pack has problems: %v", p.Problems)
	}
	countries, sectors := map[string]bool{}, map[string]bool{}
	equities := 0
	for _, a := range p.Assets {
		if a.Type == shariah.Equity {
			equities++
			countries[a.Country], sectors[a.Sector] = true, true
		}
	}
	if equities < 30 || len(countries) < 8 || len(sectors) < 8 {
		t.Fatalf("default universe: %d equities, %d countries, %d sectors", equities, len(countries), len(sectors))
	}
	for _, s := range p.Series {
		if s.Source != shariah.SourceIllustrative {
			t.Fatalf("%s prices not labelled illustrative", s.Symbol)
		}
	}
	for _, h := range p.Holdings {
		if h.Source != shariah.SourceIllustrative {
			t.Fatalf("holding not labelled illustrative: %+v", h)
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// TestPricesRowGaps: what a prices row leaves empty is recorded as unknown in its candle (served as
// null), never made up: a close-only row, a row without volume, a row without high and low.
func TestPricesRowGaps(t *testing.T) {
	t.Parallel()
	p := ReadPack(fstest.MapFS{
		"companies.csv": file("symbol,name,asset_type,country,currency\nZZ,Test,equity,United States,USD\n"),
		"prices.csv": file("symbol,date,open,high,low,close,volume\n" +
			"ZZ,2024-01-02,,,,10.5,\n" + // close only
			"ZZ,2024-01-03,10.4,11,10.1,10.9,\n" + // no volume
			"ZZ,2024-01-04,10.9,,,11.2,500\n" + // no high and low
			"ZZ,2024-01-05,11.2,11.5,11,11.3,0\n"), // full, a zero volume
	}, "gaps", false)
	if len(p.Problems) != 0 || len(p.Series) == 0 {
		t.Fatalf("%v %v", p.Problems, p.Series)
	}
	var daily []shariah.Bar
	for _, s := range p.Series {
		if s.Interval == "1d" {
			daily = s.Bars
		}
	}
	want := []shariah.BarGaps{shariah.CloseOnly, shariah.NoVolume, shariah.NoHighLow, 0}
	if len(daily) != len(want) {
		t.Fatalf("bars %+v", daily)
	}
	for i, b := range daily {
		if b.Gaps != want[i] {
			t.Errorf("row %d: gaps %v, want %v", i+2, b.Gaps, want[i])
		}
	}
	if c := daily[2].Candle(); c.Open == nil || c.High != nil || c.Low != nil || c.Volume == nil || *c.Volume != 500 {
		t.Errorf("no high and low: %+v", c)
	}
	if c := daily[3].Candle(); c.Volume == nil || *c.Volume != 0 {
		t.Errorf("a zero volume given is served as 0: %+v", c)
	}
}
