package news

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shariah-screen/shariah"
)

// Tagger finds the assets an article mentions. Build it once per reference database with NewTagger
// (10,000 assets take some tens of milliseconds) and share it: it is read-only and safe for concurrent
// use.
//
// It recognises three forms:
//   - cashtags: "$AAPL", "$BRK.B" (class shares written with '.' or '/' map to the canonical BRK-B);
//   - tickers in parentheses: "(NASDAQ: AAPL)", "(NYSE:BRK.B)", "(TSX: SHOP)" (the exchange's Yahoo
//     suffix is tried first: SHOP.TO), "(AAPL)"; a bare ticker needs two characters at least and is not
//     one of the acronyms of bareTickerStop ("(CEO)", "(AI)", "(EPS)");
//   - company names of equities, as whole words and case-sensitively: the short name of the asset's
//     name (legal suffixes, share classes and security descriptions removed: "Apple Inc." -> "Apple",
//     "Alphabet Inc. Class A" -> "Alphabet", "Amazon.com, Inc." -> "Amazon"); the first word of a
//     short name made of one word and industry words ("Cisco Systems" -> "Cisco", "Gilead Sciences"
//     -> "Gilead"; "Natural Gas Services" stays whole); an upper-case-first variant of words of five
//     letters or more written in capitals ("NVIDIA" -> "Nvidia"); and the aliases of
//     wellKnownAliases ("Google", "Facebook", "IBM") when their symbol is among the assets. A one-word
//     name shorter than 4 characters is used only when it is one of shortNameAllow ("3M", "HP", "BP");
//     one that is a common English word, a place or a personal name (commonWordNames: "Target",
//     "Gap", "Block", "Meta", "Outlook", "Powell") is never matched as a name: those companies are
//     tagged through cashtags and tickers only. A word written as a cashtag ("$HP") is not read as a
//     name.
//
// Only symbols among the assets are returned. A name shared by several assets tags the primary
// listing(s): symbols without an exchange suffix (AAPL rather than AAPL.MX) are preferred, and a
// symbol that extends another one of the same name (AACBU, AACBR beside AACB: units and rights) is
// dropped unless its name states a share class (GOOG and GOOGL are both tagged for "Alphabet").
type Tagger struct {
	symbols map[string]string       // ticker as written (BRK-B, BRK.B, BRK/B) -> canonical symbol
	names   map[string][]*nameEntry // first token of a name -> names, longest first
}

type nameEntry struct {
	tokens  []string
	symbols []string
}

// NewTagger indexes the assets' symbols and the short names of their equities.
func NewTagger(assets []shariah.Asset) *Tagger {
	t := &Tagger{symbols: make(map[string]string, 2*len(assets)), names: map[string][]*nameEntry{}}
	t.indexSymbols(assets)
	for k, cs := range t.nameCandidates(assets) {
		keep := chooseNameSymbols(cs)
		if len(keep) == 0 {
			continue
		}
		toks := strings.Split(k, "\x00")
		t.names[toks[0]] = append(t.names[toks[0]], &nameEntry{tokens: toks, symbols: keep})
	}
	for _, es := range t.names {
		sort.Slice(es, func(i, j int) bool {
			if len(es[i].tokens) != len(es[j].tokens) {
				return len(es[i].tokens) > len(es[j].tokens)
			}
			return strings.Join(es[i].tokens, " ") < strings.Join(es[j].tokens, " ")
		})
	}
	return t
}

// indexSymbols maps every symbol to itself and a share-class dash written as a dot or a slash (BRK.B,
// BRK/B) to the dashed symbol; exact symbols first, so a variant never shadows a real symbol.
func (t *Tagger) indexSymbols(assets []shariah.Asset) {
	for _, a := range assets {
		if s, ok := shariah.NormalizeSymbol(a.Symbol); ok {
			t.symbols[s] = s
		}
	}
	for _, a := range assets {
		s, ok := shariah.NormalizeSymbol(a.Symbol)
		if !ok || !strings.Contains(s, "-") {
			continue
		}
		for _, sep := range []string{".", "/"} {
			v := strings.ReplaceAll(s, "-", sep)
			if _, taken := t.symbols[v]; !taken {
				t.symbols[v] = s
			}
		}
	}
}

// nameCand is a symbol a name may stand for.
type nameCand struct {
	symbol string
	prio   int  // 0 alias, 1 short name, 2 short name without industry words
	class  bool // the name is a share class's (or an alias): kept even when another symbol is a prefix
}

// nameCandidates lists, per name (tokens joined by \x00), the symbols it may stand for: the short
// names of the equities and the well-known aliases of indexed symbols.
func (t *Tagger) nameCandidates(assets []shariah.Asset) map[string][]nameCand {
	cands := map[string][]nameCand{}
	add := func(name string, c nameCand, check bool) {
		for _, toks := range nameVariants(name) {
			if check && !usableName(strings.Join(toks, " ")) {
				continue
			}
			k := strings.Join(toks, "\x00")
			cands[k] = append(cands[k], c)
		}
	}
	for _, a := range assets {
		if a.Type != shariah.Equity {
			continue
		}
		s, ok := shariah.NormalizeSymbol(a.Symbol)
		if !ok {
			continue
		}
		lname := strings.ToLower(a.Name)
		class := strings.Contains(lname, "class ") || strings.Contains(lname, "series ")
		for i, n := range shortNames(a.Name) {
			add(n, nameCand{symbol: s, prio: 1 + i, class: class}, true)
		}
	}
	for alias, syms := range wellKnownAliases {
		for _, s := range syms {
			if _, ok := t.symbols[s]; ok && t.symbols[s] == s {
				add(alias, nameCand{symbol: s, prio: 0, class: true}, false)
			}
		}
	}
	return cands
}

// chooseNameSymbols picks the symbols a name stands for among its candidates: those of the best
// priority, domestic listings over foreign ones (a dot suffix), and not a symbol that merely extends
// another candidate (GOOGL beside GOOG) unless it is a share class's; sorted.
func chooseNameSymbols(cs []nameCand) []string {
	best := cs[0].prio
	for _, c := range cs {
		best = min(best, c.prio)
	}
	var top []nameCand
	domestic := false
	for _, c := range cs {
		if c.prio == best {
			top = append(top, c)
			domestic = domestic || !strings.Contains(c.symbol, ".")
		}
	}
	syms := map[string]bool{}
	for _, c := range top {
		if domestic && strings.Contains(c.symbol, ".") {
			continue
		}
		syms[c.symbol] = c.class
	}
	var keep []string
	for s, class := range syms {
		extends := false
		for o := range syms {
			if o != s && strings.HasPrefix(s, o) {
				extends = true
				break
			}
		}
		if !extends || class {
			keep = append(keep, s)
		}
	}
	sort.Strings(keep)
	return keep
}

var (
	cashtagRE = regexp.MustCompile(`(?:^|[^\w$])\$([A-Z][A-Z0-9]{0,5}(?:[.\-/][A-Z0-9]{1,3})?)\b`)
	// parenTickerRE matches "(NASDAQ: AAPL)", "(NYSE:BRK.B)", "(AAPL)" and lists "(NASDAQ: GOOG, GOOGL)".
	parenTickerRE = regexp.MustCompile(`\(\s*(?:([A-Za-z][A-Za-z \-]{0,20}?)\s*:\s*)?([A-Z0-9][A-Z0-9.\-/]{0,9}(?:\s*[,;]\s*[A-Z0-9][A-Z0-9.\-/]{0,9})*)\s*\)`)
)

// exchangeSuffix is the Yahoo suffix of exchanges that prefix tickers in press releases.
var exchangeSuffix = map[string]string{
	"TSX": ".TO", "TSXV": ".V", "TSX-V": ".V", "CSE": ".CN", "LSE": ".L", "LON": ".L", "AIM": ".L",
	"ASX": ".AX", "HKEX": ".HK", "HKSE": ".HK", "SEHK": ".HK", "TYO": ".T", "TSE": ".T", "XETRA": ".DE",
	"ETR": ".DE", "FRA": ".F", "EPA": ".PA", "EURONEXT": ".PA", "AMS": ".AS", "SIX": ".SW", "BIT": ".MI",
	"BME": ".MC", "STO": ".ST", "OSE": ".OL", "OSL": ".OL", "CPH": ".CO", "HEL": ".HE", "NSE": ".NS",
	"BSE": ".BO", "SGX": ".SI", "KRX": ".KS", "TADAWUL": ".SR", "JSE": ".JO", "NZX": ".NZ",
}

// usExchanges prefix tickers that carry no suffix.
var usExchanges = map[string]bool{
	"NASDAQ": true, "NASDAQGS": true, "NASDAQGM": true, "NASDAQCM": true, "NYSE": true,
	"NYSE AMERICAN": true, "NYSEAMERICAN": true, "NYSE MKT": true, "NYSEMKT": true, "NYSE ARCA": true,
	"NYSEARCA": true, "AMEX": true, "CBOE": true, "BATS": true, "OTC": true, "OTCQX": true, "OTCQB": true,
	"OTCMKTS": true, "OTC MARKETS": true, "OTC PINK": true, "PINK": true, "IEX": true,
}

// bareTickerStop are upper-case words seen in parentheses that are acronyms, not tickers, even where
// an asset has that symbol: a bare "(AI)" is not C3.ai. "(NASDAQ: AI)" still tags it.
var bareTickerStop = set(
	"AI", "AM", "PM", "CEO", "CFO", "COO", "CTO", "CIO", "EVP", "SVP", "VP", "US", "USA", "UK", "EU", "UN",
	"IPO", "SPAC", "EPS", "GDP", "CPI", "PPI", "ETF", "ETFS", "SEC", "FDA", "FTC", "DOJ", "IRS", "FED", "ECB",
	"ESG", "EV", "EVS", "IT", "ID", "TV", "PC", "API", "APP", "AR", "VR", "IOT", "SAAS", "NFT", "OK", "FAQ",
	"USD", "EUR", "GBP", "JPY", "CNY", "YOY", "QOQ", "TTM", "FY", "Q1", "Q2", "Q3", "Q4", "H1", "H2", "NEW",
	"ALL", "ONE", "TWO", "RE", "PR", "HR", "MA", "AND", "OR", "THE", "FOR", "ON", "BE", "IS", "AT", "TO",
	"GO", "NOW", "CEOS", "LLC", "INC", "LTD", "PLC", "CORP", "CO", "NYSE", "NASDAQ", "OTC", "TSX", "ASX",
	"LSE", "ADR", "ADS", "REIT", "BDC", "LP", "NAV", "AUM", "ROI", "ROE", "EBIT", "EBITDA", "OPEC", "WHO",
	"NATO", "COVID", "UAE", "KSA", "HK", "NY", "CA", "TX", "DC", "LA", "SF", "USDA", "EPA", "FAA", "FCC",
	"NHTSA", "CFPB", "OCC", "FDIC", "FINRA", "CFTC", "IMF", "AG", "SA", "SE", "NV", "BV", "GMBH",
)

// Symbols returns the canonical symbols that title and summary mention, sorted and unique.
func (t *Tagger) Symbols(title, summary string) []string {
	if t == nil {
		return nil
	}
	found := map[string]bool{}
	for _, text := range []string{title, summary} {
		if text == "" {
			continue
		}
		t.cashtags(text, found)
		t.parenTickers(text, found)
		t.companyNames(text, found)
	}
	if len(found) == 0 {
		return nil
	}
	out := make([]string, 0, len(found))
	for s := range found {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func (t *Tagger) cashtags(text string, found map[string]bool) {
	if !strings.Contains(text, "$") {
		return
	}
	for _, m := range cashtagRE.FindAllStringSubmatch(text, -1) {
		if s, ok := t.symbols[m[1]]; ok {
			found[s] = true
		}
	}
}

func (t *Tagger) parenTickers(text string, found map[string]bool) {
	if !strings.Contains(text, "(") {
		return
	}
	for _, m := range parenTickerRE.FindAllStringSubmatch(text, -1) {
		ex := strings.ToUpper(strings.Join(strings.Fields(m[1]), " "))
		if ex != "" && !usExchanges[ex] && exchangeSuffix[ex] == "" {
			continue // "(Reporting by ...: X)", "(Reuters: ...)": not an exchange
		}
		for _, tk := range strings.FieldsFunc(m[2], func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
			tk = strings.TrimRight(tk, ".")
			if tk == "" {
				continue
			}
			if ex == "" && (len(tk) < 2 || bareTickerStop[tk] || isDigits(tk)) {
				continue
			}
			if suf := exchangeSuffix[ex]; suf != "" {
				local := tk
				if suf == ".HK" && len(local) < 4 && isDigits(local) {
					local = strings.Repeat("0", 4-len(local)) + local
				}
				if s, ok := t.symbols[local+suf]; ok {
					found[s] = true
					continue
				}
			}
			if s, ok := t.symbols[tk]; ok {
				found[s] = true
			}
		}
	}
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func (t *Tagger) companyNames(text string, found map[string]bool) {
	toks := nameTokens(text)
	for i := 0; i < len(toks); i++ {
		es := t.names[toks[i]]
		if len(es) == 0 {
			continue
		}
		for _, e := range es { // longest first
			if i+len(e.tokens) > len(toks) {
				continue
			}
			match := true
			for j := 1; j < len(e.tokens); j++ {
				if toks[i+j] != e.tokens[j] {
					match = false
					break
				}
			}
			if match {
				for _, s := range e.symbols {
					found[s] = true
				}
				i += len(e.tokens) - 1
				break
			}
		}
	}
}

// nameTokens splits text into the words names are matched on: runs of letters and digits, with '&'
// as a word of its own and apostrophes kept inside a word; a possessive "'s" is dropped ("Apple's" ->
// "Apple"); a word right after '$' is a cashtag and left out. Hyphens, dots and other punctuation
// separate words, so "Coca-Cola" is "Coca", "Cola" on
// both sides and "Amazon.com" contains "Amazon".
func nameTokens(s string) []string {
	var toks []string
	start := -1
	cashtag := false // the word follows a '$': "$HP" is a ticker, read by cashtags
	prev := rune(0)
	flush := func(end int) {
		if start < 0 {
			return
		}
		if cashtag {
			start, cashtag = -1, false
			return
		}
		w := strings.TrimRight(s[start:end], "'’")
		for _, p := range []string{"'s", "’s", "'S", "’S"} {
			if strings.HasSuffix(w, p) && len(w) > len(p) {
				w = w[:len(w)-len(p)]
				break
			}
		}
		if w != "" {
			toks = append(toks, w)
		}
		start = -1
	}
	for i, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
				cashtag = prev == '$'
			}
		case (r == '\'' || r == '’') && start >= 0:
			// kept inside a word; trimmed at its end
		case r == '&':
			flush(i)
			toks = append(toks, "&")
		default:
			flush(i)
		}
		prev = r
	}
	flush(len(s))
	return toks
}

// nameVariants are the token sequences a short name is matched as: as written and, when a word of 5
// letters or more is in capitals, with those words upper-case-first ("NVIDIA" -> "Nvidia").
func nameVariants(name string) [][]string {
	toks := nameTokens(name)
	if len(toks) == 0 {
		return nil
	}
	out := [][]string{toks}
	var v []string
	changed := false
	for _, w := range toks {
		if utf8.RuneCountInString(w) >= 5 && isUpperWord(w) {
			rs := []rune(strings.ToLower(w))
			rs[0] = unicode.ToUpper(rs[0])
			v = append(v, string(rs))
			changed = true
		} else {
			v = append(v, w)
		}
	}
	if changed {
		out = append(out, v)
	}
	return out
}

func isUpperWord(w string) bool {
	letters := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			letters++
		}
	}
	return letters > 0
}

// usableName reports whether a short name is specific enough to tag: a one-word name needs 4
// characters (or to be listed in shortNameAllow) and must not be a common English word.
func usableName(n string) bool {
	toks := nameTokens(n)
	switch len(toks) {
	case 0:
		return false
	case 1:
		w := toks[0]
		if shortNameAllow[w] {
			return true
		}
		if utf8.RuneCountInString(w) < 4 || isDigits(w) {
			return false
		}
		lw := strings.ToLower(w)
		return !commonWordNames[lw] && !industryWords[lw] && !legalSuffixes[lw]
	}
	letters := 0
	for _, w := range toks {
		letters += utf8.RuneCountInString(w)
	}
	return letters >= 4 && !commonWordNames[strings.ToLower(strings.Join(toks, " "))]
}

// legalSuffixes are words removed from the end of a company name (compared lower-cased, without dots
// and commas): legal forms, "Holdings", "Group", security descriptions.
var legalSuffixes = set(
	"inc", "incorporated", "corporation", "corp", "company", "co", "cos", "companies", "plc", "ltd",
	"limited", "llc", "lp", "llp", "lllp", "holdings", "holding", "hldgs", "group", "groep", "sa", "se",
	"ag", "nv", "bv", "a/s", "as", "asa", "ab", "publ", "(publ)", "oyj", "oy", "spa", "sab", "de", "cv",
	"kgaa", "gmbh", "bhd", "berhad", "tbk", "pcl", "pjsc", "jsc", "reit", "ads", "adr", "adrs", "ord",
	"shs", "units", "unit", "warrants", "warrant", "wts", "rights", "new", "the", "and", "&", "ltda",
	"sarl", "sca", "scs", "nl", "pty", "pte", "kk", "srl", "ulc", "gp", "sponsored", "unsponsored",
)

// legalSuffixPairs are two-word endings removed likewise.
var legalSuffixPairs = set(
	"class a", "class b", "class c", "class d", "class i", "class ii", "series a", "series b", "series c",
	"common stock", "common shares", "ordinary shares", "depositary shares", "depository shares",
	"depositary receipts", "depository receipts", "american depositary", "subordinate voting",
	"voting shares", "and co", "& co", "and company", "de cv",
)

// securityDescriptions end the company part of a listing name ("PennyMac Mortgage Investment Trust
// Common Shares of Beneficial Interest", "Brookfield Business Partners L.P. Limited Partnership Units").
var securityDescriptions = []string{
	" common stock", " common shares", " ordinary shares", " shares of beneficial interest",
	" common units", " depositary shares", " depositary receipts", " american depositary",
	" sponsored adr", " limited partnership units", " units representing", " class a common",
	" class b common", " subordinate voting shares", " voting shares",
}

// industryWords are removed from the end of a short name for its second, shorter form ("Cisco
// Systems" -> "Cisco").
var industryWords = set(
	"technologies", "technology", "systems", "sciences", "pharmaceuticals", "pharmaceutical", "pharma",
	"therapeutics", "biosciences", "biotherapeutics", "biopharma", "platforms", "brands", "communications",
	"networks", "software", "semiconductor", "semiconductors", "entertainment", "enterprises", "industries",
	"international", "worldwide", "labs", "laboratories", "solutions", "motor", "motors", "interactive",
	"energy", "resources", "financial", "services", "bancorp", "bancshares",
)

// shortNameAllow are one-word names under 4 characters that are well known enough to tag.
var shortNameAllow = set(
	"3M", "HP", "BP", "GE", "IBM", "AMD", "UPS", "CVS", "AES", "CSX", "KLA", "PPG", "NRG", "ABB", "SAP",
	"UBS", "ING", "BHP", "BYD", "NIO", "AIG", "EOG", "HCA", "TJX", "CME", "DTE", "WEC", "LKQ", "ASML",
)

// wellKnownAliases are names by which companies are known other than their legal name; each is used
// for the listed symbols that are among the assets.
var wellKnownAliases = map[string][]string{
	"Google": {"GOOGL", "GOOG"}, "Facebook": {"META"}, "Meta Platforms": {"META"}, "Instagram": {"META"},
	"WhatsApp": {"META"}, "YouTube": {"GOOGL", "GOOG"}, "IBM": {"IBM"}, "AMD": {"AMD"}, "GE": {"GE"},
	"UPS": {"UPS"}, "Disney": {"DIS"}, "Berkshire": {"BRK-B", "BRK-A"}, "Berkshire Hathaway": {"BRK-B", "BRK-A"},
	"JPMorgan": {"JPM"}, "JP Morgan": {"JPM"}, "J.P. Morgan": {"JPM"}, "Goldman": {"GS"},
	"Morgan Stanley": {"MS"}, "BofA": {"BAC"}, "Bank of America": {"BAC"}, "Citi": {"C"}, "Citigroup": {"C"},
	"Wells Fargo": {"WFC"}, "Coca-Cola": {"KO"}, "Pepsi": {"PEP"}, "PepsiCo": {"PEP"},
	"P&G": {"PG"}, "Procter & Gamble": {"PG"}, "J&J": {"JNJ"}, "Johnson & Johnson": {"JNJ"},
	"Exxon": {"XOM"}, "ExxonMobil": {"XOM"}, "Chevron": {"CVX"}, "Walmart": {"WMT"}, "Wal-Mart": {"WMT"},
	"McDonald's": {"MCD"}, "Boeing": {"BA"}, "Caterpillar": {"CAT"}, "Netflix": {"NFLX"}, "Nvidia": {"NVDA"},
	"Intel": {"INTC"}, "Cisco": {"CSCO"}, "Oracle": {"ORCL"}, "Salesforce": {"CRM"}, "Adobe": {"ADBE"},
	"Qualcomm": {"QCOM"}, "Broadcom": {"AVGO"}, "Texas Instruments": {"TXN"}, "Micron": {"MU"},
	"PayPal": {"PYPL"}, "Mastercard": {"MA"}, "American Express": {"AXP"},
	"Pfizer": {"PFE"}, "Merck": {"MRK"}, "AbbVie": {"ABBV"}, "Eli Lilly": {"LLY"}, "Lilly": {"LLY"},
	"Moderna": {"MRNA"}, "Gilead": {"GILD"}, "Amgen": {"AMGN"}, "UnitedHealth": {"UNH"},
	"Home Depot": {"HD"}, "Lowe's": {"LOW"}, "Costco": {"COST"}, "Starbucks": {"SBUX"}, "Nike": {"NKE"},
	"General Motors": {"GM"}, "GM": {"GM"}, "Ford": {"F"}, "Tesla": {"TSLA"}, "Uber": {"UBER"},
	"Airbnb": {"ABNB"}, "Alibaba": {"BABA"}, "Baidu": {"BIDU"}, "Tencent": {"0700.HK", "TCEHY"},
	"Toyota": {"TM", "7203.T"}, "Sony": {"SONY", "6758.T"}, "Samsung": {"005930.KS"}, "TSMC": {"TSM", "2330.TW"},
	"Verizon": {"VZ"}, "AT&T": {"T"}, "T-Mobile": {"TMUS"}, "Comcast": {"CMCSA"}, "Amazon": {"AMZN"},
	"Apple": {"AAPL"}, "Microsoft": {"MSFT"}, "Alphabet": {"GOOGL", "GOOG"}, "Saudi Aramco": {"2222.SR"},
	"Aramco": {"2222.SR"}, "Palantir": {"PLTR"}, "Shopify": {"SHOP"}, "Spotify": {"SPOT"},
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

var punctStripper = strings.NewReplacer(".", "", ",", "", ";", "")

// shortNames derives from a company name its short name and, when it is one word followed by
// industry words, that word: "Apple Inc." -> ["Apple"]; "Cisco Systems, Inc." -> ["Cisco Systems",
// "Cisco"]; "Natural Gas Services Group" -> ["Natural Gas Services"]; "The Coca-Cola Company" -> ["Coca-Cola"]; "Alphabet Inc. Class A" -> ["Alphabet"];
// "Amazon.com, Inc." -> ["Amazon"].
func shortNames(name string) []string {
	s := collapseSpace(name)
	for _, sep := range []string{" - ", " – ", " — "} {
		if i := strings.Index(s, sep); i > 0 {
			s = s[:i]
		}
	}
	ls := strings.ToLower(s)
	for _, m := range securityDescriptions {
		if i := strings.Index(ls, m); i > 0 {
			s, ls = s[:i], ls[:i]
		}
	}
	// Parenthesised endings: "Coca-Cola Company (The)", "Ericsson (publ)".
	for strings.HasSuffix(s, ")") {
		i := strings.LastIndex(s, "(")
		if i <= 0 {
			break
		}
		s = strings.TrimSpace(s[:i])
	}
	toks := strings.Fields(s)
	if len(toks) > 1 && strings.EqualFold(toks[0], "the") {
		toks = toks[1:]
	}
	norm := func(w string) string { return strings.ToLower(punctStripper.Replace(w)) }
	for len(toks) > 1 {
		n := len(toks)
		if n > 2 && legalSuffixPairs[norm(toks[n-2])+" "+norm(toks[n-1])] {
			toks = toks[:n-2]
			continue
		}
		last := norm(toks[n-1])
		if legalSuffixes[last] || last == "" {
			toks = toks[:n-1]
			continue
		}
		break
	}
	if len(toks) == 0 {
		return nil
	}
	// "Amazon.com" -> "Amazon"
	last := strings.TrimRight(toks[len(toks)-1], ",.;:")
	if l := strings.ToLower(last); strings.HasSuffix(l, ".com") && len(l) > 4 {
		last = last[:len(last)-4]
	}
	toks[len(toks)-1] = last
	first := strings.TrimRight(strings.Join(toks, " "), ",.;: ")
	out := []string{first}
	n := len(toks)
	for n > 1 && industryWords[norm(toks[n-1])] {
		n--
	}
	if n == 1 && n < len(toks) { // only to one word: "Natural Gas Services" is not "Natural Gas"
		if r := strings.TrimRight(strings.Join(toks[:n], " "), ",.;: "); r != "" && r != first {
			out = append(out, r)
		}
	}
	return out
}
