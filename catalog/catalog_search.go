package catalog

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shariah-screen/shariah"
)

// The search index answers Search and Suggest from sets computed once per catalog. A catalog is
// immutable: a reload builds a new one and swaps the pointer (Cache), so nothing here is ever
// updated or locked, and requests still holding the old catalog keep a consistent index.
//
// Search ranks four classes, each with its own order: the exact symbol; symbols with the query as a
// prefix (shorter first); names with every query word as a word prefix; names containing the query
// (shorter names first in both, by len(Name)/4); ties by symbol. Rather than ranking every hit and
// sorting them, which for one or two letters means tens of thousands of hits per query, each class is
// built already in its order, counted, and the page cut from the classes it overlaps:
//   - records are indexed in two orders: symbol order (the catalog's, where a symbol prefix is a range)
//     and name order (by len(Name)/4, then symbol: the order of both name classes);
//   - the symbol-prefix class is the symbol range walked by symbol length (records of each length kept
//     in symbol order, so a length's part of the range is found by binary search);
//   - the name classes are sets in name order (idset: a list or a bitset, whichever is smaller): the
//     records of each broad name-word prefix are kept, narrow ones gathered from the sorted words, and
//     names containing the query come from a trigram index; query words, filters and trigrams are
//     intersected, the symbol range taken out, and a set's count is the class's total;
//   - filters (asset type, sector, country, exchange) are sets in both orders, one per value.
//
// So q=a costs a few passes over 60,000 bits rather than a sort of its 40,000 hits, its total is the sum
// of the classes' counts, and any page is cut without looking at the hits before it one by one.
// Identical results to ranking every hit hold while the classes' scores cannot overlap (symbols under
// 1,000 and names under 4,000 bytes); a catalog beyond that ranks all hits and sorts them (ordered).
//
// Chosen over the alternatives: precomputing every short query's ranked answer would not serve filters
// or longer queries; bitsets alone would cost 7.5 KB for each of the thousands of rare values, lists
// alone would make intersecting the dense ones slow, hence a set is whichever is smaller. Nothing is
// memoised here, since a query costs microseconds; the edge keeps the encoded answers of repeated
// queries per catalog (edge/database.go), where encoding costs as much as searching. A query's
// intermediate sets come from a pool (scratch), so what a query allocates is its page.

// broadPrefix is how many (name word, record) pairs make a name-word prefix broad: its records are kept
// in the index (426 prefixes of the real catalog, from "a" to "limited"); a narrower prefix's
// records are gathered from the sorted words per query, a sort of fewer than broadPrefix records.
const broadPrefix = 512

// searchIndex is what Search and Suggest read beyond the catalog's records.
type searchIndex struct {
	lowerNames []string             // the lower-case names, in name order
	suggestKey []uint32             // in name order: 1<<31 for a record not an equity, plus its name's length
	words      []wordRef            // every (name word, record), by word then record: a word prefix is a range
	rank       []int32              // record -> its place in name order
	byRank     []int32              // place in name order -> record
	symLen     [][]int32            // records by symbol length (bytes), each in symbol order
	prefixes   map[string]idset     // broad name-word prefixes: records, name order
	symbols    map[string]idset     // broad symbol prefixes: records, name order
	trigrams   map[[3]byte]idset    // records whose lower-case name has the 3 bytes, name order
	types      map[string]filterSet // by the exact type
	sectors    map[string]filterSet // by foldKey of the value
	countries  map[string]filterSet
	exchanges  map[string]filterSet
	ordered    bool // the classes' scores cannot overlap: pages are cut per class
}

// wordRef is a name word: bytes off..end-1 of the lower-case name of the record at place r in name
// order. Twelve bytes and no pointer a word (a string would take 16 more and give the collector 290,000
// pointers to follow); the place in name order is what the sets of records hold.
type wordRef struct {
	r        int32
	off, end uint32
}

func (ix *searchIndex) word(e wordRef) string { return ix.lowerNames[e.r][e.off:e.end] }

// filterSet is the records of one filter value, in symbol order and in name order.
type filterSet struct{ sym, name idset }

func newSearchIndex(assets []shariah.Asset) searchIndex {
	n := len(assets)
	ix := searchIndex{lowerNames: make([]string, n), suggestKey: make([]uint32, n), rank: make([]int32, n),
		byRank: make([]int32, n), prefixes: map[string]idset{}, symbols: map[string]idset{}, ordered: true}
	for i, a := range assets {
		ix.byRank[i] = int32(i)
		if len(a.Symbol) >= 1000 || len(a.Name) >= 4000 {
			ix.ordered = false
		}
		for len(ix.symLen) <= len(a.Symbol) {
			ix.symLen = append(ix.symLen, nil)
		}
		ix.symLen[len(a.Symbol)] = append(ix.symLen[len(a.Symbol)], int32(i))
	}
	slices.SortFunc(ix.byRank, func(x, y int32) int {
		return cmp.Or(cmp.Compare(len(assets[x].Name)/4, len(assets[y].Name)/4), cmp.Compare(x, y))
	})
	for r, i := range ix.byRank {
		a := &assets[i]
		ix.rank[i] = int32(r)
		ln := strings.ToLower(a.Name)
		ix.lowerNames[r] = ln
		wordSpans(ln, func(off, end int) { ix.words = append(ix.words, wordRef{int32(r), uint32(off), uint32(end)}) })
		ix.suggestKey[r] = uint32(min(len(a.Name), 1<<31-1))
		if a.Type != shariah.Equity {
			ix.suggestKey[r] |= 1 << 31
		}
	}
	ix.words = slices.Clone(ix.words)                  // without append's spare capacity
	slices.SortFunc(ix.words, func(x, y wordRef) int { // by word, then symbol
		return cmp.Or(strings.Compare(ix.word(x), ix.word(y)), cmp.Compare(ix.byRank[x.r], ix.byRank[y.r]))
	})
	set := func(places func(yield func(int32))) idset {
		bs := make([]uint64, (n+63)/64)
		places(func(r int32) { bs[r/64] |= 1 << (r % 64) })
		return setFromBits(bs, n)
	}
	broadPrefixes(len(ix.words), func(k int) string { return ix.word(ix.words[k]) }, func(p string, lo, hi int) {
		ix.prefixes[p] = set(func(yield func(int32)) {
			for _, e := range ix.words[lo:hi] {
				yield(e.r)
			}
		})
	})
	broadPrefixes(n, func(i int) string { return assets[i].Symbol }, func(p string, lo, hi int) {
		ix.symbols[p] = set(func(yield func(int32)) {
			for _, r := range ix.rank[lo:hi] {
				yield(r)
			}
		})
	})
	ix.buildTrigrams(n)
	ix.types = ix.filterSets(assets, func(a *shariah.Asset) string { return string(a.Type) })
	ix.sectors = ix.filterSets(assets, func(a *shariah.Asset) string { return foldKey(a.Sector) })
	ix.countries = ix.filterSets(assets, func(a *shariah.Asset) string { return foldKey(a.Country) })
	ix.exchanges = ix.filterSets(assets, func(a *shariah.Asset) string { return foldKey(a.Exchange) })
	return ix
}

// broadPrefixes calls keep with every prefix that at least broadPrefix of n sorted strings (key(k) the
// k-th) start with, and their range lo..hi-1. A prefix's range lies inside its own prefix's range, so
// only broad ranges are split further: the walk costs the sum of the broad ranges.
func broadPrefixes(n int, key func(int) string, keep func(prefix string, lo, hi int)) {
	var walk func(lo, hi, l int) // the strings lo..hi-1 share their first l-1 bytes
	walk = func(lo, hi, l int) {
		i := lo
		for i < hi && len(key(i)) < l {
			i++
		}
		for i < hi {
			b, j := key(i)[l-1], i+1
			for j < hi && key(j)[l-1] == b {
				j++
			}
			if j-i >= broadPrefix {
				keep(key(i)[:l], i, j)
				walk(i, j, l+1)
			}
			i = j
		}
	}
	walk(0, n, 1)
}

// wordSpans calls fn with the bounds of each word of letters and digits of s: the one definition of a
// word, for the index and for queries (lowerWords).
func wordSpans(s string, fn func(off, end int)) {
	start := -1
	for i, r := range s {
		switch in := unicode.IsLetter(r) || unicode.IsDigit(r); {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			fn(start, i)
			start = -1
		}
	}
	if start >= 0 {
		fn(start, len(s))
	}
}

func (ix *searchIndex) buildTrigrams(n int) {
	lists := map[[3]byte][]int32{}
	for r, ln := range ix.lowerNames {
		for j := 0; j+3 <= len(ln); j++ {
			t := [3]byte{ln[j], ln[j+1], ln[j+2]}
			if l := lists[t]; len(l) == 0 || l[len(l)-1] != int32(r) {
				lists[t] = append(l, int32(r))
			}
		}
	}
	ix.trigrams = make(map[[3]byte]idset, len(lists))
	for t, l := range lists {
		ix.trigrams[t] = setFromList(l, n)
	}
}

// filterSets groups the records by a key (records with an empty key in none).
func (ix *searchIndex) filterSets(assets []shariah.Asset, key func(*shariah.Asset) string) map[string]filterSet {
	keys := make([]string, len(assets))
	sym := map[string][]int32{}
	for i := range assets {
		if keys[i] = key(&assets[i]); keys[i] != "" {
			sym[keys[i]] = append(sym[keys[i]], int32(i))
		}
	}
	name := map[string][]int32{}
	for r, i := range ix.byRank {
		if k := keys[i]; k != "" {
			name[k] = append(name[k], int32(r))
		}
	}
	out := make(map[string]filterSet, len(sym))
	for k, l := range sym {
		out[k] = filterSet{setFromList(l, len(assets)), setFromList(name[k], len(assets))}
	}
	return out
}

// foldKey gives every string that strings.EqualFold holds equal the same key: each rune replaced by the
// smallest rune of its case-folding orbit ("k", "K" and the Kelvin sign all become "K"), an invalid
// byte by U+FFFD as EqualFold decodes it. Filters compare with EqualFold; their sets are keyed so.
func foldKey(s string) string {
	ascii := true
	for i := 0; i < len(s) && ascii; i++ {
		ascii = s[i] < utf8.RuneSelf
	}
	if ascii { // the smallest of an ASCII letter's orbit is its upper case
		return strings.ToUpper(s)
	}
	var b strings.Builder
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// queryFilter is a query's filters resolved: every record (all), or the records matching them all, in
// symbol order and in name order.
type queryFilter struct {
	all       bool
	sym, name idset
}

func (f queryFilter) has(i int32) bool { return f.all || f.sym.has(i) }

// filter resolves the query's filters; false when a filter names a value no record has.
func (ix *searchIndex) filter(q SearchQuery, sc *scratch) (queryFilter, bool) {
	var sets []filterSet
	for _, d := range [...]struct {
		m map[string]filterSet
		v string
	}{{ix.sectors, q.Sector}, {ix.countries, q.Country}, {ix.exchanges, q.Exchange}} {
		if d.v != "" {
			s, ok := d.m[foldKey(d.v)]
			if !ok {
				return queryFilter{}, false
			}
			sets = append(sets, s)
		}
	}
	if q.Type != "" {
		s, ok := ix.types[string(q.Type)]
		if !ok {
			return queryFilter{}, false
		}
		sets = append(sets, s)
	}
	switch len(sets) {
	case 0:
		return queryFilter{all: true}, true
	case 1:
		return queryFilter{sym: sets[0].sym, name: sets[0].name}, true
	}
	var syms, names []idset
	for _, s := range sets {
		syms, names = append(syms, s.sym), append(names, s.name)
	}
	return queryFilter{sym: intersect(sc, syms...), name: intersect(sc, names...)}, true
}

// wordRange is the range of the sorted words starting with w.
func (ix *searchIndex) wordRange(w string) (lo, hi int) {
	lo = sort.Search(len(ix.words), func(i int) bool { return ix.word(ix.words[i]) >= w })
	hi = lo + sort.Search(len(ix.words)-lo, func(k int) bool { return !strings.HasPrefix(ix.word(ix.words[lo+k]), w) })
	return lo, hi
}

// wordPrefix is the records having a name word that starts with w, in name order.
func (ix *searchIndex) wordPrefix(w string, sc *scratch) idset {
	if s, ok := ix.prefixes[w]; ok {
		return s
	}
	lo, hi := ix.wordRange(w)
	rs := sc.ids(hi - lo)
	for _, e := range ix.words[lo:hi] {
		rs = append(rs, e.r)
	}
	slices.Sort(rs)
	rs = slices.Compact(rs)
	return idset{ids: rs, n: len(rs)}
}

// dropSymbols takes the records whose symbol starts with p, lo..hi-1 in symbol order, out of a set
// in name order of the caller's own.
func (ix *searchIndex) dropSymbols(s *idset, p string, lo, hi int32) {
	switch broad, ok := ix.symbols[p]; {
	case s.n == 0 || lo >= hi:
	case ok:
		s.andNot(broad)
	case s.bits != nil && int(hi-lo) <= s.n:
		s.remove(ix.rank[lo:hi])
	default:
		s.keep(func(r int32) bool { i := ix.byRank[r]; return i < lo || i >= hi })
	}
}

// symbolRange is the records whose symbol starts with p.
func (c *Catalog) symbolRange(p string) (lo, hi int32) {
	n := len(c.assets)
	l := sort.Search(n, func(i int) bool { return c.assets[i].Symbol >= p })
	h := l + sort.Search(n-l, func(k int) bool { return !strings.HasPrefix(c.assets[l+k].Symbol, p) })
	return int32(l), int32(h)
}

// matches are a query's hits by class: the records whose symbol starts with the query (lo..hi-1, the
// exact symbol first when there is one), nSym of them symbol-prefix hits; the name and contained-name
// hits as sets in name order.
type matches struct {
	f             queryFilter
	upper         string
	lo, hi        int32
	exact         bool // the record at lo is the query's symbol and passes the filters
	nSym          int
	name, contain idset
}

func (c *Catalog) match(qs string, f queryFilter, sc *scratch) matches {
	ix := &c.search
	m := matches{f: f, upper: strings.ToUpper(qs)}
	m.lo, m.hi = c.symbolRange(m.upper)
	m.exact = m.lo < m.hi && c.assets[m.lo].Symbol == m.upper && f.has(m.lo)
	if f.all {
		m.nSym = int(m.hi - m.lo)
	} else {
		m.nSym = f.sym.countRange(m.lo, m.hi)
	}
	if m.exact {
		m.nSym--
	}
	var sets []idset
	if words := nameWords(qs); len(words) > 0 {
		for _, w := range words {
			sets = append(sets, ix.wordPrefix(w, sc))
		}
		if !f.all {
			sets = append(sets, f.name)
		}
		m.name = intersect(sc, sets...)
		ix.dropSymbols(&m.name, m.upper, m.lo, m.hi)
	}
	lowerQ := strings.ToLower(qs)
	if len(lowerQ) < 3 {
		return m
	}
	sets = sets[:0]
	for j := 0; j+3 <= len(lowerQ); j++ {
		t, ok := ix.trigrams[[3]byte{lowerQ[j], lowerQ[j+1], lowerQ[j+2]}]
		if !ok {
			return m
		}
		sets = append(sets, t)
	}
	if !f.all {
		sets = append(sets, f.name)
	}
	m.contain = intersect(sc, sets...)
	m.contain.andNot(m.name)
	ix.dropSymbols(&m.contain, m.upper, m.lo, m.hi)
	if len(lowerQ) > 3 { // having every trigram of a longer query does not make a name contain it
		m.contain.keep(func(r int32) bool { return strings.Contains(ix.lowerNames[r], lowerQ) })
	}
	return m
}

// pager cuts a page out of hits given in rank order: skip more are passed over, room more taken.
type pager struct {
	c          *Catalog
	skip, room int
	out        []SearchHit
}

// newPager is the page of q out of total hits; false when the page is empty.
func (c *Catalog) newPager(total int, q SearchQuery) (pager, bool) {
	off := max(0, q.Offset)
	if off >= total {
		return pager{}, false
	}
	room := total - off
	if q.Limit > 0 {
		room = min(room, q.Limit)
	}
	return pager{c: c, skip: off, room: room, out: make([]SearchHit, 0, room)}, true
}

// add passes over or takes the next hit; false when the page is full.
func (p *pager) add(i int32, score int, by string) bool {
	if p.skip > 0 {
		p.skip--
		return true
	}
	p.out = append(p.out, SearchHit{Asset: p.c.assets[i], MatchedBy: by, score: score})
	p.room--
	return p.room > 0
}

// passes reports whether a class of n hits lies wholly before the page (then passed over) or after it.
func (p *pager) passes(n int) bool {
	if p.room == 0 || n == 0 {
		return true
	}
	if p.skip >= n {
		p.skip -= n
		return true
	}
	return false
}

// each adds a class given as a set, its members mapped to records and scores.
func (p *pager) each(s idset, hit func(int32) (int32, int), by string) {
	if p.passes(s.n) {
		return
	}
	skip := p.skip
	p.skip = 0
	s.each(skip, func(x int32) bool { i, score := hit(x); return p.add(i, score, by) })
}

// classPage cuts the page out of the classes in rank order.
func (c *Catalog) classPage(m matches, q SearchQuery) ([]SearchHit, int) {
	total := m.nSym + m.name.n + m.contain.n
	if m.exact {
		total++
	}
	p, ok := c.newPager(total, q)
	if !ok {
		return []SearchHit{}, total
	}
	if m.exact {
		p.add(m.lo, 4000, "symbol")
	}
	if !p.passes(m.nSym) {
		c.symbolPrefixes(&p, m)
	}
	ix := &c.search
	p.each(m.name, func(r int32) (int32, int) { i := ix.byRank[r]; return i, 2000 - len(c.assets[i].Name)/4 }, "name")
	p.each(m.contain, func(r int32) (int32, int) { i := ix.byRank[r]; return i, 1000 - len(c.assets[i].Name)/4 }, "name_contains")
	return p.out, total
}

// symbolPrefixes adds the symbol-prefix class: the symbol range by symbol length, each length's part
// of it in symbol order (the exact symbol, the only one of the query's length, is not in it).
func (c *Catalog) symbolPrefixes(p *pager, m matches) {
	for l := len(m.upper) + 1; l < len(c.search.symLen); l++ {
		recs := c.search.symLen[l]
		a, _ := slices.BinarySearch(recs, m.lo)
		b, _ := slices.BinarySearch(recs, m.hi)
		if m.f.all && p.skip >= b-a {
			p.skip -= b - a
			continue
		}
		for _, i := range recs[a:b] {
			if m.f.has(i) && !p.add(i, 3000-l, "symbol_prefix") {
				return
			}
		}
	}
}

// sortedPage ranks every hit and sorts them: for a catalog whose classes' scores can overlap.
func (c *Catalog) sortedPage(m matches, q SearchQuery) ([]SearchHit, int) {
	var hits []rankedHit
	if m.exact {
		hits = append(hits, rankedHit{m.lo, 4000, "symbol"})
	}
	for i := m.lo; i < m.hi; i++ {
		if c.assets[i].Symbol != m.upper && m.f.has(i) {
			hits = append(hits, rankedHit{i, 3000 - len(c.assets[i].Symbol), "symbol_prefix"})
		}
	}
	for _, class := range []struct {
		s     idset
		score int
		by    string
	}{{m.name, 2000, "name"}, {m.contain, 1000, "name_contains"}} {
		class.s.each(0, func(r int32) bool {
			i := c.search.byRank[r]
			hits = append(hits, rankedHit{i, class.score - len(c.assets[i].Name)/4, class.by})
			return true
		})
	}
	slices.SortFunc(hits, func(x, y rankedHit) int { return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.idx, y.idx)) })
	return c.page(hits, q)
}

// filtered is the page of a query of filters alone: the matching records in symbol order.
func (c *Catalog) filtered(f queryFilter, q SearchQuery) ([]SearchHit, int) {
	total := len(c.assets)
	if !f.all {
		total = f.sym.n
	}
	p, ok := c.newPager(total, q)
	if !ok {
		return []SearchHit{}, total
	}
	if f.all {
		i := int32(p.skip)
		for p.skip = 0; p.add(i, 0, "filter"); i++ {
		}
		return p.out, total
	}
	p.each(f.sym, func(i int32) (int32, int) { return i, 0 }, "filter")
	return p.out, total
}
