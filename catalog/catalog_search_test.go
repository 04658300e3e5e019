package catalog_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/datapack"
)

// scanned memoises each name's lower-case form and words for the scans below (they stay scans of every
// record; only the tokenising is not repeated per query).
var scanned sync.Map // name -> scannedName

type scannedName struct {
	lower string
	words []string
}

func scanName(name string) scannedName {
	if v, ok := scanned.Load(name); ok {
		return v.(scannedName)
	}
	lower := strings.ToLower(name)
	v := scannedName{lower, strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })}
	scanned.Store(name, v)
	return v
}

// bruteSearch is the search as a scan of every record, written from the ranking rules alone: the oracle
// the indexed Catalog.Search must agree with, hit for hit and in order.
func bruteSearch(assets []shariah.Asset, q catalog.SearchQuery) ([]string, []string, int) {
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	qs := strings.TrimSpace(q.Q)
	upper, lowerQ, qw := strings.ToUpper(qs), strings.ToLower(qs), words(qs)
	type hit struct {
		sym, by string
		score   int
	}
	var hits []hit
	for _, a := range assets {
		if (q.Type != "" && a.Type != q.Type) || (q.Sector != "" && !strings.EqualFold(a.Sector, q.Sector)) ||
			(q.Country != "" && !strings.EqualFold(a.Country, q.Country)) || (q.Exchange != "" && !strings.EqualFold(a.Exchange, q.Exchange)) {
			continue
		}
		every := len(qw) > 0
		for _, w := range qw {
			found := false
			for _, n := range scanName(a.Name).words {
				found = found || strings.HasPrefix(n, w)
			}
			every = every && found
		}
		switch {
		case qs == "":
			hits = append(hits, hit{a.Symbol, "filter", 0})
		case a.Symbol == upper:
			hits = append(hits, hit{a.Symbol, "symbol", 4000})
		case strings.HasPrefix(a.Symbol, upper):
			hits = append(hits, hit{a.Symbol, "symbol_prefix", 3000 - len(a.Symbol)})
		case every:
			hits = append(hits, hit{a.Symbol, "name", 2000 - len(a.Name)/4})
		case len(lowerQ) >= 3 && strings.Contains(scanName(a.Name).lower, lowerQ):
			hits = append(hits, hit{a.Symbol, "name_contains", 1000 - len(a.Name)/4})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	total := len(hits)
	hits = hits[min(max(0, q.Offset), total):] // a negative offset is the first page
	if q.Limit > 0 && len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	var syms, by []string
	for _, h := range hits {
		syms, by = append(syms, h.sym), append(by, h.by)
	}
	return syms, by, total
}

// sortedAssets is the catalog's record order (by symbol, first of a symbol kept).
func sortedAssets(in []shariah.Asset) []shariah.Asset {
	seen := map[string]bool{}
	var out []shariah.Asset
	for _, a := range in {
		if a.Symbol != "" && !seen[a.Symbol] {
			seen[a.Symbol] = true
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Symbol < out[j].Symbol })
	return out
}

func checkAgainstBrute(t *testing.T, c *catalog.Catalog, assets []shariah.Asset, q catalog.SearchQuery) {
	t.Helper()
	hits, total := c.Search(q)
	var syms, by []string
	for _, h := range hits {
		syms, by = append(syms, h.Symbol), append(by, h.MatchedBy)
	}
	wantSyms, wantBy, wantTotal := bruteSearch(assets, q)
	if total != wantTotal || !reflect.DeepEqual(syms, wantSyms) || !reflect.DeepEqual(by, wantBy) {
		t.Errorf("%+v: total %d, want %d\n got %v %v\nwant %v %v", q, total, wantTotal, syms, by, wantSyms, wantBy)
	}
}

var (
	sharedOnce   sync.Once
	sharedAssets []shariah.Asset
)

// sharedCatalogAssets are the ~64,000 records of the shared data set (nil without it).
func sharedCatalogAssets(t testing.TB) []shariah.Asset {
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = "../shared/data"
	}
	if _, err := os.Stat(dir + "/reference"); err != nil {
		t.Skipf("shared data not found at %s (set SHARIAH_DATA_DIR): %v", dir, err)
	}
	sharedOnce.Do(func() {
		p, _, err := datapack.ReadShared(os.DirFS(dir))
		if err == nil {
			sharedAssets = p.Assets
		}
	})
	if len(sharedAssets) == 0 {
		t.Fatal("no assets read from the shared data")
	}
	return sharedAssets
}

// TestSearchIndexAgreesWithAScan: on the real catalog, a fixed set of queries (the golden set: symbols,
// prefixes, one letter, words, several words, substrings, non-ASCII, filters, pages) and 150 random ones
// give exactly the hits, order, match kinds and totals of a scan of every record.
func TestSearchIndexAgreesWithAScan(t *testing.T) {
	t.Parallel()
	assets := sortedAssets(sharedCatalogAssets(t))
	c := catalog.New(assets)
	golden := []catalog.SearchQuery{
		{Q: "a", Limit: 100}, {Q: "apple", Limit: 100}, {Q: "AAPL"}, {Q: "aap", Limit: 20}, {Q: "BRK"},
		{Q: "bank of america", Limit: 50}, {Q: "ban", Type: shariah.Equity, Country: "united states", Limit: 30},
		{Q: "ölkem"}, {Q: "société", Limit: 10}, {Q: "0700"}, {Q: "hldg", Limit: 10}, {Q: "oldings", Limit: 25, Offset: 10},
		{Q: "s&p 500", Type: shariah.ETF}, {Q: "x"}, {Q: "zz"}, {Q: "  msft  "}, {Q: "-"}, {Q: "tech", Sector: "Information Technology", Limit: 40},
		{Type: shariah.Index}, {Country: "Saudi Arabia", Limit: 10, Offset: 5}, {Q: "a", Offset: 100000},
		// broad queries (one and two characters, common words) with filters and deep pages
		{Q: "a", Type: shariah.Equity, Limit: 100}, {Q: "a", Type: shariah.Equity, Limit: 100, Offset: 3600},
		{Q: "a", Type: shariah.Equity, Limit: 500, Offset: 20000}, {Q: "A", Limit: 50, Offset: 3650},
		{Q: "a", Type: shariah.Equity, Country: "united states", Exchange: "NASDAQ", Limit: 40, Offset: 300},
		{Q: "s", Sector: "financials", Limit: 100, Offset: 700}, {Q: "0", Limit: 100, Offset: 4800}, {Q: "6", Type: shariah.Equity},
		{Q: "co", Limit: 100, Offset: 1000}, {Q: "in", Type: shariah.ETF, Exchange: "nyse arca", Limit: 25, Offset: 2000},
		{Q: "inc", Limit: 100, Offset: 9000}, {Q: "ing", Type: shariah.Equity, Limit: 20, Offset: 100},
		{Q: "limited", Limit: 10, Offset: 10000}, {Q: "oldings", Limit: 30}, {Q: "ucits etf", Limit: 20, Offset: 5000},
		{Q: "a", Country: "Nowhere"}, {Q: "a", Sector: "wide moat'"}, {Q: "a", Sector: "WIDE MOAT'"}, {Q: "e", Exchange: ""},
		{Type: shariah.Equity, Limit: 100, Offset: 40000}, {Type: shariah.Equity, Country: "JAPAN", Sector: "industrials", Limit: 30, Offset: 200},
		{Q: "a", Sector: "INDU\u017fTRIAL\u017f", Limit: 10}, {Q: "mar", Country: "\u212aorea", Limit: 10}, // long s, Kelvin sign: EqualFold
		{Exchange: "lse"}, {Q: "a", Limit: 100, Offset: -5}, {Type: "bond"}, {Q: "fund", Type: shariah.Fund},
	}
	for _, q := range golden {
		checkAgainstBrute(t, c, assets, q)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 150; i++ {
		a := assets[r.IntN(len(assets))]
		var q catalog.SearchQuery
		switch r.IntN(5) {
		case 0: // a symbol prefix
			q.Q = a.Symbol[:1+r.IntN(len(a.Symbol))]
		case 1: // a piece of the name
			n := []rune(strings.ToLower(a.Name))
			from := r.IntN(max(1, len(n)))
			q.Q = string(n[from:min(len(n), from+1+r.IntN(8))])
		case 2: // word prefixes
			ws := strings.Fields(a.Name)
			for _, w := range ws[:min(len(ws), 1+r.IntN(3))] {
				q.Q += w[:1+r.IntN(len(w))] + " "
			}
		case 3:
			q.Q = string(rune('a' + r.IntN(26)))
		default:
			q.Q = fmt.Sprint(r.IntN(100))
		}
		if r.IntN(3) == 0 {
			q.Type = a.Type
		}
		if r.IntN(4) == 0 {
			q.Country = strings.ToUpper(a.Country)
		}
		if r.IntN(6) == 0 {
			q.Sector = strings.ToLower(a.Sector)
		}
		if r.IntN(6) == 0 {
			q.Exchange = a.Exchange
		}
		q.Limit, q.Offset = 1+r.IntN(60), r.IntN(3)*r.IntN(20)
		if r.IntN(4) == 0 { // a deep page
			q.Offset = r.IntN(5000)
		}
		checkAgainstBrute(t, c, assets, q)
	}
}

// TestSearchAndSuggestConcurrently: queries share the catalog and a pool of working memory; from eight
// goroutines at once they answer what they answer alone (run with -race).
func TestSearchAndSuggestConcurrently(t *testing.T) {
	t.Parallel()
	c := catalog.New(sortedAssets(sharedCatalogAssets(t)))
	queries := []catalog.SearchQuery{{Q: "a", Type: shariah.Equity, Limit: 50}, {Q: "bank of", Limit: 20}, {Q: "oldings", Limit: 10, Offset: 5},
		{Q: "co", Type: shariah.Equity, Country: "united states", Exchange: "nasdaq", Limit: 30, Offset: 100}, {Type: shariah.ETF, Sector: "equities", Limit: 10},
		{Q: "AAPL"}, {Q: "inc", Limit: 5, Offset: 3000}}
	prefixes := []string{"a", "ap", "bank of", "a b", "lim", "0700"}
	type answer struct {
		hits  []catalog.SearchHit
		total int
	}
	want := make([]answer, len(queries))
	for k, q := range queries {
		want[k].hits, want[k].total = c.Search(q)
	}
	wantSug := make([][]catalog.Suggestion, len(prefixes))
	for k, p := range prefixes {
		wantSug[k] = c.Suggest(p, 20)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := range 20 {
				k := (g + n) % len(queries)
				if hits, total := c.Search(queries[k]); total != want[k].total || !reflect.DeepEqual(hits, want[k].hits) {
					t.Errorf("%+v: a different answer under concurrency", queries[k])
				}
				k = (g + n) % len(prefixes)
				if s := c.Suggest(prefixes[k], 20); !reflect.DeepEqual(s, wantSug[k]) {
					t.Errorf("suggest %q: a different answer under concurrency", prefixes[k])
				}
			}
		})
	}
	wg.Wait()
}

// TestSearchWhenClassesOverlap: with symbols of 1,000 bytes or names of 4,000 the classes' scores
// overlap (a long name matching by words ranks below a short one containing the query), and Search ranks
// every hit instead of cutting pages per class: still exactly the scan's answer.
func TestSearchWhenClassesOverlap(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 4100)
	assets := sortedAssets([]shariah.Asset{
		{Symbol: "APP", Name: "Applied Things", Type: shariah.Equity},
		{Symbol: "APPLX", Name: "Apple " + long, Type: shariah.Equity},
		{Symbol: "PINE", Name: "Pineapple Co", Type: shariah.Equity},
		{Symbol: "SNAP", Name: "Snapple " + long, Type: shariah.ETF},
		{Symbol: "A" + strings.Repeat("P", 1200), Name: "Long Symbol", Type: shariah.Equity},
		{Symbol: "ZZ", Name: "Apple Again", Type: shariah.Equity},
	})
	c := catalog.New(assets)
	for _, q := range []catalog.SearchQuery{{Q: "apple"}, {Q: "app"}, {Q: "a"}, {Q: "ap", Limit: 2, Offset: 1}, {Q: "pple", Type: shariah.Equity}, {Q: "x"}} {
		checkAgainstBrute(t, c, assets, q)
	}
}

// BenchmarkSearch: the indexed search on the real catalog (about 60,000 records) for the queries users
// send most, with the REST route's default filter (equities) and with several filters and a deep page,
// against the scan it replaced (bruteSearch, the same rules).
//
//	SHARIAH_DATA_DIR=../shared/data go test -run '^$' -bench 'Search|Suggest|Catalog' -benchmem .
func BenchmarkSearch(b *testing.B) {
	assets := sortedAssets(sharedCatalogAssets(b))
	c := catalog.New(assets)
	for _, bc := range []struct {
		name string
		q    catalog.SearchQuery
	}{
		{"q=a", catalog.SearchQuery{Q: "a", Limit: 20}},
		{"q=a/equities", catalog.SearchQuery{Q: "a", Type: shariah.Equity, Limit: 100}},
		{"q=a/equities,US,offset=2000", catalog.SearchQuery{Q: "a", Type: shariah.Equity, Country: "United States", Limit: 100, Offset: 2000}},
		{"q=ap/equities", catalog.SearchQuery{Q: "ap", Type: shariah.Equity, Limit: 100}},
		{"q=apple", catalog.SearchQuery{Q: "apple", Limit: 20}},
		{"q=AAPL", catalog.SearchQuery{Q: "AAPL", Limit: 20}},
		{"q=bank_of", catalog.SearchQuery{Q: "bank of", Limit: 20}},
		{"q=inc/equities", catalog.SearchQuery{Q: "inc", Type: shariah.Equity, Limit: 100}},
		{"q=oldings", catalog.SearchQuery{Q: "oldings", Limit: 20}},
		{"filters/equities,Japan", catalog.SearchQuery{Type: shariah.Equity, Country: "japan", Limit: 100, Offset: 500}},
	} {
		b.Run("index/"+bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Search(bc.q)
			}
		})
	}
	for _, q := range []string{"a", "apple", "bank of", "AAPL"} {
		b.Run("scan/q="+q, func(b *testing.B) {
			for b.Loop() {
				bruteSearch(assets, catalog.SearchQuery{Q: q, Limit: 20})
			}
		})
	}
}

// BenchmarkSuggest: suggestions on the real catalog, broad to narrow prefixes.
func BenchmarkSuggest(b *testing.B) {
	c := catalog.New(sortedAssets(sharedCatalogAssets(b)))
	for _, p := range []string{"a", "ap", "apple", "AAPL", "bank of", "a b", "lim", "zz"} {
		b.Run("p="+p, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Suggest(p, 10)
			}
		})
	}
}

// BenchmarkNewCatalog: building the catalog and its index from the real records (each reload of the
// reference data does it once). It reports the live heap the built catalog holds (catalog-MB) and the
// search index's part of it (index-MB), measured after a collection, as the README states them.
func BenchmarkNewCatalog(b *testing.B) {
	assets := sortedAssets(sharedCatalogAssets(b))
	live := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := live()
	c := catalog.New(assets)
	catalogBytes := live() - before
	before = live()
	ix := catalog.NewSearchIndexForTest(assets)
	index := live() - before
	runtime.KeepAlive(c)
	runtime.KeepAlive(ix)
	b.ReportAllocs()
	for b.Loop() {
		catalog.New(assets)
	}
	b.ReportMetric(float64(catalogBytes)/1e6, "catalog-MB")
	b.ReportMetric(float64(index)/1e6, "index-MB")
}

// bruteSuggest is Suggest as a scan of every record, written from its rules: the exact symbol; then the
// first 5,001 symbols (in symbol order) having the prefix, shortest first, equities first on ties; then,
// for the name words of the prefix, the first 5,001 (name word, record) pairs in word order whose word
// starts with the first query word and whose record's name has words starting with the others, equities
// first, then shorter names; each record once, at most limit.
func bruteSuggest(assets []shariah.Asset, prefix string, limit int) []catalog.Suggestion {
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	p := strings.TrimSpace(prefix)
	out := []catalog.Suggestion{}
	if p == "" || limit <= 0 {
		return out
	}
	up := strings.ToUpper(p)
	seen := map[string]bool{}
	add := func(a shariah.Asset, by string) bool {
		if !seen[a.Symbol] && len(out) < limit {
			seen[a.Symbol] = true
			out = append(out, catalog.Suggestion{Symbol: a.Symbol, Name: a.Name, Type: a.Type, Exchange: a.Exchange, Country: a.Country, MatchedBy: by})
		}
		return len(out) < limit
	}
	var pref []shariah.Asset
	for _, a := range assets {
		if a.Symbol == up && !add(a, "symbol") {
			return out
		}
		if strings.HasPrefix(a.Symbol, up) && len(pref) < 5001 {
			pref = append(pref, a)
		}
	}
	sort.SliceStable(pref, func(i, j int) bool {
		if len(pref[i].Symbol) != len(pref[j].Symbol) {
			return len(pref[i].Symbol) < len(pref[j].Symbol)
		}
		return pref[i].Type == shariah.Equity && pref[j].Type != shariah.Equity
	})
	for _, a := range pref {
		if !add(a, "symbol_prefix") {
			return out
		}
	}
	qw := words(p)
	if len(qw) == 0 {
		return out
	}
	type entry struct {
		word string
		a    shariah.Asset
		i    int
	}
	var entries []entry
	for i, a := range assets {
		ws := scanName(a.Name).words
		every := true
		for _, q := range qw[1:] {
			found := false
			for _, w := range ws {
				found = found || strings.HasPrefix(w, q)
			}
			every = every && found
		}
		for _, w := range ws {
			if every && strings.HasPrefix(w, qw[0]) {
				entries = append(entries, entry{w, a, i})
			}
		}
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].word != entries[j].word {
			return entries[i].word < entries[j].word
		}
		return entries[i].i < entries[j].i
	})
	entries = entries[:min(len(entries), 5001)]
	sort.SliceStable(entries, func(i, j int) bool {
		x, y := entries[i].a, entries[j].a
		if (x.Type == shariah.Equity) != (y.Type == shariah.Equity) {
			return x.Type == shariah.Equity
		}
		return len(x.Name) < len(y.Name)
	})
	for _, e := range entries {
		if !add(e.a, "name_prefix") {
			return out
		}
	}
	return out
}

// TestSuggestAgreesWithAScan: on the real catalog, a golden set of prefixes (one and two letters, digits,
// words, several words, non-ASCII, punctuation, limits from 1 to past 50) and 150 random ones suggest
// exactly what a scan of every record does.
func TestSuggestAgreesWithAScan(t *testing.T) {
	t.Parallel()
	assets := sortedAssets(sharedCatalogAssets(t))
	c := catalog.New(assets)
	check := func(p string, limit int) {
		t.Helper()
		got, want := c.Suggest(p, limit), bruteSuggest(assets, p, limit)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Suggest(%q, %d):\n got %v\nwant %v", p, limit, got, want)
		}
	}
	for _, p := range []string{"a", "A", "ap", "apple", "AAPL", "aap", "bank of", "bank of am", "a b", "zz", "lim", "limited",
		"0", "1", "00", "6", "ölk", "société", "s&p", "s&p 500", "  msft ", "-", "x", "brk-", "inc", "etf", "ucits etf", "", "   "} {
		for _, limit := range []int{1, 10, 50, 120} {
			check(p, limit)
		}
	}
	check("a", 0)
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 150; i++ {
		a := assets[r.IntN(len(assets))]
		var p string
		switch r.IntN(4) {
		case 0:
			p = a.Symbol[:1+r.IntN(len(a.Symbol))]
		case 1:
			ws := strings.Fields(a.Name)
			for _, w := range ws[:min(len(ws), 1+r.IntN(3))] {
				p += w[:1+r.IntN(len(w))] + " "
			}
		case 2:
			p = string(rune('a'+r.IntN(26))) + string(rune('a' + r.IntN(26)))[:r.IntN(2)]
		default:
			n := []rune(strings.ToLower(a.Name))
			from := r.IntN(max(1, len(n)))
			p = string(n[from:min(len(n), from+1+r.IntN(5))])
		}
		check(p, 1+r.IntN(50))
	}
}
