package datapack

// Readers of the public index constituent lists: the S&P 500 list with GICS sectors and CIKs
// (datasets/s-and-p-500-companies), the yfiua current lists, NSE's NIFTY 50 file and the Janzen-Alpha
// yearly membership. pytickersymbols (stocks.yaml) is in public_pytickersymbols.go.

import (
	"io/fs"
	"path"
	"strconv"
	"strings"

	shariah "github.com/shariah-screen/shariah"
)

// SourceSP500Constituents is the Asset.Source of the S&P 500 constituents list.
const SourceSP500Constituents = "sp500-constituents"

// IndustrySourceSP500 names the scheme and data set of the S&P 500 constituents' sector and industry
// (the business screen names it: docs/business-classification.md).
const IndustrySourceSP500 = "S&P 500 constituents, indices/sp500-datasets (GICS sub-industry)"

// ReadSP500Constituents reads indices/sp500-datasets/constituents.csv (Symbol, Security, GICS Sector,
// GICS Sub-Industry, ..., CIK): one US equity per row (Sector = GICS sector, Industry = GICS
// sub-industry, CIK zero-padded to 10 digits, symbols Yahoo-style: BRK.B -> BRK-B) and the SP500
// membership.
func ReadSP500Constituents(fsys fs.FS, file string) (*Pack, error) {
	p := &Pack{}
	t, err := pubOpenCSV(fsys, file, p, "Symbol", "Security", "GICS Sector", "GICS Sub-Industry")
	if err != nil || t == nil {
		return p, err
	}
	var members []string
	seen := map[string]bool{}
	t.each(func(line int, rec []string) {
		sym, ok := pubUSSymbol(t.get(rec, "Symbol"))
		if !ok {
			p.Problemf(file, line, "symbol %q is not a valid symbol", t.get(rec, "Symbol"))
			return
		}
		if seen[sym] {
			p.Problemf(file, line, "duplicate symbol %s", sym)
			return
		}
		seen[sym] = true
		a := shariah.Asset{Symbol: sym, Name: t.get(rec, "Security"), Type: shariah.Equity,
			Country: "United States", Currency: "USD", Sector: t.get(rec, "GICS Sector"),
			Industry: t.get(rec, "GICS Sub-Industry"), IndustrySource: IndustrySourceSP500, Source: SourceSP500Constituents}
		cik, err := pubCIK(t.get(rec, "CIK"))
		if err != nil {
			p.Problemf(file, line, "%s: %v; loaded without a CIK", sym, err)
		}
		a.CIK = cik
		p.Assets = append(p.Assets, a)
		members = append(members, sym)
	})
	if len(members) > 0 {
		p.Indices = append(p.Indices, pubIndex("SP500", file, members))
	}
	p.pubNotef("%s: %d S&P 500 constituents", file, len(members))
	return p, nil
}

// Sources of the index-list asset records.
const (
	SourceYfiua         = "yfiua-constituents"
	SourceJanzenMembers = "janzen-alpha-membership"
)

// pubMarketCurrency is the trading currency of a symbol's market by its Yahoo suffix ("" when unknown).
// London lines are GBP here although prices there are quoted in pence.
func pubMarketCurrency(sym string) string {
	i := strings.LastIndexByte(sym, '.')
	if i < 0 {
		if strings.HasPrefix(sym, "^") {
			return ""
		}
		return "USD"
	}
	switch sym[i:] {
	case ".HK":
		return "HKD"
	case ".SZ", ".SS":
		return "CNY"
	case ".L":
		return "GBP"
	case ".DE", ".MI", ".PA", ".AS", ".MC", ".BR", ".HE", ".IR":
		return "EUR"
	case ".T":
		return "JPY"
	case ".NS", ".BO":
		return "INR"
	case ".SR":
		return "SAR"
	case ".KS", ".KQ":
		return "KRW"
	}
	return ""
}

// YfiuaIndices maps the codes of the yfiua/index-constituents files (constituents-<code>.csv) to the
// canonical index names of shariah.KnownIndices.
var YfiuaIndices = map[string]string{
	"sp500":     "SP500",
	"nasdaq100": "NASDAQ100",
	"dowjones":  "DJIA",
	"dax":       "DAX40",
	"ftse100":   "FTSE100",
	"hsi":       "HANGSENG",
	"ftsemib":   "FTSEMIB",
	"csi300":    "CSI300",
}

// yfiuaUS are the yfiua lists of US tickers, written with a dot for share classes (BRK.B).
var yfiuaUS = map[string]bool{"sp500": true, "nasdaq100": true, "dowjones": true}

// yfiuaSymbol repairs the London tickers the yfiua FTSE 100 list writes with a slash: the tickers that
// end in a dot on the LSE (AV., BP.) appear as "AV/.L" (Yahoo: AV.L) and share classes as "BT/A.L"
// (Yahoo: BT-A.L).
func yfiuaSymbol(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "/.", ".")
	return strings.ReplaceAll(s, "/", "-")
}

// ReadYfiuaConstituents reads one yfiua current constituent list (Symbol,Name), named
// constituents-<code>.csv with a code of YfiuaIndices, into the membership of that index. US tickers are
// made Yahoo-style (BRK.B -> BRK-B); the others already carry their market suffix (ADS.DE, 0700.HK;
// see yfiuaSymbol for the London quirk).
// Each row is also a bare equity record (Name, Currency by market; Source "yfiua-constituents"), which
// ReadShared merges last: it only names the members the directories lack (Hong Kong and CSI 300
// companies missing from FinanceDatabase's extract). The files are scraped and some names are
// mis-encoded (BrownâForman), hence the lowest precedence.
func ReadYfiuaConstituents(fsys fs.FS, file string) (*Pack, error) {
	p := &Pack{}
	code := strings.TrimSuffix(strings.TrimPrefix(path.Base(file), "constituents-"), ".csv")
	index, known := YfiuaIndices[code]
	if !known {
		p.Problemf(file, 0, "unknown yfiua index code %q (want constituents-<code>.csv with a known code)", code)
		return p, nil
	}
	t, err := pubOpenCSV(fsys, file, p, "Symbol")
	if err != nil || t == nil {
		return p, err
	}
	var members []string
	t.each(func(line int, rec []string) {
		raw := t.get(rec, "Symbol")
		var sym string
		var ok bool
		if yfiuaUS[code] {
			sym, ok = pubUSSymbol(raw)
		} else {
			sym, ok = pubSymbol(yfiuaSymbol(raw))
		}
		if !ok {
			p.Problemf(file, line, "symbol %q is not a valid symbol", raw)
			return
		}
		members = append(members, sym)
		if name := t.get(rec, "Name"); name != "" {
			p.Assets = append(p.Assets, shariah.Asset{Symbol: sym, Name: name, Type: shariah.Equity,
				Currency: pubMarketCurrency(sym), Source: SourceYfiua})
		}
	})
	if len(members) > 0 {
		p.Indices = append(p.Indices, pubIndex(index, file, members))
	}
	p.pubNotef("%s: %d %s constituents", file, len(members), index)
	return p, nil
}

// SourceNifty50 is the Asset.Source of the NSE NIFTY 50 list.
const SourceNifty50 = "nifty50-list"

// ReadNifty50 reads NSE's NIFTY 50 list (Company Name, Industry, Symbol, Series, ISIN Code; CRLF) into
// the NIFTY50 membership (symbols "<SYM>.NS") and one Indian equity per row with its ISIN.
func ReadNifty50(fsys fs.FS, file string) (*Pack, error) {
	p := &Pack{}
	t, err := pubOpenCSV(fsys, file, p, "Company Name", "Symbol")
	if err != nil || t == nil {
		return p, err
	}
	var members []string
	t.each(func(line int, rec []string) {
		raw := t.get(rec, "Symbol")
		sym, ok := pubSymbol(raw + ".NS")
		if raw == "" || !ok {
			p.Problemf(file, line, "symbol %q is not a valid symbol", raw)
			return
		}
		isin := t.get(rec, "ISIN Code")
		a := shariah.Asset{Symbol: sym, Name: t.get(rec, "Company Name"), Type: shariah.Equity,
			Exchange: "NSE", Country: "India", Currency: "INR", Industry: t.get(rec, "Industry"), IndustrySource: "NSE NIFTY 50 list (NSE industry)",
			ISIN: pubISIN(isin), Source: SourceNifty50}
		if isin != "" && a.ISIN == "" {
			p.Problemf(file, line, "%s: ISIN %q fails its check digit; loaded without it", sym, isin)
		}
		p.Assets = append(p.Assets, a)
		members = append(members, sym)
	})
	if len(members) > 0 {
		p.Indices = append(p.Indices, pubIndex("NIFTY50", file, members))
	}
	p.pubNotef("%s: %d NIFTY 50 constituents", file, len(members))
	return p, nil
}

// ReadYearlyMembership reads a Janzen-Alpha yearly membership file (one column per year, cells are the
// tickers in the index that year) into the membership of index as of the latest year column. suffix
// is added to tickers without a market suffix (".T" for the Nikkei 225, whose cells are 4-digit TSE
// codes). For a single-country index each member is also a bare equity record (no name: the file has
// none; Country and Currency of the index's market; Source "janzen-alpha-membership"), merged last
// by ReadShared so that every member has a record.
func ReadYearlyMembership(fsys fs.FS, file, index, suffix string) (*Pack, error) {
	p := &Pack{}
	t, err := pubOpenCSV(fsys, file, p)
	if err != nil || t == nil {
		return p, err
	}
	// the latest year among the header's columns
	col, year := -1, 0
	for name, i := range t.col {
		if y, err := strconv.Atoi(name); err == nil && y > year && y >= 1900 && y <= 2200 {
			col, year = i, y
		}
	}
	if col < 0 {
		p.Problemf(file, 1, "no year column in the header")
		return p, nil
	}
	var members []string
	t.each(func(line int, rec []string) {
		if col >= len(rec) {
			return // a shorter column of that year
		}
		raw := strings.TrimSpace(rec[col])
		if raw == "" {
			return
		}
		if suffix != "" && !strings.Contains(raw, ".") {
			raw += suffix
		}
		sym, ok := pubSymbol(raw)
		if !ok {
			p.Problemf(file, line, "%d: %q is not a valid symbol", year, raw)
			return
		}
		members = append(members, sym)
	})
	if len(members) > 0 {
		info := pubIndex(index, file, members)
		p.Indices = append(p.Indices, info)
		if info.Country != "" && info.Country != "Eurozone" {
			for _, sym := range info.Symbols {
				p.Assets = append(p.Assets, shariah.Asset{Symbol: sym, Type: shariah.Equity, Country: info.Country,
					Currency: pubMarketCurrency(sym), Source: SourceJanzenMembers})
			}
		}
	}
	p.pubNotef("%s: %d %s constituents in %d", file, len(members), index, year)
	return p, nil
}
