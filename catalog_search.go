package shariah

import (
	"slices"
	"sort"
	"strings"
)

// searchIndex is what Search needs beyond the sorted symbols and name words, computed once per catalog:
// each record's lower-case name and name words, and the records by the trigrams (3-byte windows) of
// their lower-case names, so that no search re-tokenises or scans the catalog's names.
type searchIndex struct {
	lowerNames []string
	nameWords  [][]string
	trigrams   map[[3]byte][]int32 // each list ascending, without repeats
}

func newSearchIndex(assets []Asset) searchIndex {
	ix := searchIndex{lowerNames: make([]string, len(assets)), nameWords: make([][]string, len(assets)),
		trigrams: map[[3]byte][]int32{}}
	for i, a := range assets {
		ln := strings.ToLower(a.Name)
		ix.lowerNames[i] = ln
		ix.nameWords[i] = lowerWords(ln) // substrings of ln: no second copy
		for j := 0; j+3 <= len(ln); j++ {
			t := [3]byte{ln[j], ln[j+1], ln[j+2]}
			if l := ix.trigrams[t]; len(l) == 0 || l[len(l)-1] != int32(i) {
				ix.trigrams[t] = append(l, int32(i))
			}
		}
	}
	return ix
}

// containing returns the records whose lower-case name may contain q (len(q) >= 3): those having q's
// rarest trigram. The caller checks each.
func (ix *searchIndex) containing(q string) []int32 {
	var best []int32
	for j := 0; j+3 <= len(q); j++ {
		l := ix.trigrams[[3]byte{q[j], q[j+1], q[j+2]}]
		if len(l) == 0 {
			return nil
		}
		if best == nil || len(l) < len(best) {
			best = l
		}
	}
	return best
}

// candidates are the records a non-empty query can match, ascending (the catalog's symbol order):
// symbols with the query as a prefix, names with a word starting with the first query word, and names
// containing the query (trigrams). Every match of Search's rules is among them.
func (c *Catalog) candidates(upper string, words []string, lowerQ string) []int32 {
	var out []int32
	lo := sort.Search(len(c.assets), func(i int) bool { return c.assets[i].Symbol >= upper })
	for i := lo; i < len(c.assets) && strings.HasPrefix(c.assets[i].Symbol, upper); i++ {
		out = append(out, int32(i))
	}
	if len(words) > 0 {
		first := words[0]
		lo := sort.Search(len(c.words), func(i int) bool { return c.words[i].word >= first })
		for i := lo; i < len(c.words) && strings.HasPrefix(c.words[i].word, first); i++ {
			out = append(out, c.words[i].idx)
		}
	}
	if len(lowerQ) >= 3 {
		out = append(out, c.search.containing(lowerQ)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// matchesFilters applies a query's filters to a record.
func (q SearchQuery) matchesFilters(a Asset) bool {
	return (q.Type == "" || a.Type == q.Type) &&
		(q.Sector == "" || strings.EqualFold(a.Sector, q.Sector)) &&
		(q.Country == "" || strings.EqualFold(a.Country, q.Country)) &&
		(q.Exchange == "" || strings.EqualFold(a.Exchange, q.Exchange))
}
