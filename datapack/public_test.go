package datapack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/market"
)

// ---- helpers

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for name, data := range files {
		m[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return m
}

func assetsBySymbol(as []shariah.Asset) map[string]shariah.Asset {
	m := make(map[string]shariah.Asset, len(as))
	for _, a := range as {
		m[a.Symbol] = a
	}
	return m
}

func indexByName(ix []catalog.IndexInfo) map[string]catalog.IndexInfo {
	m := map[string]catalog.IndexInfo{}
	for _, i := range ix {
		m[i.Name] = i
	}
	return m
}

// wantProblems checks that every (file, line, substring) is among the problems, and that there are no
// others.
func wantProblems(t *testing.T, got []Problem, want ...Problem) {
	t.Helper()
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, g := range got {
			if !used[i] && g.File == w.File && g.Line == w.Line && strings.Contains(g.Msg, w.Msg) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("missing problem %s (got %v)", w, got)
		}
	}
	for i, g := range got {
		if !used[i] {
			t.Errorf("unexpected problem %s", g)
		}
	}
}

func hasNote(p *Pack, sub string) bool {
	for _, n := range p.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func num(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func mustPrice(t *testing.T, s string) shariah.Price {
	t.Helper()
	p, err := shariah.ParsePrice(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ---- fixtures: every reader on small files written here

func TestPubDate(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"2023-01-03": "2023-01-03", "2010/1/4": "2010-01-04", "07/17/2026": "2026-07-17", " 2024-02-29 ": "2024-02-29",
	} {
		d, err := pubDate(in)
		if err != nil || d.Format("2006-01-02") != want {
			t.Errorf("pubDate(%q) = %v, %v; want %s", in, d, err, want)
		}
	}
	for _, in := range []string{"", "2023-13-01", "2023-02-30", "2023-01", "20230103", "2023/01-03", "x", "1/2/3", "2023-01-03T00"} {
		if _, err := pubDate(in); err == nil {
			t.Errorf("pubDate(%q) accepted", in)
		}
	}
}

func TestReadSP500Constituents(t *testing.T) {
	t.Parallel()
	const f = "constituents.csv"
	fsys := mapFS(map[string]string{f: "Symbol,Security,GICS Sector,GICS Sub-Industry,Headquarters Location,Date added,CIK,Founded\n" +
		"MMM,3M,Industrials,Industrial Conglomerates,\"Saint Paul, Minnesota\",1957-03-04,66740,1902\n" +
		"BRK.B,Berkshire Hathaway,Financials,Multi-Sector Holdings,\"Omaha, Nebraska\",2010-02-16,1067983,1839\n" +
		"XYZ,Short\n" + // line 4: too few columns
		"ABC,Abc Corp,Industrials,Machinery,\"X, Y\",2000-01-01,12a4,1900\n" + // line 5: bad CIK, kept
		"b@d,Bad,Industrials,Machinery,\"X, Y\",2000-01-01,1,1900\n" + // line 6: bad symbol
		"MMM,3M again,Industrials,Industrial Conglomerates,\"X, Y\",2000-01-01,66740,1902\n"}) // line 7: duplicate
	p, err := ReadSP500Constituents(fsys, f)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems,
		Problem{f, 4, "2 column(s)"}, Problem{f, 5, "CIK"}, Problem{f, 6, "not a valid symbol"}, Problem{f, 7, "duplicate"})
	as := assetsBySymbol(p.Assets)
	if len(as) != 3 {
		t.Fatalf("assets %v", p.Assets)
	}
	brk := as["BRK-B"]
	want := shariah.Asset{Symbol: "BRK-B", Name: "Berkshire Hathaway", Type: shariah.Equity, Country: "United States",
		Currency: "USD", Sector: "Financials", Industry: "Multi-Sector Holdings", IndustrySource: IndustrySourceSP500, CIK: "0001067983", Source: "sp500-constituents"}
	if brk != want {
		t.Errorf("BRK-B = %+v\nwant %+v", brk, want)
	}
	if as["MMM"].CIK != "0000066740" || as["ABC"].CIK != "" {
		t.Errorf("CIKs %q %q", as["MMM"].CIK, as["ABC"].CIK)
	}
	if len(p.Indices) != 1 {
		t.Fatalf("indices %v", p.Indices)
	}
	ix := p.Indices[0]
	k, _ := catalog.LookupIndex("SP500")
	if ix.Name != "SP500" || ix.Description != k.Description || ix.Country != "United States" || ix.Source != f ||
		strings.Join(ix.Symbols, " ") != "MMM BRK-B ABC" {
		t.Errorf("index %+v", ix)
	}
}

func TestReadSP500ConstituentsMissingColumn(t *testing.T) {
	t.Parallel()
	p, err := ReadSP500Constituents(mapFS(map[string]string{"c.csv": "Symbol,Security\nMMM,3M\n"}), "c.csv")
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems, Problem{"c.csv", 1, "missing column(s) GICS Sector, GICS Sub-Industry"})
	if len(p.Assets) != 0 {
		t.Errorf("assets %v", p.Assets)
	}
	if _, err := ReadSP500Constituents(mapFS(nil), "absent.csv"); err == nil {
		t.Error("missing file: no error")
	}
}

func TestReadYfiuaConstituents(t *testing.T) {
	t.Parallel()
	fsys := mapFS(map[string]string{
		"y/constituents-sp500.csv":   "Symbol,Name\nNVDA,Nvidia\nBRK.B,Berkshire Hathaway\nBF.B,BrownâForman\n\"b d\",Bad\n",
		"y/constituents-hsi.csv":     "Symbol,Name\n0700.HK,Tencent\n0005.HK,HSBC\n",
		"y/constituents-ftse100.csv": "Symbol,Name\nAAF.L,Airtel Africa PLC\nAV/.L,Aviva PLC\nBT/A.L,BT Group PLC\n",
		"y/constituents-nikkei.csv":  "Symbol,Name\n7203.T,Toyota\n",
	})
	p, _ := ReadYfiuaConstituents(fsys, "y/constituents-sp500.csv")
	wantProblems(t, p.Problems, Problem{"y/constituents-sp500.csv", 5, "not a valid symbol"})
	if len(p.Indices) != 1 || p.Indices[0].Name != "SP500" || strings.Join(p.Indices[0].Symbols, " ") != "NVDA BRK-B BF-B" {
		t.Errorf("sp500 %+v", p.Indices)
	}
	if len(p.Assets) != 3 || p.Assets[1] != (shariah.Asset{Symbol: "BRK-B", Name: "Berkshire Hathaway", Type: shariah.Equity,
		Currency: "USD", Source: SourceYfiua}) {
		t.Errorf("yfiua records %+v", p.Assets)
	}
	p, _ = ReadYfiuaConstituents(fsys, "y/constituents-hsi.csv")
	ix := p.Indices[0]
	if ix.Name != "HANGSENG" || ix.Country != "Hong Kong" || ix.Source != "y/constituents-hsi.csv" ||
		strings.Join(ix.Symbols, " ") != "0700.HK 0005.HK" {
		t.Errorf("hsi %+v", ix)
	}
	if a := p.Assets[0]; a.Symbol != "0700.HK" || a.Name != "Tencent" || a.Currency != "HKD" || a.Country != "" {
		t.Errorf("0700.HK %+v", a)
	}
	p, _ = ReadYfiuaConstituents(fsys, "y/constituents-ftse100.csv")
	if got := strings.Join(p.Indices[0].Symbols, " "); got != "AAF.L AV.L BT-A.L" || len(p.Problems) != 0 {
		t.Errorf("ftse100 %s %v", got, p.Problems)
	}
	p, _ = ReadYfiuaConstituents(fsys, "y/constituents-nikkei.csv")
	wantProblems(t, p.Problems, Problem{"y/constituents-nikkei.csv", 0, "unknown yfiua index code"})
}

func TestReadNifty50(t *testing.T) {
	t.Parallel()
	const f = "nifty.csv"
	fsys := mapFS(map[string]string{f: "Company Name,Industry,Symbol,Series,ISIN Code\r\n" +
		"Adani Enterprises Ltd.,Metals & Mining,ADANIENT,EQ,INE423A01024\r\n" +
		"Mahindra & Mahindra Ltd.,Automobile and Auto Components,M&M,EQ,INE101A01026\r\n" +
		"Bad ISIN Ltd.,Services,BADI,EQ,INE423A01025\r\n" +
		"No Symbol Ltd.,Services,,EQ,INE423A01024\r\n"})
	p, _ := ReadNifty50(fsys, f)
	wantProblems(t, p.Problems, Problem{f, 4, "check digit"}, Problem{f, 5, "not a valid symbol"})
	as := assetsBySymbol(p.Assets)
	a := as["ADANIENT.NS"]
	if a.Name != "Adani Enterprises Ltd." || a.ISIN != "INE423A01024" || a.Country != "India" || a.Currency != "INR" ||
		a.Exchange != "NSE" || a.Industry != "Metals & Mining" || a.Source != SourceNifty50 {
		t.Errorf("ADANIENT.NS %+v", a)
	}
	if _, ok := as["M&M.NS"]; !ok {
		t.Errorf("M&M.NS missing: %v", p.Assets)
	}
	if as["BADI.NS"].ISIN != "" {
		t.Error("bad ISIN kept")
	}
	ix := indexByName(p.Indices)["NIFTY50"]
	if strings.Join(ix.Symbols, " ") != "ADANIENT.NS M&M.NS BADI.NS" || ix.Country != "India" {
		t.Errorf("NIFTY50 %+v", ix)
	}
}

const ptsFixture = `indices:
- name: DAX
  yahoo: ^GDAXI
companies:
- name: Adidas
  symbol: ADS
  country: Germany
  indices:
  - DAX
  - EURO STOXX 50
  industries:
  - Footwear
  symbols:
  - yahoo: ADS.F
    google: FRA:ADS
    currency: EUR
  - yahoo: ADDYY
    google: OTCMKTS:ADDYY
    currency: USD
  isins:
  - DE000A1EWWW0
- name: 3i
  symbol: III
  country: United Kingdom
  indices:
  - FTSE 100
  symbols:
  - yahoo: IGQ5.F
    google: FRA:IGQ5
    currency: EUR
  - yahoo: III.L
    google: LON:III
    currency: GBP
  isins:
  - GB00B1YW4409
- name: Flutter Entertainment PLC
  symbol: PPB
  country: Ireland
  indices:
  - EURO STOXX 50
  - FTSE 100
  symbols:
  - yahoo: PPB.F
    google: FRA:PPB
    currency: EUR
  - yahoo: FLTR.L
    google: LON:FLTR
    currency: GBP
  isins: []
- name: Goldman Sachs
  symbol: GS
  country: United States
  indices:
  - DOW JONES
  - S&P 500
  - SDAX
  symbols:
  - yahoo: GS-PK
    google: NYSE:GS
    currency: USD
  - yahoo: GS
    google: NYSE:GS
    currency: USD
  isins:
  - US38141G1040
- name: Linde plc
  symbol: LIN
  country: United Kingdom
  indices:
  - DAX
  - S&P 500
  symbols:
  - yahoo: LIN.F
    google: FRA:LIN
    currency: EUR
  - yahoo: LIN
    google: NYSE:LIN
    currency: USD
  isins:
  - IE000S9YS762
- name: UCB S.A.
  symbol: XBRU
  country: Belgium
  indices:
  - BEL 20
  symbols:
  - yahoo: UNC.F
    google: FRA:UNC
    currency: EUR
  - yahoo: 0NZT.L
    google: LON:0NZT
    currency: GBP
  isins:
  - BE0003739530
- name: Assa Abloy
  symbol: ASSA B
  country: Sweden
  indices:
  - OMX Stockholm 30
  symbols: []
  isins: []
- name: Nobody
  country: Nowhere
  indices:
  - MOEX
  symbols: []
- name: Broken
  indices:
    not: a list
- name: Gazprom
  symbol: GAZP
  country: Russian Federation
  indices:
  - MOEX
  symbols:
  - yahoo: GAZP.ME
    google: MCX:GAZP
    currency: RUB
  - yahoo: OGZPY
    google: OTCMKTS:OGZPY
    currency: USD
    skip: true
`

// ptsLine is the line of a company of ptsFixture (its "- name:" line).
func ptsLine(t *testing.T, name string) int {
	t.Helper()
	for i, l := range strings.Split(ptsFixture, "\n") {
		if l == "- name: "+name {
			return i + 1
		}
	}
	t.Fatalf("no company %s in the fixture", name)
	return 0
}

func TestReadPyTickerSymbols(t *testing.T) {
	t.Parallel()
	const f = "stocks.yaml"
	p, err := ReadPyTickerSymbols(mapFS(map[string]string{f: ptsFixture}), f)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems, Problem{f, ptsLine(t, "Nobody"), "no usable symbol"}, Problem{f, ptsLine(t, "Broken"), "company"})
	as := assetsBySymbol(p.Assets)
	for sym, want := range map[string]shariah.Asset{
		"ADS.DE":    {Name: "Adidas", Country: "Germany", Currency: "EUR", ISIN: "DE000A1EWWW0"},
		"III.L":     {Name: "3i", Country: "United Kingdom", Currency: "GBP", ISIN: "GB00B1YW4409"},
		"FLTR.L":    {Name: "Flutter Entertainment PLC", Country: "Ireland", Currency: "GBP"},
		"GS":        {Name: "Goldman Sachs", Country: "United States", Currency: "USD", ISIN: "US38141G1040"},
		"LIN":       {Name: "Linde plc", Country: "United Kingdom", Currency: "USD", ISIN: "IE000S9YS762"},
		"UNC.F":     {Name: "UCB S.A.", Country: "Belgium", Currency: "EUR", ISIN: "BE0003739530"},
		"ASSA-B.ST": {Name: "Assa Abloy", Country: "Sweden", Currency: "SEK"},
		"GAZP.ME":   {Name: "Gazprom", Country: "Russia", Currency: "RUB"},
	} {
		want.Symbol, want.Type, want.Source = sym, shariah.Equity, SourcePyTickerSymbols
		if got, ok := as[sym]; !ok || got != want {
			t.Errorf("%s = %+v\nwant %+v", sym, got, want)
		}
	}
	if len(p.Assets) != 8 {
		t.Errorf("%d assets: %v", len(p.Assets), p.Assets)
	}
	ix := indexByName(p.Indices)
	for name, want := range map[string]string{
		"DAX40":       "ADS.DE LIN",
		"EUROSTOXX50": "ADS.DE FLTR.L",
		"FTSE100":     "III.L FLTR.L",
		"DJIA":        "GS",
		"SP500":       "GS LIN",
		"BEL20":       "UNC.F",
		"OMXS30":      "ASSA-B.ST",
	} {
		if got := strings.Join(ix[name].Symbols, " "); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
		if ix[name].Source != f || ix[name].Description == "" {
			t.Errorf("%s: %+v", name, ix[name])
		}
	}
	if len(ix) != 7 { // SDAX and MOEX give no membership
		t.Errorf("indices %v", p.Indices)
	}

	// not YAML at all
	p, err = ReadPyTickerSymbols(mapFS(map[string]string{f: "companies: [unclosed\n"}), f)
	if err != nil || len(p.Problems) != 1 || p.Problems[0].Line != 0 {
		t.Errorf("bad YAML: %v %v", err, p.Problems)
	}
}

func TestReadYearlyMembership(t *testing.T) {
	t.Parallel()
	const f = "N225_yearly.csv"
	fsys := mapFS(map[string]string{f: "2023,2024,2025\n" +
		"1332,1332,1332\n" +
		"1333,1605,1605\n" +
		"1334,1721,\n" + // no 2025 cell
		"1335,1801,??\n" + // line 5: bad ticker
		"1336,285A,285A\n"})
	p, _ := ReadYearlyMembership(fsys, f, "NIKKEI225", ".T")
	wantProblems(t, p.Problems, Problem{f, 5, "not a valid symbol"})
	ix := indexByName(p.Indices)["NIKKEI225"]
	if got := strings.Join(ix.Symbols, " "); got != "1332.T 1605.T 285A.T" {
		t.Errorf("NIKKEI225 %q", got)
	}
	if ix.Country != "Japan" || ix.Source != f || !hasNote(p, "in 2025") {
		t.Errorf("%+v %v", ix, p.Notes)
	}
	if len(p.Assets) != 3 || p.Assets[2] != (shariah.Asset{Symbol: "285A.T", Type: shariah.Equity, Country: "Japan",
		Currency: "JPY", Source: SourceJanzenMembers}) {
		t.Errorf("member records %+v", p.Assets)
	}
}

func TestReadFinanceDB(t *testing.T) {
	t.Parallel()
	const eq = "equities-compact.csv"
	const etf = "etfs-compact.csv"
	fsys := mapFS(map[string]string{
		eq: "symbol,name,currency,sector,industry_group,industry,exchange,mic,market,country,market_cap,isin,figi\n" +
			"AALB.AS,Aalberts N.V.,EUR,Industrials,Capital Goods,Machinery,AMS,XAMS,Euronext Amsterdam,Netherlands,Mid Cap,,BBG000BB3HV7\n" +
			"ADS.DE,adidas AG,EUR,Consumer Discretionary,Consumer Durables & Apparel,\"Textiles, Apparel & Luxury Goods\",GER,XETR,XETRA,Germany,Large Cap,DE000A1EWWW0,\n" +
			"2222.SR,Saudi Arabian Oil Company,SAR,Energy,Energy,\"Oil, Gas & Consumable Fuels\",SAU,XSAU,Saudi Arabian Stock Exchange,Saudi Arabia,Mega Cap,,\n" +
			"1010.SR,Riyad Bank,SAR,Financials,Banks,Banks,SAU,XSAU,Saudi Arabian Stock Exchange,Saudi Arabia,Large Cap,XX0000000000,\n" +
			"AAM^A,Some Preferred,USD,Financials,Banks,Banks,ASE,XASE,NYSE American,United States,,,\n" +
			"BRK/B,Berkshire Hathaway,USD,Financials,Diversified Financials,Diversified Financial Services,ASE,XASE,NYSE American,United States,Mega Cap,,\n" +
			"FEI           ,Frequency Electronics,USD,Information Technology,Technology Hardware,Electronic Equipment,ASE,XASE,NYSE American,United States,,,\n" +
			"SHORT.L,Too Short\n" + // line 9
			"ADS.DE,adidas again,EUR,,,,GER,,,Germany,,,\n", // line 10: duplicate
		etf: "symbol,name,currency,category_group,category,family,exchange,mic,isin\n" +
			"SPUS,SP Funds S&P 500 Sharia Industry Exclusions ETF,USD,Alternatives,Large Cap,SP Funds,PCX,ARCX,US8863648015\n" +
			"ISDU.L,iShares MSCI USA Islamic UCITS ETF,USD,Equities,,BlackRock,LSE,XLON,IE00B296QM64\n" +
			"b@d,Bad ETF,USD,,,,,,\n",
	})
	p, caps, err := ReadFinanceDBEquities(fsys, eq)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems, Problem{eq, 9, "2 column(s)"}, Problem{eq, 10, "duplicate symbol ADS.DE"})
	as := assetsBySymbol(p.Assets)
	ads := as["ADS.DE"]
	want := shariah.Asset{Symbol: "ADS.DE", Name: "adidas AG", Type: shariah.Equity, Exchange: "GER", Country: "Germany",
		Currency: "EUR", Sector: "Consumer Discretionary", Industry: "Textiles, Apparel & Luxury Goods",
		IndustrySource: "FinanceDatabase (GICS sector and industry)", ISIN: "DE000A1EWWW0", Source: "financedatabase"}
	if ads != want {
		t.Errorf("ADS.DE %+v\nwant %+v", ads, want)
	}
	if b := as["BRK-B"]; b.Exchange != "NYSE American" || b.Country != "United States" {
		t.Errorf("BRK-B %+v", b)
	}
	if _, ok := as["FEI"]; !ok {
		t.Error("FEI (trailing blanks) missing")
	}
	if as["1010.SR"].ISIN != "" {
		t.Error("invalid ISIN kept")
	}
	if len(p.Assets) != 6 || !hasNote(p, "1 preferred shares") || !hasNote(p, "1 ISINs failing") {
		t.Errorf("%d assets, notes %v", len(p.Assets), p.Notes)
	}
	if caps["2222.SR"] != "Mega Cap" || caps["AALB.AS"] != "Mid Cap" || caps["BRK-B"] != "Mega Cap" || len(caps) != 5 {
		t.Errorf("caps %v", caps)
	}
	tasi := indexByName(p.Indices)["TASI"]
	if strings.Join(tasi.Symbols, " ") != "2222.SR 1010.SR" || tasi.Country != "Saudi Arabia" ||
		!strings.HasPrefix(tasi.Source, eq) {
		t.Errorf("TASI %+v", tasi)
	}

	p, err = ReadFinanceDBETFs(fsys, etf)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems)
	as = assetsBySymbol(p.Assets)
	spus := as["SPUS"]
	want = shariah.Asset{Symbol: "SPUS", Name: "SP Funds S&P 500 Sharia Industry Exclusions ETF", Type: shariah.ETF,
		Exchange: "NYSE Arca", Currency: "USD", Sector: "Alternatives", Industry: "Large Cap", ISIN: "US8863648015",
		Source: "financedatabase"}
	if spus != want {
		t.Errorf("SPUS %+v\nwant %+v", spus, want)
	}
	if a := as["ISDU.L"]; a.Exchange != "LSE" || a.Sector != "Equities" || a.Industry != "" || a.ISIN != "IE00B296QM64" {
		t.Errorf("ISDU.L %+v", a)
	}
	if len(p.Assets) != 2 {
		t.Errorf("ETFs %v", p.Assets)
	}
}

func TestReadUSListings(t *testing.T) {
	t.Parallel()
	const nq = "nasdaq-listed-symbols.csv"
	const ot = "other-listed.csv"
	fsys := mapFS(map[string]string{
		nq: "Symbol,Company Name,Security Name,Market Category,Test Issue,Financial Status,Round Lot Size,ETF,NextShares\n" +
			"AAPL,Apple Inc.,Apple Inc. - Common Stock,Q,N,N,100,N,N\n" +
			"AAAP,Pacer Barings CLO Market Flex ETF,Pacer Barings CLO Market Flex ETF,G,N,N,100,Y,N\n" +
			"ZAZZT,Tick Pilot Test Stock Class A Common Stock,Tick Pilot Test Stock Class A Common Stock,G,Y,N,100,N,N\n" +
			"ZXYZ.A,Nasdaq Symbology Test Common Stock,Nasdaq Symbology Test Common Stock,Q,Y,N,100,N,N\n" +
			"HBANP$,Huntington Preferred,Huntington Preferred,Q,N,N,100,N,N\n" +
			"SHORT,Short\n" + // line 7
			"File Creation Time: 0731202621:31,,,,,,,,\n" +
			",,,,,,,,\n",
		ot: "ACT Symbol,Company Name,Security Name,Exchange,CQS Symbol,ETF,Round Lot Size,Test Issue,NASDAQ Symbol\n" +
			"A,\"Agilent Technologies, Inc. Common Stock\",\"Agilent Technologies, Inc. Common Stock\",N,A,N,100.0,N,A\n" +
			"BRK.B,Berkshire Hathaway Inc. New Common Stock,Berkshire Hathaway Inc. New Common Stock,N,BRK.B,N,40.0,N,BRK.B\n" +
			"SPUS,SP Funds S&P 500 Sharia Industry Exclusions ETF,SP Funds S&P 500 Sharia Industry Exclusions ETF,P,SPUS,Y,100.0,N,SPUS\n" +
			"AGM.A,Federal Agricultural Mortgage Corporation,Federal Agricultural Mortgage Corporation,N,AGM.A,N,100.0,N,AGM.A\n" +
			"ABR$D,Arbor Realty Trust Preferred,Arbor Realty Trust Preferred,N,ABR-D,N,100.0,N,ABR-D\n" +
			"XYZ,Cboe One,Cboe One,Z,XYZ,N,100.0,N,XYZ\n" +
			"IEXG,Iex One,Iex One,V,IEXG,N,100.0,N,IEXG\n" +
			"NYSA,Nyse American One,Nyse American One,A,NYSA,N,100.0,N,NYSA\n" +
			"QQQQ,Unknown Venue,Unknown Venue,Q,QQQQ,N,100.0,N,QQQQ\n" +
			"\"bad,row\n", // line 11: unterminated quote
	})
	p, err := ReadNasdaqListed(fsys, nq)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems, Problem{nq, 7, "2 column(s)"})
	as := assetsBySymbol(p.Assets)
	want := shariah.Asset{Symbol: "AAPL", Name: "Apple Inc.", Type: shariah.Equity, Exchange: "NASDAQ",
		Country: "United States", Currency: "USD", Source: SourceNasdaqListed}
	if as["AAPL"] != want {
		t.Errorf("AAPL %+v", as["AAPL"])
	}
	if as["AAAP"].Type != shariah.ETF || len(p.Assets) != 2 {
		t.Errorf("assets %v", p.Assets)
	}
	if !hasNote(p, "2 test issues") || !hasNote(p, "1 preferred shares") || !hasNote(p, "File Creation Time") {
		t.Errorf("notes %v", p.Notes)
	}

	p, err = ReadOtherListed(fsys, ot)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems, Problem{ot, 11, "quote"})
	as = assetsBySymbol(p.Assets)
	for sym, ex := range map[string]string{"A": "NYSE", "BRK-B": "NYSE", "SPUS": "NYSE Arca", "AGM-A": "NYSE",
		"XYZ": "Cboe BZX", "IEXG": "IEX", "NYSA": "NYSE American", "QQQQ": ""} {
		if a, ok := as[sym]; !ok || a.Exchange != ex || a.Country != "United States" || a.Currency != "USD" {
			t.Errorf("%s: %+v, want exchange %q", sym, a, ex)
		}
	}
	if as["A"].Name != "Agilent Technologies, Inc." || as["SPUS"].Type != shariah.ETF || as["BRK-B"].Type != shariah.Equity {
		t.Errorf("A %+v SPUS %+v", as["A"], as["SPUS"])
	}
	if len(p.Assets) != 8 || !hasNote(p, "1 preferred shares") || !hasNote(p, "1 listings with an unknown exchange") {
		t.Errorf("%d assets, notes %v", len(p.Assets), p.Notes)
	}
}

func TestReadCloseMatrices(t *testing.T) {
	t.Parallel()
	const y24 = "N225_constituents_close_2024.csv"
	const y25 = "N225_constituents_close_2025.csv"
	fsys := mapFS(map[string]string{
		y24: "Date,1332,7203,AAF.L\n" +
			"2024-01-04,707.4238891601562,2500.5,130.1\n" +
			"2024-01-05,710,,131\n" + // no trade for 7203
			"2024-02-01,720.25,2600,132\n",
		y25: "Date,1332,7203,9999\r\n" +
			"2025-01-06,800,3000,50\r\n" +
			"2025-01-07,801,abc,51\r\n" + // line 3: non-numeric close
			"2025-01-08,802,3010\r\n" + // line 4: too few columns
			"2025-13-01,1,1,1\r\n" + // line 5: bad date
			"2025-01-09,803,3020,-5\r\n", // line 6: negative close
	})
	// files given out of date order: the series still come out oldest first
	p, err := ReadCloseMatrices(fsys, []string{y25, y24}, ".T")
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems,
		Problem{y25, 3, "7203.T"}, Problem{y25, 4, "3 column(s), want 4"}, Problem{y25, 5, "date"}, Problem{y25, 6, "not positive"})
	daily := map[string]shariah.Series{}
	monthly := map[string]shariah.Series{}
	for _, s := range p.Series {
		if s.Source != shariah.SourceHistory {
			t.Errorf("%s source %q", s.Symbol, s.Source)
		}
		switch s.Interval {
		case "1d":
			daily[s.Symbol] = s
		case "1mo":
			monthly[s.Symbol] = s
		default:
			t.Errorf("interval %q", s.Interval)
		}
	}
	if len(daily) != 4 || len(monthly) != 4 {
		t.Fatalf("series %v", p.Series)
	}
	s := daily["1332.T"]
	var dates []string
	for _, b := range s.Bars {
		dates = append(dates, b.Date.Format("2006-01-02"))
		if b.Open != b.Close || b.High != b.Close || b.Low != b.Close || b.Volume != 0 || b.Gaps != shariah.CloseOnly {
			t.Errorf("bar %+v is not close-only", b)
		}
	}
	if got := strings.Join(dates, " "); got != "2024-01-04 2024-01-05 2024-02-01 2025-01-06 2025-01-07 2025-01-09" {
		t.Errorf("1332.T dates %s", got)
	}
	if s.Bars[0].Close != mustPrice(t, "707.423889") {
		t.Errorf("close %v", s.Bars[0].Close)
	}
	if n := len(daily["7203.T"].Bars); n != 4 { // 2 in 2024 (one empty cell), 2 in 2025 (one bad cell)
		t.Errorf("7203.T %d bars", n)
	}
	if _, ok := daily["AAF.L"]; !ok {
		t.Error("AAF.L: suffix added to a ticker that had one")
	}
	if len(daily["9999.T"].Bars) != 2 { // the negative close is left out
		t.Errorf("9999.T %v", daily["9999.T"].Bars)
	}
	m := monthly["1332.T"].Bars
	// a month of closes has no open, high, low or volume either: the highest close is not its high
	if len(m) != 3 || m[0].Date.Format("2006-01-02") != "2024-01-05" || m[0].Gaps != shariah.CloseOnly ||
		m[0].Candle().High != nil || m[0].Candle().Open != nil || m[0].Close != mustPrice(t, "710") || m[2].Close != mustPrice(t, "803") {
		t.Errorf("1332.T monthly %+v", m)
	}
	if !hasNote(p, "close only") {
		t.Errorf("notes %v", p.Notes)
	}
	if _, err := ReadCloseMatrices(fsys, []string{y24, "absent.csv"}, ""); err == nil {
		t.Error("missing file: no error")
	}
}

func TestReadIndexDaily(t *testing.T) {
	t.Parallel()
	fsys := mapFS(map[string]string{
		"SP500_daily.csv": "date,open,high,low,close,volume\n" +
			"2010/1/4,1116.5601,1133.87,1116.5601,1132.99,3991399936\n" +
			"2010/1/5,1132.66,1136.63,1129.66,1136.52,2491020032.0\n" +
			"2010/2/1,1073.89,1089.38,1073.89,1089.19,4077610000\n" +
			"2010/2/2,x,1,1,1,1\n" + // line 5
			"2010/2/3,10,5,9,9,1\n", // line 6: high below low
		"FTSE100_daily.csv": "date,open,high,low,close\n2010/1/4,5412.899902,5500.299805,5410.799805,5500.299805\n",
	})
	p, err := ReadIndexDaily(fsys, "SP500_daily.csv", JanzenIndices["SP500"])
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems, Problem{"SP500_daily.csv", 5, "open"}, Problem{"SP500_daily.csv", 6, "high"})
	if len(p.Assets) != 1 || p.Assets[0] != (shariah.Asset{Symbol: "^GSPC", Name: "S&P 500", Type: shariah.Index,
		Country: "United States", Currency: "USD", Source: SourceJanzenAlpha}) {
		t.Errorf("assets %+v", p.Assets)
	}
	if len(p.Series) != 2 || p.Series[0].Interval != "1d" || p.Series[1].Interval != "1mo" {
		t.Fatalf("series %+v", p.Series)
	}
	d := p.Series[0].Bars
	if len(d) != 3 || d[0].Date != time.Date(2010, 1, 4, 0, 0, 0, 0, time.UTC) || d[0].Volume != 3991399936 ||
		d[1].Volume != 2491020032 || d[0].High != mustPrice(t, "1133.87") || d[0].Gaps != 0 || d[0].Candle().Volume == nil {
		t.Errorf("daily %+v", d)
	}
	if m := p.Series[1].Bars; len(m) != 2 || m[0].Close != mustPrice(t, "1136.52") || m[0].Volume != 3991399936+2491020032 {
		t.Errorf("monthly %+v", m)
	}
	p, _ = ReadIndexDaily(fsys, "FTSE100_daily.csv", JanzenIndices["FTSE100"])
	if len(p.Series) != 2 || p.Series[0].Symbol != "^FTSE" || p.Series[0].Bars[0].Volume != 0 || !hasNote(p, "no volume") ||
		p.Series[0].Bars[0].Gaps != shariah.NoVolume || p.Series[0].Bars[0].Candle().High == nil || p.Series[1].Bars[0].Gaps != shariah.NoVolume {
		t.Errorf("ftse %+v %v", p.Series, p.Notes)
	}
}

func TestReadSPFundsHoldings(t *testing.T) {
	t.Parallel()
	const f = "spus-holdings.csv"
	fsys := mapFS(map[string]string{f: "Date,Account,StockTicker,CUSIP,SecurityName,Shares,Price,MarketValue,Weightings,NetAssets,SharesOutstanding,CreationUnits\n" +
		"07/17/2026,SPUS,NVDA,67066G104,NVIDIA Corp,1851709,207.4,384044446.6,13.33%,2880570500.0,50500000,2020.0\n" +
		"07/17/2026,SPUS,BRK.B,084670702,Berkshire Hathaway Inc,10,400,4000,0.01%,2880570500.0,50500000,2020.0\n" +
		"07/17/2026,SPUS,Cash&Other,Cash&Other,Cash & Other,9890111,1.0,9890111.43,0.34%,2880570500.0,50500000,2020.0\n" +
		"07/17/2026,SPUS,2602335D,BBG01Y2F01K3,TPG Inc,14729,0.0,0.0,0.00%,2880570500.0,50500000,2020.0\n" +
		"07/17/2026,SPUS,003654100CVR,003654100CVR,ABIOMED INC,405,0.0,0.0,0.00%,2880570500.0,50500000,2020.0\n" +
		"07/17/2026,SPUS,AAPL,037833100,Apple Inc,1122844,333.26,374198991.44,twelve%,2880570500.0,50500000,2020.0\n" + // line 7
		"17.07.2026,SPUS,MSFT,594918104,Microsoft Corp,1,1,1,1%,1,1,1\n"}) // line 8
	p, err := ReadSPFundsHoldings(fsys, f)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems, Problem{f, 7, "weighting"}, Problem{f, 8, "date"})
	if len(p.Holdings) != 5 {
		t.Fatalf("holdings %+v", p.Holdings)
	}
	h := p.Holdings[0]
	if h.ETF != "SPUS" || h.Symbol != "NVDA" || h.Name != "NVIDIA Corp" || h.AsOf != "2026-07-17" || h.Source != "sp-funds" ||
		!h.Weight.Equal(num("0.1333")) || h.Weight.String() != "0.1333" ||
		h.Shares == nil || !h.Shares.Equal(num("1851709")) || h.MarketValue == nil || !h.MarketValue.Equal(num("384044446.6")) {
		t.Errorf("NVDA %+v", h)
	}
	if p.Holdings[1].Symbol != "BRK-B" || !p.Holdings[1].Weight.Equal(num("0.0001")) {
		t.Errorf("BRK-B %+v", p.Holdings[1])
	}
	for i, name := range []string{"Cash & Other", "TPG Inc", "ABIOMED INC"} {
		if h := p.Holdings[2+i]; h.Symbol != "" || h.Name != name {
			t.Errorf("unlisted %+v", h)
		}
	}
	if !p.Holdings[2].Weight.Equal(num("0.0034")) || !p.Holdings[3].Weight.IsZero() {
		t.Errorf("weights %v %v", p.Holdings[2].Weight, p.Holdings[3].Weight)
	}
}

func TestReadGoldMonthly(t *testing.T) {
	t.Parallel()
	fsys := mapFS(map[string]string{"monthly.csv": "Date,Price\n1833-01,18.930\n2026-06,4228.000\n2026-07,n/a\n2026-08-15,4300.5\n"})
	p, _ := ReadGoldMonthly(fsys, "monthly.csv")
	wantProblems(t, p.Problems, Problem{"monthly.csv", 4, "number"})
	if len(p.Metals) != 3 {
		t.Fatalf("%+v", p.Metals)
	}
	m := p.Metals[1]
	if m.Metal != "gold" || m.AsOf != "2026-06-01" || !m.USDPerOunce.Equal(num("4228")) || m.Source != "gold-prices" {
		t.Errorf("%+v", m)
	}
	if p.Metals[0].AsOf != "1833-01-01" || p.Metals[2].AsOf != "2026-08-01" {
		t.Errorf("%+v", p.Metals)
	}
}

func TestReadFedFXMonthly(t *testing.T) {
	t.Parallel()
	const head = "Date,Country,Exchange rate\n"
	rates := func(p *Pack) map[string]market.FXRate {
		m := map[string]market.FXRate{}
		for _, r := range p.FX {
			m[r.Currency] = r
		}
		return m
	}
	// H.10 orientation: pound, euro, Australian and New Zealand dollars in USD per unit
	fsys := mapFS(map[string]string{"usd-quoted.csv": head +
		"2026-05-01,United Kingdom,1.3342\n" +
		"2026-06-01,United Kingdom,1.25\n" +
		"2026-06-01,Euro,1.1516\n" +
		"2026-06-01,Australia,0.8\n" +
		"2026-06-01,Japan,160.7700\n" +
		"2026-05-01,Japan,150\n" + // older than the one above: not kept
		"2001-12-01,Germany,2.1946\n" + // replaced by the euro: left out
		"2026-06-01,Atlantis,3\n" + // line 9: unknown country
		"2026-06-01,Atlantis,4\n" + // reported once
		"2026-06-01,Canada,abc\n" + // line 11
		"2026-06-01,Canada,0\n" + // line 12
		"2026-06-01,Sweden,\n"}) // missing value: a note
	p, _ := ReadFedFXMonthly(fsys, "usd-quoted.csv")
	wantProblems(t, p.Problems, Problem{"usd-quoted.csv", 9, "Atlantis"}, Problem{"usd-quoted.csv", 11, "number"},
		Problem{"usd-quoted.csv", 12, "not positive"})
	r := rates(p)
	for cur, want := range map[string]string{"GBP": "0.8", "EUR": "0.86835707", "AUD": "1.25", "JPY": "160.77"} {
		if got, ok := r[cur]; !ok || got.PerUSD.String() != want || got.AsOf != "2026-06-01" || got.Source != "fed-h10" {
			t.Errorf("%s = %+v, want %s", cur, got, want)
		}
	}
	if len(r) != 4 || !hasNote(p, "DEM (Germany, last 2001-12-01)") || !hasNote(p, "inverted") || !hasNote(p, "1 rows without a rate") {
		t.Errorf("rates %v notes %v", p.FX, p.Notes)
	}
	// the staged file's orientation: already units per USD (pound below 1)
	fsys = mapFS(map[string]string{"per-usd.csv": head +
		"2026-06-01,United Kingdom,0.7497\n2026-06-01,Euro,0.8684\n2026-06-01,New Zealand,1.7295\n"})
	p, _ = ReadFedFXMonthly(fsys, "per-usd.csv")
	r = rates(p)
	if r["GBP"].PerUSD.String() != "0.7497" || r["EUR"].PerUSD.String() != "0.8684" || r["NZD"].PerUSD.String() != "1.7295" {
		t.Errorf("per-USD rates %v", p.FX)
	}
	if len(p.Problems) != 0 || !hasNote(p, "none inverted") {
		t.Errorf("%v %v", p.Problems, p.Notes)
	}
}

func TestReadSP500Financials(t *testing.T) {
	t.Parallel()
	const f = "constituents-financials.csv"
	fsys := mapFS(map[string]string{f: "Symbol,Name,Sector,Price,Price/Earnings,Dividend Yield,Earnings/Share,52 Week Low,52 Week High,Market Cap,EBITDA,Price/Sales,Price/Book,SEC Filings\n" +
		"MMM,3M,Industrial Conglomerates,178.96,31.786858,0.0175,5.63,139.34,184.9,92293693440,6488000000,3.665357,31.26485,http://x\n" +
		"BRK.B,Berkshire Hathaway,Insurance,480.5,,,,,,1.05e12,,,,http://x\n" +
		"ANSS,Ansys,Application Software,,,,,,,,,,,http://x\n" +
		"ADI,Analog Devices,Semiconductors,373.09,44.4,0.0119,8.4,223.47,445.91,,6922700800,,5.4,http://x\n" +
		"BAD,Bad,Software,1O0,,,,,,100,,,,http://x\n"}) // line 6
	p, snaps, err := ReadSP500Financials(fsys, f)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems, Problem{f, 6, "BAD"})
	if len(snaps) != 2 || !hasNote(p, "2 rows without a price or a market cap") {
		t.Fatalf("snaps %v notes %v", snaps, p.Notes)
	}
	m := snaps["MMM"]
	if m.Name != "3M" || m.Price != mustPrice(t, "178.96") || !m.MarketCap.Equal(num("92293693440")) {
		t.Errorf("MMM %+v", m)
	}
	if b := snaps["BRK-B"]; !b.MarketCap.Equal(num("1050000000000")) {
		t.Errorf("BRK-B %+v", b)
	}
	if len(p.Fundamentals) != 0 {
		t.Error("fundamentals made from the snapshot")
	}
}

func TestReadSharedFixtures(t *testing.T) {
	t.Parallel()
	fsys := mapFS(map[string]string{
		PathSP500Constituents: "Symbol,Security,GICS Sector,GICS Sub-Industry,Headquarters Location,Date added,CIK,Founded\n" +
			"AAPL,Apple Inc.,Information Technology,\"Technology Hardware, Storage & Peripherals\",\"Cupertino, California\",1982-11-30,320193,1977\n" +
			"BRK.B,Berkshire Hathaway,Financials,Multi-Sector Holdings,\"Omaha, Nebraska\",2010-02-16,1067983,1839\n",
		PathYfiuaDir + "/constituents-sp500.csv": "Symbol,Name\nAAPL,Apple\nNVDA,Nvidia\n",
		PathYfiuaDir + "/constituents-dax.csv":   "Symbol,Name\nADS.DE,adidas AG\n",
		PathPyTickerSymbols:                      ptsFixture,
		PathFinanceDBEquities: "symbol,name,currency,sector,industry_group,industry,exchange,mic,market,country,market_cap,isin,figi\n" +
			"ADS.DE,adidas AG,EUR,Consumer Discretionary,Consumer Durables & Apparel,Apparel,GER,XETR,XETRA,Germany,Large Cap,DE000A1EWWW0,\n" +
			"UCB.BR,UCB SA,EUR,Health Care,Pharmaceuticals,Pharmaceuticals,BRU,XBRU,Euronext Brussels,Belgium,Large Cap,BE0003739530,\n" +
			"BRK/B,Berkshire,USD,Financials,Diversified Financials,Diversified Financial Services,ASE,XASE,NYSE American,United States,Mega Cap,US0846707026,\n" +
			"2222.SR,Saudi Arabian Oil Company,SAR,Energy,Energy,Oil,SAU,XSAU,Saudi Arabian Stock Exchange,Saudi Arabia,Mega Cap,,\n",
		PathOtherListed: "ACT Symbol,Company Name,Security Name,Exchange,CQS Symbol,ETF,Round Lot Size,Test Issue,NASDAQ Symbol\n" +
			"BRK.B,Berkshire Hathaway Inc. New Common Stock,Berkshire Hathaway Inc. New Common Stock,N,BRK.B,N,40.0,N,BRK.B\n",
		PathNasdaqListed: "Symbol,Company Name,Security Name,Market Category,Test Issue,Financial Status,Round Lot Size,ETF,NextShares\n" +
			"AAPL,Apple Inc.,Apple Inc. - Common Stock,Q,N,N,100,N,N\n",
		PathGoldMonthly: "Date,Price\n2026-06,4228.000\n",
		PathJanzenDir + "/SP500_constituents_close_2010to2025/SP500_constituents_close_2025.csv": "Date,AAPL,BRK-B\n2025-01-02,243.5,450\n",
		PathJanzenDir + "/index-benchmark-data/SP500_daily.csv":                                  "date,open,high,low,close,volume\n2025/1/2,1,2,1,2,10\n",
		PathSP500Financials: "Symbol,Name,Sector,Price,Market Cap\nAAPL,Apple,IT,250,3.7e12\n",
	})
	p, x, err := ReadShared(fsys)
	if err != nil {
		t.Fatal(err)
	}
	wantProblems(t, p.Problems, Problem{PathPyTickerSymbols, ptsLine(t, "Nobody"), "no usable symbol"},
		Problem{PathPyTickerSymbols, ptsLine(t, "Broken"), "company"})
	as := assetsBySymbol(p.Assets)
	// precedence: sp500-constituents, pytickersymbols, financedatabase, listings; US exchange from the listings
	if a := as["AAPL"]; a.Name != "Apple Inc." || a.Source != "sp500-constituents" || a.Exchange != "NASDAQ" || a.CIK != "0000320193" {
		t.Errorf("AAPL %+v", a)
	}
	if a := as["BRK-B"]; a.Exchange != "NYSE" || a.ISIN != "US0846707026" || a.Sector != "Financials" || a.Industry != "Multi-Sector Holdings" {
		t.Errorf("BRK-B %+v", a)
	}
	if a := as["NVDA"]; a.Name != "Nvidia" || a.Source != SourceYfiua || a.Currency != "USD" {
		t.Errorf("NVDA (only in yfiua) %+v", a)
	}
	if a := as["ADS.DE"]; a.Name != "Adidas" || a.Source != "pytickersymbols" || a.Exchange != "GER" || a.Sector != "Consumer Discretionary" {
		t.Errorf("ADS.DE %+v", a)
	}
	// UCB: pytickersymbols has only a Frankfurt listing; FinanceDatabase has the Brussels one by ISIN
	if a, ok := as["UCB.BR"]; !ok || a.Name != "UCB S.A." || a.Sector != "Health Care" {
		t.Errorf("UCB.BR %+v", a)
	}
	if _, ok := as["UNC.F"]; ok {
		t.Error("UNC.F not replaced")
	}
	if a := as["^GSPC"]; a.Type != shariah.Index {
		t.Errorf("^GSPC %+v", a)
	}
	ix := indexByName(p.Indices)
	for name, want := range map[string]string{
		"SP500": "AAPL BRK-B", // sp500-datasets over yfiua and pytickersymbols
		"DAX40": "ADS.DE",     // yfiua over pytickersymbols
		"DJIA":  "GS",         // only pytickersymbols
		"BEL20": "UCB.BR",     // renamed with its company
		"TASI":  "2222.SR",    // FinanceDatabase
	} {
		if got := strings.Join(ix[name].Symbols, " "); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for i := 1; i < len(p.Indices); i++ { // KnownIndices order
		a, _ := indexPos(p.Indices[i-1].Name)
		b, _ := indexPos(p.Indices[i].Name)
		if a >= b {
			t.Errorf("indices out of order: %s before %s", p.Indices[i-1].Name, p.Indices[i].Name)
		}
	}
	if len(p.Series) != 6 || len(p.Metals) != 1 {
		t.Errorf("series %d metals %d", len(p.Series), len(p.Metals))
	}
	if x.MarketCapCategory["ADS.DE"] != "Large Cap" || x.Snapshots["AAPL"].Price != mustPrice(t, "250") {
		t.Errorf("extras %+v", x)
	}
	for _, missing := range []string{PathNifty50, PathFXMonthly, PathSPUSHoldings,
		PathJanzenDir + "/N225_constituents_close_2010to2025/N225_constituents_close_2023.csv",
		PathJanzenDir + "/SP500_constituents_close_2010to2025/SP500_constituents_close_2023.csv"} {
		if !hasNote(p, missing) || !hasNote(p, "not present") {
			t.Errorf("no note for missing %s", missing)
		}
	}

	if _, _, err := ReadShared(fstest.MapFS{}); err == nil {
		t.Error("empty root: no error")
	}
	if _, _, err := ReadShared(nil); err == nil {
		t.Error("nil root: no error")
	}
}

func indexPos(name string) (int, bool) {
	for i, k := range catalog.KnownIndices {
		if k.Name == name {
			return i, true
		}
	}
	return -1, false
}

// TestPublicReadersNeverPanic feeds every reader malformed files: they report problems, never panic.
func TestPublicReadersNeverPanic(t *testing.T) {
	t.Parallel()
	inputs := []string{
		"",
		"\xef\xbb\xbf",
		"\x00\x01\x02\xff\xfe",
		"only,a,header\n",
		"Date\n2024-01-01\n",
		"Date,A,B\n2024-01-01,1e999999999,-0\n,,\n\n2024-01-02,\"1\",2\n",
		"symbol,name,exchange,Symbol,Security,GICS Sector,GICS Sub-Industry,ETF,Test Issue,ACT Symbol,Date,Account," +
			"StockTicker,SecurityName,Weightings,Price,Country,Exchange rate,Market Cap,date,open,high,low,close,Company Name\n" +
			strings.Repeat("x,", 24) + "x\n" +
			strings.Repeat("1e999999999,", 24) + "1e999999999\n" +
			strings.Repeat(",", 24) + "\n" +
			"\"unterminated\n",
		"companies:\n- name: [1, 2]\n  symbols: {a: b}\n- 3\n- null\n",
		"companies: &a [*a]\n",
		"2025\n" + strings.Repeat("?,\n", 3),
	}
	for i, in := range inputs {
		fsys := mapFS(map[string]string{"f.csv": in, "constituents-sp500.csv": in})
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("input %d: panic %v", i, r)
				}
			}()
			ReadSP500Constituents(fsys, "f.csv")
			ReadYfiuaConstituents(fsys, "constituents-sp500.csv")
			ReadNifty50(fsys, "f.csv")
			ReadPyTickerSymbols(fsys, "f.csv")
			ReadYearlyMembership(fsys, "f.csv", "NIKKEI225", ".T")
			ReadFinanceDBEquities(fsys, "f.csv")
			ReadFinanceDBETFs(fsys, "f.csv")
			ReadNasdaqListed(fsys, "f.csv")
			ReadOtherListed(fsys, "f.csv")
			ReadCloseMatrices(fsys, []string{"f.csv", "f.csv"}, ".T")
			ReadIndexDaily(fsys, "f.csv", JanzenIndices["N225"])
			ReadSPFundsHoldings(fsys, "f.csv")
			ReadGoldMonthly(fsys, "f.csv")
			ReadFedFXMonthly(fsys, "f.csv")
			ReadSP500Financials(fsys, "f.csv")
		}()
	}
}

// ---- the real shared data (skipped when absent)

func sharedDataDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "data")
	}
	if _, err := os.Stat(filepath.Join(dir, PathSP500Constituents)); err != nil {
		t.Skipf("shared data not found at %s (set SHARIAH_DATA_DIR to the shared data root): %v", dir, err)
	}
	return dir
}

func TestReadSharedRealData(t *testing.T) {
	// Not parallel: it bounds ReadShared's wall time.
	dir := sharedDataDir(t)
	start := time.Now()
	p, x, err := ReadShared(os.DirFS(dir))
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ReadShared: %v; %d assets, %d series, %d indices, %d holdings, %d FX, %d metal prices, %d problems, "+
		"%d cap categories, %d snapshots", elapsed, len(p.Assets), len(p.Series), len(p.Indices), len(p.Holdings),
		len(p.FX), len(p.Metals), len(p.Problems), len(x.MarketCapCategory), len(x.Snapshots))
	for _, pr := range p.Problems {
		t.Log("problem: ", pr)
	}
	for _, n := range p.Notes {
		t.Log("note: ", n)
	}
	if len(p.Problems) > 30 {
		t.Errorf("%d problems", len(p.Problems))
	}
	types := map[shariah.AssetType]int{}
	for _, a := range p.Assets {
		types[a.Type]++
		if _, ok := shariah.NormalizeSymbol(a.Symbol); !ok {
			t.Errorf("asset symbol %q is not canonical", a.Symbol)
		}
	}
	if len(p.Assets) < 50000 || types[shariah.Equity] < 40000 || types[shariah.ETF] < 10000 || types[shariah.Index] != 5 {
		t.Errorf("assets %d: %v", len(p.Assets), types)
	}
	as := assetsBySymbol(p.Assets)
	if a := as["AAPL"]; a.Name != "Apple Inc." || a.CIK != "0000320193" || a.Exchange != "NASDAQ" || a.Sector != "Information Technology" {
		t.Errorf("AAPL %+v", a)
	}
	if a := as["BRK-B"]; a.Exchange != "NYSE" || a.CIK != "0001067983" {
		t.Errorf("BRK-B %+v", a)
	}
	if a := as["SPUS"]; a.Type != shariah.ETF || a.Exchange != "NYSE Arca" {
		t.Errorf("SPUS %+v", a)
	}
	if a := as["2222.SR"]; a.Country != "Saudi Arabia" || a.Currency != "SAR" {
		t.Errorf("2222.SR %+v", a)
	}

	ix := indexByName(p.Indices)
	if len(ix) != len(catalog.KnownIndices) {
		t.Errorf("%d indices, want all %d known", len(ix), len(catalog.KnownIndices))
	}
	for _, k := range catalog.KnownIndices {
		i := ix[k.Name]
		if i.Description != k.Description || i.Country != k.Country || i.Source == "" {
			t.Errorf("%s: %+v", k.Name, i)
		}
		missing := 0
		for _, s := range i.Symbols {
			if _, ok := as[s]; !ok {
				missing++
			}
		}
		if missing > 0 {
			t.Errorf("%s: %d constituents without an asset record", k.Name, missing)
		}
		t.Logf("%-12s %3d constituents (about %3d expected) from %s", k.Name, len(i.Symbols), k.Estimated, i.Source)
	}
	if n := len(ix["SP500"].Symbols); n < 495 || n > 510 {
		t.Errorf("SP500 %d constituents", n)
	}
	for name, want := range map[string]int{"DJIA": 30, "DAX40": 40, "NIFTY50": 50, "NIKKEI225": 225, "CSI300": 300, "FTSE100": 100} {
		if n := len(ix[name].Symbols); n != want {
			t.Errorf("%s %d constituents, want %d", name, n, want)
		}
	}

	// close matrices: one daily and one monthly series per ticker in the headers
	counts := map[string]int{}
	var aapl *shariah.Series
	for i, s := range p.Series {
		if s.Interval == "1d" {
			switch {
			case strings.HasSuffix(s.Symbol, ".T"):
				counts["N225"]++
			case strings.HasSuffix(s.Symbol, ".L"):
				counts["FTSE100"]++
			case strings.HasPrefix(s.Symbol, "^") || s.Symbol == "000300.SS":
				counts["index"]++
			default:
				counts["SP500"]++
			}
		}
		if s.Symbol == "AAPL" && s.Interval == "1d" {
			aapl = &p.Series[i]
		}
	}
	for _, m := range closeMatrices {
		tickers := map[string]bool{}
		for _, y := range closeMatrixYears {
			data, err := os.ReadFile(filepath.Join(dir, PathJanzenDir, m.prefix+"_constituents_close_2010to2025",
				m.prefix+"_constituents_close_"+y+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			header, _, _ := strings.Cut(string(data), "\n")
			for _, c := range strings.Split(strings.TrimSpace(header), ",")[1:] {
				tickers[c] = true
			}
		}
		if counts[m.prefix] != len(tickers) {
			t.Errorf("%s: %d daily series, %d tickers in the headers", m.prefix, counts[m.prefix], len(tickers))
		}
		t.Logf("%s close matrices: %d tickers", m.prefix, len(tickers))
	}
	if counts["index"] != 5 {
		t.Errorf("%d index series", counts["index"])
	}
	if aapl == nil {
		t.Fatal("no AAPL daily series")
	}
	n2025 := 0
	for _, b := range aapl.Bars {
		if b.Date.Year() == 2025 {
			n2025++
		}
	}
	last := aapl.Bars[len(aapl.Bars)-1]
	if n2025 < 240 || last.Date.Format("2006-01-02") != "2025-12-30" || aapl.Source != shariah.SourceHistory {
		t.Errorf("AAPL: %d closes in 2025, last %v", n2025, last)
	}

	// SPUS holdings
	var sum decimal.Decimal
	spus := 0
	for _, h := range p.Holdings {
		if h.ETF == "SPUS" {
			spus++
			sum = sum.Add(h.Weight.Decimal)
		}
	}
	if spus != 219 || sum.LessThan(num("0.99")) || sum.GreaterThan(num("1.01")) {
		t.Errorf("SPUS: %d holdings, weights sum to %s", spus, sum)
	}
	t.Logf("SPUS: %d holdings, weights sum to %s", spus, sum)

	// FX: the latest of every current currency, units per USD
	fx := map[string]market.FXRate{}
	for _, r := range p.FX {
		fx[r.Currency] = r
	}
	if g := fx["GBP"]; g.PerUSD.GreaterThanOrEqual(num("1")) || g.AsOf != "2026-06-01" {
		t.Errorf("GBP %+v", g)
	}
	if j := fx["JPY"]; j.PerUSD.LessThan(num("50")) {
		t.Errorf("JPY %+v", j)
	}
	if _, ok := fx["DEM"]; ok || len(p.FX) < 20 {
		t.Errorf("FX %v", p.FX)
	}
	if len(p.Metals) < 2000 || p.Metals[len(p.Metals)-1].AsOf != "2026-06-01" {
		t.Errorf("gold %d prices", len(p.Metals))
	}
	if len(x.MarketCapCategory) < 30000 || len(x.Snapshots) < 450 {
		t.Errorf("extras: %d categories, %d snapshots", len(x.MarketCapCategory), len(x.Snapshots))
	}
	t.Logf("ReadShared took %v (BenchmarkReadShared measures it)", elapsed)
}

func BenchmarkReadShared(b *testing.B) {
	fsys := os.DirFS(sharedDataDir(b))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := ReadShared(fsys); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCloseMatricesSP500(b *testing.B) {
	fsys := os.DirFS(sharedDataDir(b))
	var files []string
	for _, y := range closeMatrixYears {
		files = append(files, PathJanzenDir+"/SP500_constituents_close_2010to2025/SP500_constituents_close_"+y+".csv")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadCloseMatrices(fsys, files, ""); err != nil {
			b.Fatal(err)
		}
	}
}
