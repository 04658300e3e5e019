package datapack

// Reader of pytickersymbols' stocks.yaml: about 1,065 companies with name, country, ISINs, the indices
// they belong to and their listings (Yahoo and Google symbols with currency).

import (
	"io/fs"
	"strings"

	yaml "github.com/oasdiff/yaml3"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// SourcePyTickerSymbols is the Asset.Source of pytickersymbols records.
const SourcePyTickerSymbols = "pytickersymbols"

// PyTickerSymbolsIndices maps pytickersymbols' index names to canonical names of catalog.KnownIndices.
// Its other indices (SDAX, CDAX, CAC Mid 60, OMX Helsinki 25, S&P 600, ASX 200, MOEX) give no
// membership.
var PyTickerSymbolsIndices = map[string]string{
	"DAX":              "DAX40",
	"MDAX":             "MDAX",
	"TECDAX":           "TECDAX",
	"FTSE 100":         "FTSE100",
	"CAC 40":           "CAC40",
	"DOW JONES":        "DJIA",
	"NASDAQ 100":       "NASDAQ100",
	"NIKKEI 225":       "NIKKEI225",
	"S&P 100":          "SP100",
	"S&P 500":          "SP500",
	"BEL 20":           "BEL20",
	"IBEX 35":          "IBEX35",
	"AEX":              "AEX",
	"OMX Stockholm 30": "OMXS30",
	"Switzerland 20":   "SMI",
	"EURO STOXX 50":    "EUROSTOXX50",
}

// ptsHome is the Yahoo suffix of an index's home market ("" for the US), in the order the home
// listing of a company in several indices is decided: a US index first (Linde: LIN, not LIN.DE), then
// the national indices. EURO STOXX 50 has no single home market: see ptsEuroHome.
var ptsHome = []struct{ index, suffix string }{
	{"S&P 500", ""}, {"S&P 100", ""}, {"DOW JONES", ""}, {"NASDAQ 100", ""}, {"S&P 600", ""},
	{"FTSE 100", ".L"},
	{"DAX", ".DE"}, {"MDAX", ".DE"}, {"TECDAX", ".DE"}, {"SDAX", ".DE"}, {"CDAX", ".DE"},
	{"CAC 40", ".PA"}, {"CAC Mid 60", ".PA"},
	{"IBEX 35", ".MC"}, {"AEX", ".AS"}, {"BEL 20", ".BR"},
	{"OMX Stockholm 30", ".ST"}, {"OMX Helsinki 25", ".HE"}, {"Switzerland 20", ".SW"},
	{"NIKKEI 225", ".T"}, {"ASX 200", ".AX"}, {"MOEX", ".ME"},
}

// ptsEuroHome is the home market of a EURO STOXX 50 company by its country.
var ptsEuroHome = map[string]string{
	"Germany": ".DE", "France": ".PA", "Netherlands": ".AS", "Spain": ".MC", "Italy": ".MI",
	"Belgium": ".BR", "Finland": ".HE", "Ireland": ".IR",
}

// ptsCurrency is the trading currency of a home market.
var ptsCurrency = map[string]string{
	"": "USD", ".L": "GBP", ".DE": "EUR", ".PA": "EUR", ".MC": "EUR", ".AS": "EUR", ".BR": "EUR",
	".HE": "EUR", ".MI": "EUR", ".IR": "EUR", ".ST": "SEK", ".SW": "CHF", ".T": "JPY", ".AX": "AUD",
	".ME": "RUB",
}

// ptsCountry aligns pytickersymbols' country names with FinanceDatabase's.
var ptsCountry = map[string]string{"Russian Federation": "Russia"}

type ptsCompany struct {
	Name    string   `yaml:"name"`
	Symbol  string   `yaml:"symbol"`
	Country string   `yaml:"country"`
	Indices []string `yaml:"indices"`
	Symbols []struct {
		Yahoo    string `yaml:"yahoo"`
		Google   string `yaml:"google"`
		Currency string `yaml:"currency"`
		Skip     bool   `yaml:"skip"`
	} `yaml:"symbols"`
	ISINs []string `yaml:"isins"`
}

// ReadPyTickerSymbols reads pytickersymbols' stocks.yaml into one equity per company and the membership
// of the indices of PyTickerSymbolsIndices.
//
// The canonical symbol is the company's Yahoo symbol on its home market, which its indices and country
// decide (ptsHomeMarket): the listed Yahoo symbol equal to the company's ticker there (GS, not GS-PK;
// III.L), else another listed Yahoo symbol of that market (FLTR.L for Flutter, ticker PPB), else the
// ticker with the market's suffix. The last case is common: the file lists German companies only on
// the Frankfurt floor (ADS.F) and OTC, so Adidas becomes ADS.DE (Xetra), as in yfiua's DAX list and
// FinanceDatabase. London "0XXX.L" codes (international order book), OTC ADRs and market codes written
// as tickers (XBRU) are never a home listing. Some tickers in the file are stale or OTC codes (Covivio:
// GSEFF): ReadShared corrects those by ISIN against FinanceDatabase (reconcileByISIN). Sector and
// industry are left to the other sources: the file's industry lists are unordered tags.
func ReadPyTickerSymbols(fsys fs.FS, file string) (*Pack, error) {
	p := &Pack{}
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return p, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.Problemf(file, 0, "YAML: %v", err)
		return p, nil
	}
	companies := ptsLookup(&doc, "companies")
	if companies == nil || companies.Kind != yaml.SequenceNode {
		p.Problemf(file, 0, "no companies list")
		return p, nil
	}
	members := map[string][]string{}
	seen := map[string]bool{}
	for _, node := range companies.Content {
		var c ptsCompany
		if err := node.Decode(&c); err != nil {
			p.Problemf(file, node.Line, "company: %v", err)
			continue
		}
		sym, currency, ok := ptsHomeSymbol(c)
		if !ok {
			p.Problemf(file, node.Line, "company %q: no usable symbol", c.Name)
			continue
		}
		if seen[sym] {
			p.Problemf(file, node.Line, "company %q: symbol %s already taken by another company", c.Name, sym)
			continue
		}
		seen[sym] = true
		a := shariah.Asset{Symbol: sym, Name: strings.TrimSpace(c.Name), Type: shariah.Equity,
			Country: strings.TrimSpace(c.Country), Currency: currency, Source: SourcePyTickerSymbols}
		if n, ok := ptsCountry[a.Country]; ok {
			a.Country = n
		}
		for _, isin := range c.ISINs {
			if a.ISIN = pubISIN(isin); a.ISIN != "" {
				break
			}
		}
		p.Assets = append(p.Assets, a)
		for _, ix := range c.Indices {
			if name, ok := PyTickerSymbolsIndices[strings.TrimSpace(ix)]; ok {
				members[name] = append(members[name], sym)
			}
		}
	}
	for _, k := range catalog.KnownIndices {
		if len(members[k.Name]) > 0 {
			p.Indices = append(p.Indices, pubIndex(k.Name, file, members[k.Name]))
		}
	}
	p.pubNotef("%s: %d companies, membership of %d indices", file, len(p.Assets), len(p.Indices))
	return p, nil
}

// ptsLookup finds a key of the document's top-level mapping.
func ptsLookup(doc *yaml.Node, key string) *yaml.Node {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// ptsCountryHome is the national market of a company's country.
var ptsCountryHome = map[string]string{
	"Germany": ".DE", "France": ".PA", "Netherlands": ".AS", "Spain": ".MC", "Italy": ".MI",
	"Belgium": ".BR", "Finland": ".HE", "Ireland": ".IR", "United Kingdom": ".L", "Sweden": ".ST",
	"Switzerland": ".SW", "Russian Federation": ".ME", "Russia": ".ME", "Japan": ".T", "United States": "",
}

// ptsMICs are market identifier codes the file has in place of some companies' tickers (UCB: XBRU).
var ptsMICs = map[string]bool{
	"XBRU": true, "XPAR": true, "XAMS": true, "XLIS": true, "XETR": true, "XFRA": true, "XMIL": true,
	"XMAD": true, "XSTO": true, "XHEL": true, "XLON": true, "XSWX": true,
}

// ptsHomeMarket decides the suffix of a company's home market: the US when it is in a US index; else,
// among the markets of its national indices, its country's; else the first of them in ptsHome order;
// else (EURO STOXX 50 only) its country's.
func ptsHomeMarket(c ptsCompany) (string, bool) {
	in := map[string]bool{}
	for _, ix := range c.Indices {
		in[strings.TrimSpace(ix)] = true
	}
	var markets []string
	for _, h := range ptsHome {
		if in[h.index] {
			if h.suffix == "" {
				return "", true
			}
			markets = append(markets, h.suffix)
		}
	}
	country, countryKnown := ptsCountryHome[strings.TrimSpace(c.Country)]
	for _, m := range markets {
		if countryKnown && m == country {
			return m, true
		}
	}
	if len(markets) > 0 {
		return markets[0], true
	}
	if in["EURO STOXX 50"] {
		h, ok := ptsEuroHome[strings.TrimSpace(c.Country)]
		return h, ok
	}
	return "", false
}

// ptsHomeSymbol picks a company's canonical symbol and its currency (see ReadPyTickerSymbols).
func ptsHomeSymbol(c ptsCompany) (string, string, bool) {
	home, homeKnown := ptsHomeMarket(c)
	// the ticker on the home market
	var want string
	if t := strings.TrimSpace(c.Symbol); t != "" && homeKnown && !ptsMICs[strings.ToUpper(t)] {
		if home == "" {
			want, _ = pubUSSymbol(t)
		} else {
			want, _ = pubSymbol(strings.ReplaceAll(t, " ", "-") + home)
		}
	}
	type cand struct{ sym, google, currency string }
	var cands []cand
	for _, s := range c.Symbols {
		if s.Skip {
			continue
		}
		if sym, ok := pubSymbol(s.Yahoo); ok {
			cands = append(cands, cand{sym, strings.ToUpper(strings.TrimSpace(s.Google)), strings.TrimSpace(s.Currency)})
		}
	}
	currency := func(x cand) string {
		if x.currency != "" {
			return x.currency
		}
		return ptsCurrency[home]
	}
	if want != "" {
		for _, x := range cands {
			if x.sym == want {
				return x.sym, currency(x), true
			}
		}
	}
	if homeKnown {
		for _, x := range cands {
			if ptsOnMarket(x.sym, x.google, home) {
				return x.sym, currency(x), true
			}
		}
	}
	if want != "" {
		return want, ptsCurrency[home], true
	}
	// no home listing: a regular listing elsewhere, else Frankfurt, else anything but London's
	// international order book
	for _, x := range cands {
		if !strings.HasSuffix(x.sym, ".F") && !strings.HasPrefix(x.google, "OTC") && !ptsIOB(x.sym) {
			return x.sym, x.currency, true
		}
	}
	for _, x := range cands {
		if !ptsIOB(x.sym) {
			return x.sym, x.currency, true
		}
	}
	return "", "", false
}

// ptsIOB reports a London international order book code (0NZT.L).
func ptsIOB(sym string) bool { return len(sym) == 6 && sym[0] == '0' && strings.HasSuffix(sym, ".L") }

// ptsOnMarket reports whether a Yahoo symbol is a regular listing on the market of suffix.
func ptsOnMarket(sym, google, suffix string) bool {
	if suffix == "" { // US: no market suffix, a US exchange (not OTC)
		ex, _, _ := strings.Cut(google, ":")
		return !strings.Contains(sym, ".") && (ex == "NYSE" || ex == "NASDAQ" || ex == "NYSEAMERICAN" ||
			ex == "NYSEARCA" || ex == "BATS")
	}
	if !strings.HasSuffix(sym, suffix) {
		return false
	}
	return !ptsIOB(sym)
}
