// Package catalog holds the catalog of every listed asset (catalog.go) with its search (catalog_search.go,
// catalog_idset.go), the cache that rebuilds it when the reference data's version changes
// (catalog_cache.go: Find and LookupRaw resolve a symbol as clients write it), and the index listing
// (indices.go). It imports the kernel only, and reads the reference store through the two small
// interfaces it declares (AssetSource, IndexSource).
package catalog

import (
	"slices"
	"sort"
	"strings"

	"github.com/shariah-screen/shariah"
)

// Catalog is an in-memory index of the reference database for search, suggestions, canonical symbol
// resolution and statistics. It is immutable once built; the edge rebuilds it when the stored data
// changes. Tens of thousands of records take a few megabytes and searches take microseconds.
type Catalog struct {
	assets   []shariah.Asset // sorted by symbol
	bySymbol map[string]int  // symbol -> index
	byISIN   map[string]int
	bySector map[string][]int32 // lower-case sector -> equities, by symbol
	search   searchIndex        // catalog_search.go
	stats    Stats
}

// Stats are the aggregate counts of GET /api/database/stats.
type Stats struct {
	Equities         int `json:"equities"`
	ETFs             int `json:"etfs"`
	Funds            int `json:"funds"`
	Indices          int `json:"indices"`
	Total            int `json:"total"`
	EquitySectors    int `json:"sectors"`
	EquityCountries  int `json:"countries"`
	ScreeningResults int `json:"screening_results"`
	// ScreeningResultsBySource counts the cached results by what their fundamentals stand on.
	ScreeningResultsBySource shariah.SourceCounts `json:"screening_results_by_source"`
	// Fundamentals counts the companies (symbols with fundamentals) by what those stand on: filed
	// (from filings), illustrative (made up, labelled), and the equities with none.
	Fundamentals shariah.SourceCounts `json:"fundamentals_by_source"`
}

// New indexes the assets (later duplicates of a symbol are ignored).
func New(assets []shariah.Asset) *Catalog {
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
		case shariah.Equity:
			c.stats.Equities++
			if a.Sector != "" {
				k := strings.ToLower(a.Sector)
				c.bySector[k] = append(c.bySector[k], int32(i))
			}
			if a.Country != "" {
				countries[strings.ToLower(a.Country)] = true
			}
		case shariah.ETF:
			c.stats.ETFs++
		case shariah.Fund:
			c.stats.Funds++
		case shariah.Index:
			c.stats.Indices++
		}
	}
	c.search = newSearchIndex(c.assets)
	c.stats.Total = len(c.assets)
	c.stats.EquitySectors, c.stats.EquityCountries = len(c.bySector), len(countries)
	return c
}

// nameWords splits a name into lower-case words of letters and digits.
func nameWords(name string) []string { return lowerWords(strings.ToLower(name)) }

// lowerWords splits a lower-case text into its words of letters and digits (substrings of it).
func lowerWords(s string) []string {
	var out []string
	wordSpans(s, func(off, end int) { out = append(out, s[off:end]) })
	return out
}

// SectorPeers lists the other equities of a's sector (case-insensitive), by symbol.
func (c *Catalog) SectorPeers(a shariah.Asset) []shariah.Asset {
	idx := c.bySector[strings.ToLower(a.Sector)]
	out := make([]shariah.Asset, 0, len(idx))
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
func (c *Catalog) Stats() Stats { return c.stats }

// Lookup returns the record of a canonical symbol.
func (c *Catalog) Lookup(symbol string) (shariah.Asset, bool) {
	i, ok := c.bySymbol[symbol]
	if !ok {
		return shariah.Asset{}, false
	}
	return c.assets[i], true
}

// SearchQuery is a database search. Empty filters match everything; filters compare case-insensitively.
type SearchQuery struct {
	Q        string
	Type     shariah.AssetType // empty: any
	Sector   string
	Country  string
	Exchange string
	Limit    int
	Offset   int
}

// SearchHit is a record with its rank.
type SearchHit struct {
	shariah.Asset
	MatchedBy string `json:"matched_by"` // symbol, symbol_prefix, name, name_prefix, filter
	score     int
}

// Search returns a page of the matches and their total. Ranking: exact symbol, then symbol prefix
// (shorter symbols first), then names matching every query word (word prefixes), then names containing
// the query; ties by symbol. A query of filters alone lists the matching records by symbol. The index
// (catalog_search.go) holds each class in its order, so a page is cut without ranking every hit.
func (c *Catalog) Search(q SearchQuery) ([]SearchHit, int) {
	sc := getScratch(len(c.assets))
	defer sc.release()
	f, ok := c.search.filter(q, sc)
	if !ok {
		return []SearchHit{}, 0
	}
	qs := strings.TrimSpace(q.Q)
	if qs == "" {
		return c.filtered(f, q)
	}
	m := c.match(qs, f, sc)
	if !c.search.ordered {
		return c.sortedPage(m, q)
	}
	return c.classPage(m, q)
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
	p, ok := c.newPager(len(hits), q)
	if !ok {
		return []SearchHit{}, len(hits)
	}
	for _, h := range hits[p.skip:] {
		p.skip = 0
		if !p.add(h.idx, h.score, h.by) {
			break
		}
	}
	return p.out, len(hits)
}

// Suggestion is a ranked prefix match for autocompletion.
type Suggestion struct {
	Symbol    string            `json:"symbol"`
	Name      string            `json:"name"`
	Type      shariah.AssetType `json:"asset_type"`
	Exchange  string            `json:"exchange"`
	Country   string            `json:"country"`
	MatchedBy string            `json:"matched_by"` // symbol, symbol_prefix, name_prefix
}

// suggestBound is how many symbol prefixes, and how many (name word, record) pairs, Suggest ranks at
// most: the first in symbol order and in word order. It decides which records a broad prefix can
// suggest, so it stays what it was when Suggest sorted its candidates.
const suggestBound = 5001

// Suggest returns up to limit ranked prefix matches, from the search index: the exact symbol; symbols
// starting with the prefix, shortest first, equities first on ties; then records with name words
// starting with the prefix's words, equities first, then shorter names, then by word. Each record once.
func (c *Catalog) Suggest(prefix string, limit int) []Suggestion {
	p := strings.TrimSpace(prefix)
	if p == "" || limit <= 0 {
		return []Suggestion{}
	}
	out := make([]Suggestion, 0, min(limit, 50))
	ix := &c.search
	add := func(i int32, by string) bool {
		a := &c.assets[i]
		out = append(out, Suggestion{Symbol: a.Symbol, Name: a.Name, Type: a.Type, Exchange: a.Exchange, Country: a.Country, MatchedBy: by})
		return len(out) < limit
	}
	up := strings.ToUpper(p)
	lo, hi := c.symbolRange(up)
	if lo < hi && c.assets[lo].Symbol == up && !add(lo, "symbol") {
		return out
	}
	hi = min(hi, lo+suggestBound)
	for l := len(up) + 1; l < len(ix.symLen); l++ { // the exact symbol is the only one of up's length
		recs := ix.symLen[l]
		a, _ := slices.BinarySearch(recs, lo)
		b, _ := slices.BinarySearch(recs, hi)
		for _, equities := range [...]bool{true, false} {
			for _, i := range recs[a:b] {
				if (c.assets[i].Type == shariah.Equity) == equities && !add(i, "symbol_prefix") {
					return out
				}
			}
		}
	}
	// Every record of lo..hi-1 is suggested by now. Name words: pairs of the first word's range whose
	// record has the other words (sets in name order), keyed (not an equity, name length, place in the
	// word order), the smallest popped from a heap: a page needs a few keys of up to 5,001.
	words := nameWords(p)
	if len(words) == 0 {
		return out
	}
	sc := getScratch(len(c.assets))
	defer sc.release()
	var others []idset
	for _, w := range words[1:] {
		s := ix.wordPrefix(w, sc)
		if s.n == 0 {
			return out
		}
		others = append(others, s)
	}
	wlo, whi := ix.wordRange(words[0])
	keys := sc.keys[:0]
next:
	for j := wlo; j < whi && len(keys) < suggestBound; j++ {
		r := ix.words[j].r
		for _, s := range others {
			if !s.has(r) {
				continue next
			}
		}
		keys = append(keys, uint64(ix.suggestKey[r])<<32|uint64(j))
	}
	sc.keys = keys
	for k := len(keys)/2 - 1; k >= 0; k-- {
		siftDown(keys, k)
	}
	taken := map[int32]bool{}
	for len(keys) > 0 {
		i := ix.byRank[ix.words[uint32(keys[0])].r]
		keys[0] = keys[len(keys)-1]
		keys = keys[:len(keys)-1]
		siftDown(keys, 0)
		if (i >= lo && i < hi) || taken[i] {
			continue
		}
		taken[i] = true
		if !add(i, "name_prefix") {
			break
		}
	}
	return out
}

// siftDown restores the min-heap order of h below k.
func siftDown(h []uint64, k int) {
	for {
		c := 2*k + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if h[k] <= h[c] {
			return
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
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
	if shariah.ValidISIN(s) {
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
