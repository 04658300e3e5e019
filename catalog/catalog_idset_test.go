package catalog

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestIDSetAgainstAModel: sets of every density, in both forms, against plain sorted lists: members,
// counts, ranges, iteration from any place, intersection, difference and filtering.
func TestIDSetAgainstAModel(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	const n = 1000
	random := func() []int32 {
		density := []float64{0, 0.001, 0.01, 0.03, 0.05, 0.3, 1}[r.IntN(7)]
		var out []int32
		for x := int32(0); x < n; x++ {
			if r.Float64() < density {
				out = append(out, x)
			}
		}
		return out
	}
	both := func(l []int32) []idset { // the set as built, and in the other form
		s := setFromList(slices.Clone(l), n)
		bs := make([]uint64, (n+63)/64)
		for _, x := range l {
			bs[x/64] |= 1 << (x % 64)
		}
		other := idset{bits: bs, n: len(l)}
		if s.bits != nil {
			other = idset{ids: slices.Clone(l), n: len(l)}
		}
		return []idset{s, other}
	}
	members := func(s idset, skip int) []int32 {
		out := []int32{}
		s.each(skip, func(x int32) bool { out = append(out, x); return true })
		return out
	}
	for range 300 {
		a, b := random(), random()
		for _, sa := range both(a) {
			if got := members(sa, 0); sa.n != len(a) || !slices.Equal(got, append([]int32{}, a...)) {
				t.Fatalf("members %v, want %v", got, a)
			}
			skip := r.IntN(len(a) + 2)
			if got := members(sa, skip); !slices.Equal(got, append([]int32{}, a[min(skip, len(a)):]...)) {
				t.Fatalf("from %d: %v", skip, got)
			}
			lo, hi := int32(r.IntN(n)), int32(r.IntN(n+1))
			want := 0
			for _, x := range a {
				if x >= lo && x < hi {
					want++
				}
			}
			if got := sa.countRange(lo, hi); got != want {
				t.Fatalf("countRange(%d, %d) = %d, want %d", lo, hi, got, want)
			}
			for x := int32(0); x < n; x += 7 {
				if _, in := slices.BinarySearch(a, x); sa.has(x) != in {
					t.Fatalf("has(%d)", x)
				}
			}
			for _, sb := range both(b) {
				var and, diff []int32
				for _, x := range a {
					if _, in := slices.BinarySearch(b, x); in {
						and = append(and, x)
					} else {
						diff = append(diff, x)
					}
				}
				got := intersect(nil, sa, sb)
				if m := members(got, 0); got.n != len(and) || !slices.Equal(m, append([]int32{}, and...)) {
					t.Fatalf("intersect: %v, want %v", m, and)
				}
				d := intersect(nil, sa) // a copy of the caller's own
				d.andNot(sb)
				if m := members(d, 0); d.n != len(diff) || !slices.Equal(m, append([]int32{}, diff...)) {
					t.Fatalf("andNot: %v, want %v", m, diff)
				}
				d.keep(func(x int32) bool { return x%3 != 0 })
				d.remove(diff[:min(1, len(diff))])
				var kept []int32
				for k, x := range diff {
					if x%3 != 0 && k != 0 {
						kept = append(kept, x)
					}
				}
				if m := members(d, 0); d.n != len(kept) || !slices.Equal(m, append([]int32{}, kept...)) {
					t.Fatalf("keep and remove: %v, want %v", m, kept)
				}
			}
		}
	}
}

// TestFoldKeyIsEqualFold: two strings have the same fold key exactly when strings.EqualFold holds them
// equal, including runes whose case orbits have three members (k, K, the Kelvin sign; s, S, the long s;
// the Greek sigmas), non-ASCII letters and invalid bytes.
func TestFoldKeyIsEqualFold(t *testing.T) {
	t.Parallel()
	alphabet := []string{"k", "K", "\u212a", "s", "S", "\u017f", "σ", "ς", "Σ", "é", "É", "ß", "ẞ", "i", "I", "İ", "ı", "a", " ", "\xff", "\ufffd", "ǅ", "ǆ", "Ǆ"}
	r := rand.New(rand.NewPCG(7, 8))
	word := func() string {
		var b strings.Builder
		for range r.IntN(4) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 20000 {
		x, y := word(), word()
		if (foldKey(x) == foldKey(y)) != strings.EqualFold(x, y) {
			t.Fatalf("%q %q: keys %q %q, EqualFold %v", x, y, foldKey(x), foldKey(y), strings.EqualFold(x, y))
		}
	}
}
