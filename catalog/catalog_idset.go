package catalog

import (
	"math/bits"
	"slices"
	"sync"
)

// idset is a set of record positions in one of the search index's orders (symbol order or name order),
// stored as whichever is smaller: an ascending list (4 bytes a member) or a bitset (one bit a record).
// A set with more than 1/32 of the records is a bitset, so the dense sets (a letter's name words, the
// equities, a large exchange) intersect and count in one pass over n/64 words, and the many rare values
// (most countries, long word prefixes, most trigrams) cost 4 bytes a member. The index never stores
// more than the lists alone would.
type idset struct {
	ids  []int32  // ascending members, when bits is nil
	bits []uint64 // bit x%64 of word x/64, for a dense set
	n    int      // members
}

// setFromBits makes a set of the marked members of a bitset over universe records, a list when that
// is smaller (the bitset is then dropped).
func setFromBits(b []uint64, universe int) idset {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	if n*32 > universe {
		return idset{bits: b, n: n}
	}
	ids := make([]int32, 0, n)
	for k, w := range b {
		for w != 0 {
			ids = append(ids, int32(k*64+bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	return idset{ids: ids, n: n}
}

// setFromList makes a set of ascending, distinct members, a bitset when that is smaller (else the list,
// copied when it has spare capacity).
func setFromList(ids []int32, universe int) idset {
	if len(ids)*32 <= universe {
		if cap(ids) > len(ids) {
			ids = slices.Clone(ids) // without append's spare capacity
		}
		return idset{ids: ids, n: len(ids)}
	}
	b := make([]uint64, (universe+63)/64)
	for _, x := range ids {
		b[x/64] |= 1 << (x % 64)
	}
	return idset{bits: b, n: len(ids)}
}

// has reports whether x is a member.
func (s idset) has(x int32) bool {
	if s.bits != nil {
		return s.bits[x/64]&(1<<(x%64)) != 0
	}
	_, ok := slices.BinarySearch(s.ids, x)
	return ok
}

// countRange counts the members in [lo, hi).
func (s idset) countRange(lo, hi int32) int {
	if lo >= hi {
		return 0
	}
	if s.bits == nil {
		a, _ := slices.BinarySearch(s.ids, lo)
		b, _ := slices.BinarySearch(s.ids, hi)
		return b - a
	}
	first, last := lo/64, (hi-1)/64
	lowMask, highMask := ^uint64(0)<<(lo%64), ^uint64(0)>>(63-(hi-1)%64)
	if first == last {
		return bits.OnesCount64(s.bits[first] & lowMask & highMask)
	}
	n := bits.OnesCount64(s.bits[first]&lowMask) + bits.OnesCount64(s.bits[last]&highMask)
	for _, w := range s.bits[first+1 : last] {
		n += bits.OnesCount64(w)
	}
	return n
}

// each calls fn with the members in ascending order from the skip-th (counting from 0) until fn
// returns false. A bitset skips whole words by their counts, so a deep page costs n/64 steps at most.
func (s idset) each(skip int, fn func(int32) bool) {
	if s.bits == nil {
		if skip < len(s.ids) {
			for _, x := range s.ids[skip:] {
				if !fn(x) {
					return
				}
			}
		}
		return
	}
	for k, w := range s.bits {
		if c := bits.OnesCount64(w); skip >= c {
			skip -= c
			continue
		}
		for ; w != 0; w &= w - 1 {
			if skip > 0 {
				skip--
				continue
			}
			if !fn(int32(k*64 + bits.TrailingZeros64(w))) {
				return
			}
		}
	}
}

// scratch is one query's working memory. The sets a query intersects and the keys it ranks are garbage
// once its page is cut, so they come from a pool rather than the heap: at thousands of queries a second,
// fresh bitsets (7.5 KB each on the real catalog) would keep the collector marking the catalog. A nil
// scratch allocates.
type scratch struct {
	words            int // the length of the free bitsets
	free, used       [][]uint64
	freeIDs, usedIDs [][]int32
	keys             []uint64
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// getScratch takes a scratch for sets of universe records; release gives it back.
func getScratch(universe int) *scratch {
	sc := scratches.Get().(*scratch)
	if w := (universe + 63) / 64; sc.words != w {
		sc.words, sc.free = w, nil
	}
	return sc
}

// release returns the scratch and everything taken from it to the pool: none of it may be used after.
func (sc *scratch) release() {
	sc.free, sc.freeIDs = append(sc.free, sc.used...), append(sc.freeIDs, sc.usedIDs...)
	clear(sc.used)
	clear(sc.usedIDs)
	sc.used, sc.usedIDs, sc.keys = sc.used[:0], sc.usedIDs[:0], sc.keys[:0]
	scratches.Put(sc)
}

// bitset is a bitset over the universe, its contents undefined.
func (sc *scratch) bitset(words int) []uint64 {
	if sc == nil {
		return make([]uint64, words)
	}
	var b []uint64
	if k := len(sc.free) - 1; k >= 0 {
		b, sc.free = sc.free[k], sc.free[:k]
	} else {
		b = make([]uint64, sc.words)
	}
	sc.used = append(sc.used, b)
	return b
}

// ids is an empty list with room for n members.
func (sc *scratch) ids(n int) []int32 {
	if sc == nil {
		return make([]int32, 0, n)
	}
	var l []int32
	for k, f := range sc.freeIDs {
		if cap(f) >= n {
			l = f
			sc.freeIDs = slices.Delete(sc.freeIDs, k, k+1)
			break
		}
	}
	if l == nil {
		l = make([]int32, 0, max(n, 256))
	}
	sc.usedIDs = append(sc.usedIDs, l)
	return l[:0]
}

// intersect returns a new set (from sc) of the members common to all the sets (at least one); the sets
// are not changed. With a list among them, the smallest list is tested against the others (a bit test
// or a binary search a member); with bitsets only, their words are and-ed.
func intersect(sc *scratch, sets ...idset) idset {
	small := -1
	for k, s := range sets {
		if s.bits == nil && (small < 0 || s.n < sets[small].n) {
			small = k
		}
	}
	if small < 0 {
		b := sc.bitset(len(sets[0].bits))
		copy(b, sets[0].bits)
		for _, s := range sets[1:] {
			for k := range b {
				b[k] &= s.bits[k]
			}
		}
		n := 0
		for _, w := range b {
			n += bits.OnesCount64(w)
		}
		return idset{bits: b, n: n}
	}
	out := sc.ids(sets[small].n)
next:
	for _, x := range sets[small].ids {
		for k, s := range sets {
			if k != small && !s.has(x) {
				continue next
			}
		}
		out = append(out, x)
	}
	return idset{ids: out, n: len(out)}
}

// keep drops the members for which fn is false. Only for a set of the caller's own (from intersect).
func (s *idset) keep(fn func(int32) bool) {
	if s.bits == nil {
		s.ids = slices.DeleteFunc(s.ids, func(x int32) bool { return !fn(x) })
		s.n = len(s.ids)
		return
	}
	for k, w := range s.bits {
		for v := w; v != 0; v &= v - 1 {
			if b := bits.TrailingZeros64(v); !fn(int32(k*64 + b)) {
				s.bits[k] &^= 1 << b
				s.n--
			}
		}
	}
}

// remove drops the members among xs. Only for a set of the caller's own.
func (s *idset) remove(xs []int32) {
	if s.bits == nil {
		sorted := slices.Sorted(slices.Values(xs))
		s.keep(func(x int32) bool { _, found := slices.BinarySearch(sorted, x); return !found })
		return
	}
	for _, x := range xs {
		if m := uint64(1) << (x % 64); s.bits[x/64]&m != 0 {
			s.bits[x/64] &^= m
			s.n--
		}
	}
}

// andNot drops the members of t. Only for a set of the caller's own.
func (s *idset) andNot(t idset) {
	if s.n == 0 || t.n == 0 {
		return
	}
	if s.bits != nil && t.bits != nil {
		n := 0
		for k := range s.bits {
			s.bits[k] &^= t.bits[k]
			n += bits.OnesCount64(s.bits[k])
		}
		s.n = n
		return
	}
	if s.bits != nil {
		s.remove(t.ids)
		return
	}
	s.keep(func(x int32) bool { return !t.has(x) })
}
