package shariah

import (
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Catalog is an in-memory index of the reference database for search, suggestions, canonical symbol
// resolution and statistics. It is immutable once built; the edge rebuilds it when the stored data
// changes. Tens of thousands of records take a few megabytes and searches take microseconds.
type Catalog struct {
	assets   []Asset        // sorted by symbol
	bySymbol map[string]int // symbol -> index
	byISIN   map[string]int
	words    []wordRef          // name words, sorted
	bySector map[string][]int32 // lower-case sector -> equities, by symbol
	search   searchIndex
	stats    CatalogStats
}

type wordRef struct {
	word string
	idx  int32
}

// CatalogStats are the aggregate counts of GET /api/database/stats.
type CatalogStats struct {
	Equities         int `json:"equities"`
	ETFs             int `json:"etfs"`
	Funds            int `json:"funds"`
	Indices          int `json:"indices"`
	Total            int `json:"total"`
	EquitySectors    int `json:"sectors"`
	EquityCountries  int `json:"countries"`
	ScreeningResults int `json:"screening_results"`
	// ScreeningResultsBySource counts the cached results by what their fundamentals stand on.
	ScreeningResultsBySource SourceCounts `json:"screening_results_by_source"`
	// Fundamentals counts the companies (symbols with fundamentals) by what those stand on: filed
	// (from filings), illustrative (made up, labelled), and the equities with none.
	Fundamentals SourceCounts `json:"fundamentals_by_source"`
}

// NewCatalog indexes the assets (later duplicates of a symbol are ignored).
func NewCatalog(assets []Asset) *Catalog {
	c := &Catalog{bySymbol: make(map[string]int, len(assets)), byISIN: map[string]int{}}
	for _, a := range assets {
		if _, dup := c.bySymbol[a.Symbol]; dup || a.Symbol == "" {
			continue
		}
		c.bySymbol[a.Symbol] = -1
		c.assets = append(c.assets, a)
	}
	sort.Slice(c.assets, func(i, j int) bool { return c.assets[i].Symbol < c.assets[j].Symbol })
	countries := map[string]bool{}
	c.bySector = map[string][]int32{}
	for i, a := range c.assets {
		c.bySymbol[a.Symbol] = i
		if a.ISIN != "" {
			if _, dup := c.byISIN[a.ISIN]; !dup {
				c.byISIN[a.ISIN] = i
			}
		}
		switch a.Type {
		case Equity:
			c.stats.Equities++
			if a.Sector != "" {
				k := strings.ToLower(a.Sector)
				c.bySector[k] = append(c.bySector[k], int32(i))
			}
			if a.Country != "" {
				countries[strings.ToLower(a.Country)] = true
			}
		case ETF:
			c.stats.ETFs++
		case Fund:
			c.stats.Funds++
		case Index:
			c.stats.Indices++
		}
	}
	c.search = newSearchIndex(c.assets)
	for i, ws := range c.search.nameWords {
		for _, w := range ws {
			c.words = append(c.words, wordRef{w, int32(i)})
		}
	}
	sort.Slice(c.words, func(i, j int) bool {
		if c.words[i].word != c.words[j].word {
			return c.words[i].word < c.words[j].word
		}
		return c.words[i].idx < c.words[j].idx
	})
	c.stats.Total = len(c.assets)
	c.stats.EquitySectors, c.stats.EquityCountries = len(c.bySector), len(countries)
	return c
}

// nameWords splits a name into lower-case words of letters and digits.
func nameWords(name string) []string { return lowerWords(strings.ToLower(name)) }

// lowerWords splits a lower-case text into its words of letters and digits (substrings of it).
func lowerWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// SectorPeers lists the other equities of a's sector (case-insensitive), by symbol.
func (c *Catalog) SectorPeers(a Asset) []Asset {
	idx := c.bySector[strings.ToLower(a.Sector)]
	out := make([]Asset, 0, len(idx))
	for _, i := range idx {
		if p := c.assets[i]; p.Symbol != a.Symbol {
			out = append(out, p)
		}
	}
	return out
}

// Len is the number of records.
func (c *Catalog) Len() int { return len(c.assets) }

// Stats returns the aggregate counts (ScreeningResults is filled by the caller).
func (c *Catalog) Stats() CatalogStats { return c.stats }

// Lookup returns the record of a canonical symbol.
func (c *Catalog) Lookup(symbol string) (Asset, bool) {
	i, ok := c.bySymbol[symbol]
	if !ok {
		return Asset{}, false
	}
	return c.assets[i], true
}

// SearchQuery is a database search. Empty filters match everything; filters compare case-insensitively.
type SearchQuery struct {
	Q        string
	Type     AssetType // empty: any
	Sector   string
	Country  string
	Exchange string
	Limit    int
	Offset   int
}

// SearchHit is a record with its rank.
type SearchHit struct {
	Asset
	MatchedBy string `json:"matched_by"` // symbol, symbol_prefix, name, name_prefix, filter
	score     int
}

// Search returns a page of the matches and their total. Ranking: exact symbol, then symbol prefix
// (shorter symbols first), then names matching every query word (word prefixes), then names containing
// the query; ties by symbol. Only the index's candidates are examined (catalog_search.go): no search
// scans or re-tokenises the catalog's names, except a query of filters alone.
func (c *Catalog) Search(q SearchQuery) ([]SearchHit, int) {
	qs := strings.TrimSpace(q.Q)
	upper := strings.ToUpper(qs)
	words := nameWords(qs)
	lowerQ := strings.ToLower(qs)
	var hits []rankedHit
	if qs == "" {
		for i, a := range c.assets {
			if q.matchesFilters(a) {
				hits = append(hits, rankedHit{idx: int32(i), by: "filter"})
			}
		}
		return c.page(hits, q)
	}
	for _, i := range c.candidates(upper, words, lowerQ) {
		a := &c.assets[i]
		if !q.matchesFilters(*a) {
			continue
		}
		switch {
		case a.Symbol == upper:
			hits = append(hits, rankedHit{i, 4000, "symbol"})
		case strings.HasPrefix(a.Symbol, upper):
			hits = append(hits, rankedHit{i, 3000 - len(a.Symbol), "symbol_prefix"})
		case len(words) > 0 && allWordPrefixes(c.search.nameWords[i], words):
			hits = append(hits, rankedHit{i, 2000 - len(a.Name)/4, "name"})
		case len(lowerQ) >= 3 && strings.Contains(c.search.lowerNames[i], lowerQ):
			hits = append(hits, rankedHit{i, 1000 - len(a.Name)/4, "name_contains"})
		}
	}
	slices.SortStableFunc(hits, func(x, y rankedHit) int { return y.score - x.score })
	return c.page(hits, q)
}

// rankedHit is a match before its page is cut: the record's place, its rank and how it matched.
type rankedHit struct {
	idx   int32
	score int
	by    string
}

// page cuts the requested page out of the ranked hits and counts them; only the page's records are
// copied out.
func (c *Catalog) page(hits []rankedHit, q SearchQuery) ([]SearchHit, int) {
	total := len(hits)
	if q.Offset >= total {
		return []SearchHit{}, total
	}
	end := total
	if q.Limit > 0 && q.Offset+q.Limit < total {
		end = q.Offset + q.Limit
	}
	out := make([]SearchHit, 0, end-q.Offset)
	for _, h := range hits[q.Offset:end] {
		out = append(out, SearchHit{Asset: c.assets[h.idx], MatchedBy: h.by, score: h.score})
	}
	return out, total
}

// allWordPrefixes reports whether every query word is a prefix of some name word.
func allWordPrefixes(name, query []string) bool {
	for _, q := range query {
		found := false
		for _, w := range name {
			if strings.HasPrefix(w, q) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Suggestion is a ranked prefix match for autocompletion.
type Suggestion struct {
	Symbol    string    `json:"symbol"`
	Name      string    `json:"name"`
	Type      AssetType `json:"asset_type"`
	Exchange  string    `json:"exchange"`
	Country   string    `json:"country"`
	MatchedBy string    `json:"matched_by"` // symbol, symbol_prefix, name_prefix
}

// Suggest returns up to limit ranked prefix matches on symbol and name words, by binary search on the
// sorted symbols and name words (no scan of the catalog). Equities rank before other types on ties.
func (c *Catalog) Suggest(prefix string, limit int) []Suggestion {
	p := strings.TrimSpace(prefix)
	out := []Suggestion{}
	if p == "" || limit <= 0 {
		return out
	}
	up := strings.ToUpper(p)
	seen := map[int]bool{}
	add := func(i int, by string) bool {
		if seen[i] {
			return len(out) < limit
		}
		seen[i] = true
		a := c.assets[i]
		out = append(out, Suggestion{Symbol: a.Symbol, Name: a.Name, Type: a.Type, Exchange: a.Exchange, Country: a.Country, MatchedBy: by})
		return len(out) < limit
	}
	if i, ok := c.bySymbol[up]; ok && !add(i, "symbol") {
		return out
	}
	// symbol prefixes, shortest symbols first (then equities first)
	lo := sort.Search(len(c.assets), func(i int) bool { return c.assets[i].Symbol >= up })
	var pref []int
	for i := lo; i < len(c.assets) && strings.HasPrefix(c.assets[i].Symbol, up); i++ {
		pref = append(pref, i)
		if len(pref) > 5000 {
			break
		}
	}
	sort.SliceStable(pref, func(a, b int) bool {
		x, y := c.assets[pref[a]], c.assets[pref[b]]
		if len(x.Symbol) != len(y.Symbol) {
			return len(x.Symbol) < len(y.Symbol)
		}
		return x.Type == Equity && y.Type != Equity
	})
	for _, i := range pref {
		if !add(i, "symbol_prefix") {
			return out
		}
	}
	words := nameWords(p)
	if len(words) == 0 {
		return out
	}
	// name words: the first query word by binary search, the rest checked on the candidate
	first := words[0]
	lo = sort.Search(len(c.words), func(i int) bool { return c.words[i].word >= first })
	var cand []int
	for i := lo; i < len(c.words) && strings.HasPrefix(c.words[i].word, first); i++ {
		idx := int(c.words[i].idx)
		if len(words) == 1 || allWordPrefixes(c.search.nameWords[idx], words[1:]) {
			cand = append(cand, idx)
		}
		if len(cand) > 5000 {
			break
		}
	}
	sort.SliceStable(cand, func(a, b int) bool {
		x, y := c.assets[cand[a]], c.assets[cand[b]]
		if (x.Type == Equity) != (y.Type == Equity) {
			return x.Type == Equity
		}
		return len(x.Name) < len(y.Name)
	})
	for _, i := range cand {
		if !add(i, "name_prefix") {
			return out
		}
	}
	return out
}

// Resolution is the answer of canonical symbol resolution.
type Resolution struct {
	Input     string `json:"input"`
	Symbol    string `json:"symbol"` // empty when unresolved
	Name      string `json:"name,omitempty"`
	Exchange  string `json:"exchange,omitempty"`
	Country   string `json:"country,omitempty"`
	MatchedBy string `json:"matched_by,omitempty"` // symbol, isin, class_share, suffix, hk_padding
}

// usSuffixes are exchange suffixes that mean "the US listing" in common notations.
var usSuffixes = []string{".US", ".O", ".N", ".OQ", ".K", ".P"}

// Canonical resolves the forms clients use ("aapl", "AAPL.US", "NASDAQ:AAPL", "BRK.B", "BRK-B",
// "BRK/B", "700.HK", an ISIN) to the catalog's canonical symbol (Yahoo style).
func (c *Catalog) Canonical(input string) Resolution {
	r := Resolution{Input: input}
	s := strings.ToUpper(strings.TrimSpace(input))
	found := func(i int, by string) Resolution {
		a := c.assets[i]
		r.Symbol, r.Name, r.Exchange, r.Country, r.MatchedBy = a.Symbol, a.Name, a.Exchange, a.Country, by
		return r
	}
	if s == "" {
		return r
	}
	if ValidISIN(s) {
		if i, ok := c.byISIN[s]; ok {
			return found(i, "isin")
		}
		return r
	}
	if i := strings.IndexByte(s, ':'); i > 0 { // EXCHANGE:SYMBOL
		s = s[i+1:]
	}
	if i, ok := c.bySymbol[s]; ok {
		return found(i, "symbol")
	}
	for _, suf := range usSuffixes {
		if base, ok := strings.CutSuffix(s, suf); ok {
			if i, ok := c.bySymbol[base]; ok {
				return found(i, "suffix")
			}
		}
	}
	// US share classes: BRK.B, BRK/B, BRK B -> BRK-B
	for _, sep := range []string{".", "/", " "} {
		if strings.Count(s, sep) == 1 {
			if i, ok := c.bySymbol[strings.Replace(s, sep, "-", 1)]; ok {
				return found(i, "class_share")
			}
		}
	}
	// Hong Kong codes are four digits: 700.HK -> 0700.HK
	if base, ok := strings.CutSuffix(s, ".HK"); ok && len(base) < 4 && isDigits(base) {
		if i, ok := c.bySymbol[strings.Repeat("0", 4-len(base))+base+".HK"]; ok {
			return found(i, "hk_padding")
		}
	}
	return r
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
