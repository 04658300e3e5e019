package datapack

// Readers of the public asset directories: FinanceDatabase's compact extracts (non-US equities and
// ETFs worldwide) and the Nasdaq Trader symbol directories (US listings on Nasdaq, NYSE, NYSE American,
// NYSE Arca, Cboe BZX and IEX).

import (
	"io/fs"
	"strings"

	shariah "github.com/shariah-screen/shariah"
)

// Asset sources of the directories.
const (
	SourceFinanceDatabase = "financedatabase"
	SourceNasdaqListed    = "nasdaq-listed"
	SourceOtherListed     = "nyse-other-listed"
)

// financeDBExchange names FinanceDatabase's US exchange codes as the Nasdaq Trader readers do; the
// other codes (LSE, JPX, HKG, SAU, GER, ...) are kept as they are.
var financeDBExchange = map[string]string{
	"NMS": "NASDAQ", "NGM": "NASDAQ", "NCM": "NASDAQ", "NAS": "NASDAQ", "NIM": "NASDAQ",
	"NYQ": "NYSE", "ASE": "NYSE American", "PCX": "NYSE Arca", "BTS": "Cboe BZX", "PNK": "OTC",
}

// financeDBSymbol canonicalizes a FinanceDatabase symbol. Symbols with a market suffix are kept (with
// internal blanks rejected); suffix-less ones are US tickers, made Yahoo-style (BRK/B -> BRK-B).
// Preferred shares (AAM^A, "UMH PR-A") and Colombo's "N0000@C" codes report skip instead.
func financeDBSymbol(raw string) (sym string, skip, ok bool) {
	s := strings.TrimSpace(raw)
	if strings.ContainsAny(s, "^@ ") {
		return "", true, false
	}
	if i := strings.LastIndexByte(s, '.'); i > 0 && i >= len(s)-4 && !strings.Contains(s, "/") {
		sym, ok = pubSymbol(s)
		return sym, false, ok
	}
	sym, ok = pubUSSymbol(s)
	return sym, false, ok
}

// financeDBRows reads the rows of a FinanceDatabase file into assets of typ, with the columns common to
// both files (symbol, name, exchange, currency, isin); fill adds the file's own columns to each asset
// (and may record more about its row). It returns the rows skipped (preferred shares and odd classes)
// and the ISINs dropped for a bad check digit; bad and duplicate symbols are problems.
func financeDBRows(t *pubTable, p *Pack, file string, typ shariah.AssetType,
	fill func(a *shariah.Asset, get func(col string) string)) (skipped, badISIN int) {
	seen := map[string]bool{}
	t.each(func(line int, rec []string) {
		raw := t.get(rec, "symbol")
		sym, skip, ok := financeDBSymbol(raw)
		if skip {
			skipped++
			return
		}
		if !ok {
			p.Problemf(file, line, "symbol %q is not a valid symbol", raw)
			return
		}
		if seen[sym] {
			p.Problemf(file, line, "duplicate symbol %s", sym)
			return
		}
		seen[sym] = true
		ex := t.get(rec, "exchange")
		a := shariah.Asset{Symbol: sym, Name: t.get(rec, "name"), Type: typ, Exchange: ex,
			Currency: t.get(rec, "currency"), Source: SourceFinanceDatabase}
		if n, ok := financeDBExchange[ex]; ok {
			a.Exchange = n
		}
		if isin := t.get(rec, "isin"); isin != "" {
			if a.ISIN = pubISIN(isin); a.ISIN == "" {
				badISIN++
			}
		}
		fill(&a, func(col string) string { return t.get(rec, col) })
		p.Assets = append(p.Assets, a)
	})
	return skipped, badISIN
}

// ReadFinanceDBEquities reads FinanceDatabase's equities-compact.csv (symbol, name, currency, sector,
// industry_group, industry, exchange, mic, market, country, market_cap, isin, figi) into equities
// (ISIN kept only when its check digit is right), the TASI membership (every equity of exchange SAU,
// the Saudi Exchange), and the market-cap category of each symbol (Mega, Large, Mid, Small, Micro or
// Nano Cap; absent when the file has none).
func ReadFinanceDBEquities(fsys fs.FS, file string) (*Pack, map[string]string, error) {
	p := &Pack{}
	caps := map[string]string{}
	t, err := pubOpenCSV(fsys, file, p, "symbol", "name", "exchange")
	if err != nil || t == nil {
		return p, caps, err
	}
	var tasi []string
	skipped, badISIN := financeDBRows(t, p, file, shariah.Equity, func(a *shariah.Asset, get func(string) string) {
		a.Country, a.Sector, a.Industry = get("country"), get("sector"), get("industry")
		if a.Sector != "" || a.Industry != "" {
			a.IndustrySource = "FinanceDatabase (GICS sector and industry)"
		}
		if c := get("market_cap"); c != "" {
			caps[a.Symbol] = c
		}
		if get("exchange") == "SAU" {
			tasi = append(tasi, a.Symbol)
		}
	})
	if len(tasi) > 0 {
		p.Indices = append(p.Indices, pubIndex("TASI", file+" (exchange SAU)", tasi))
	}
	p.pubNotef("%s: %d equities, %d with a market-cap category, %d Saudi Exchange (TASI)", file,
		len(p.Assets), len(caps), len(tasi))
	if skipped > 0 {
		p.pubNotef("%s: %d preferred shares and odd share classes (symbols with ^, @ or blanks) skipped", file, skipped)
	}
	if badISIN > 0 {
		p.pubNotef("%s: %d ISINs failing their check digit dropped", file, badISIN)
	}
	return p, caps, nil
}

// ReadFinanceDBETFs reads FinanceDatabase's etfs-compact.csv (symbol, name, currency, category_group,
// category, family, exchange, mic, isin) into ETFs (Sector = category group, Industry = category).
func ReadFinanceDBETFs(fsys fs.FS, file string) (*Pack, error) {
	p := &Pack{}
	t, err := pubOpenCSV(fsys, file, p, "symbol", "name")
	if err != nil || t == nil {
		return p, err
	}
	skipped, badISIN := financeDBRows(t, p, file, shariah.ETF, func(a *shariah.Asset, get func(string) string) {
		a.Sector, a.Industry = get("category_group"), get("category")
	})
	p.pubNotef("%s: %d ETFs", file, len(p.Assets))
	if skipped > 0 {
		p.pubNotef("%s: %d symbols with ^, @ or blanks skipped", file, skipped)
	}
	if badISIN > 0 {
		p.pubNotef("%s: %d ISINs failing their check digit dropped", file, badISIN)
	}
	return p, nil
}

// otherListedExchange names the exchange codes of the Nasdaq Trader otherlisted file.
var otherListedExchange = map[string]string{
	"N": "NYSE", "A": "NYSE American", "P": "NYSE Arca", "Z": "Cboe BZX", "V": "IEX",
}

// ReadNasdaqListed reads the Nasdaq Trader nasdaqlisted directory (Symbol, Company Name, Security Name,
// Market Category, Test Issue, Financial Status, Round Lot Size, ETF, NextShares) into US assets on
// NASDAQ. See readUSListings for what is skipped.
func ReadNasdaqListed(fsys fs.FS, file string) (*Pack, error) {
	return readUSListings(fsys, file, "Symbol", func(string) (string, bool) { return "NASDAQ", true },
		SourceNasdaqListed)
}

// ReadOtherListed reads the Nasdaq Trader otherlisted directory (ACT Symbol, Company Name, Security
// Name, Exchange, CQS Symbol, ETF, Round Lot Size, Test Issue, NASDAQ Symbol) into US assets on NYSE
// (N), NYSE American (A), NYSE Arca (P), Cboe BZX (Z) and IEX (V). See readUSListings.
func ReadOtherListed(fsys fs.FS, file string) (*Pack, error) {
	return readUSListings(fsys, file, "ACT Symbol", func(code string) (string, bool) {
		ex, ok := otherListedExchange[code]
		return ex, ok
	}, SourceOtherListed)
}

// readUSListings reads a Nasdaq Trader directory: Type etf when ETF is "Y", else equity (nothing there
// is a mutual fund); Country United States, Currency USD; symbols Yahoo-style ('.' -> '-': BRK.B ->
// BRK-B, AAC.U -> AAC-U). Test issues, preferred shares (symbols with '$': ABR$D) and the trailing "File
// Creation Time" row are skipped and counted in Notes, not Problems.
func readUSListings(fsys fs.FS, file, symCol string, exchange func(string) (string, bool), source string) (*Pack, error) {
	p := &Pack{}
	t, err := pubOpenCSV(fsys, file, p, symCol, "ETF", "Test Issue")
	if err != nil || t == nil {
		return p, err
	}
	seen := map[string]bool{}
	tests, prefs, unknownEx := 0, 0, 0
	t.each(func(line int, rec []string) {
		raw := t.get(rec, symCol)
		switch {
		case strings.HasPrefix(raw, "File Creation Time"):
			p.pubNotef("%s: %s", file, raw)
			return
		case strings.EqualFold(t.get(rec, "Test Issue"), "Y"):
			tests++
			return
		case strings.Contains(raw, "$"):
			prefs++
			return
		}
		sym, ok := pubUSSymbol(raw)
		if !ok {
			p.Problemf(file, line, "symbol %q is not a valid symbol", raw)
			return
		}
		if seen[sym] {
			p.Problemf(file, line, "duplicate symbol %s", sym)
			return
		}
		seen[sym] = true
		name := t.get(rec, "Company Name")
		if name == "" {
			name = t.get(rec, "Security Name")
		}
		a := shariah.Asset{Symbol: sym, Name: pubListingName(name), Type: shariah.Equity, Country: "United States",
			Currency: "USD", Source: source}
		if strings.EqualFold(t.get(rec, "ETF"), "Y") {
			a.Type = shariah.ETF
		}
		ex, ok := exchange(t.get(rec, "Exchange"))
		if !ok {
			unknownEx++
		}
		a.Exchange = ex
		p.Assets = append(p.Assets, a)
	})
	etfs := 0
	for _, a := range p.Assets {
		if a.Type == shariah.ETF {
			etfs++
		}
	}
	p.pubNotef("%s: %d listings (%d ETFs)", file, len(p.Assets), etfs)
	if tests > 0 {
		p.pubNotef("%s: %d test issues skipped", file, tests)
	}
	if prefs > 0 {
		p.pubNotef("%s: %d preferred shares (symbols with '$') skipped", file, prefs)
	}
	if unknownEx > 0 {
		p.pubNotef("%s: %d listings with an unknown exchange code loaded without an exchange", file, unknownEx)
	}
	return p, nil
}

// pubListingName drops the " Common Stock" the otherlisted file appends to company names.
func pubListingName(s string) string {
	s = strings.TrimSpace(s)
	for _, suffix := range []string{" Common Stock", " common stock", " Common Shares"} {
		if strings.HasSuffix(s, suffix) && len(s) > len(suffix) {
			return strings.TrimSpace(s[:len(s)-len(suffix)])
		}
	}
	return s
}
