package shariah_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/datapack"
)

// bruteSearch is the search as a scan of every record, written from the ranking rules alone: the oracle
// the indexed Catalog.Search must agree with, hit for hit and in order.
func bruteSearch(assets []shariah.Asset, q shariah.SearchQuery) ([]string, []string, int) {
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
			for _, n := range words(a.Name) {
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
		case len(lowerQ) >= 3 && strings.Contains(strings.ToLower(a.Name), lowerQ):
			hits = append(hits, hit{a.Symbol, "name_contains", 1000 - len(a.Name)/4})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	total := len(hits)
	hits = hits[min(q.Offset, total):]
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

func checkAgainstBrute(t *testing.T, c *shariah.Catalog, assets []shariah.Asset, q shariah.SearchQuery) {
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
	c := shariah.NewCatalog(assets)
	golden := []shariah.SearchQuery{
		{Q: "a", Limit: 100}, {Q: "apple", Limit: 100}, {Q: "AAPL"}, {Q: "aap", Limit: 20}, {Q: "BRK"},
		{Q: "bank of america", Limit: 50}, {Q: "ban", Type: shariah.Equity, Country: "united states", Limit: 30},
		{Q: "ölkem"}, {Q: "société", Limit: 10}, {Q: "0700"}, {Q: "hldg", Limit: 10}, {Q: "oldings", Limit: 25, Offset: 10},
		{Q: "s&p 500", Type: shariah.ETF}, {Q: "x"}, {Q: "zz"}, {Q: "  msft  "}, {Q: "-"}, {Q: "tech", Sector: "Information Technology", Limit: 40},
		{Type: shariah.Index}, {Country: "Saudi Arabia", Limit: 10, Offset: 5}, {Q: "a", Offset: 100000},
	}
	for _, q := range golden {
		checkAgainstBrute(t, c, assets, q)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 150; i++ {
		a := assets[r.IntN(len(assets))]
		var q shariah.SearchQuery
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
		q.Limit, q.Offset = 1+r.IntN(60), r.IntN(3)*r.IntN(20)
		checkAgainstBrute(t, c, assets, q)
	}
}

// BenchmarkSearch: the indexed search on the real catalog (about 64,000 records) against the scan it
// replaced (bruteSearch, the same rules), for the queries users send most.
func BenchmarkSearch(b *testing.B) {
	assets := sortedAssets(sharedCatalogAssets(b))
	c := shariah.NewCatalog(assets)
	for _, q := range []string{"a", "apple", "bank of", "AAPL"} {
		b.Run("index/q="+q, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c.Search(shariah.SearchQuery{Q: q, Limit: 20})
			}
		})
		b.Run("scan/q="+q, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				bruteSearch(assets, shariah.SearchQuery{Q: q, Limit: 20})
			}
		})
	}
}
