package account

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestNewAPIKeyShapeAndUniqueness(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	counts := map[byte]int{}
	for range 2000 {
		k, err := NewAPIKey("")
		if err != nil {
			t.Fatal(err)
		}
		if !WellFormedKey(k) || len(k) != 43 || !strings.HasPrefix(k, "ht_") {
			t.Fatalf("bad key %q", k)
		}
		if seen[k] {
			t.Fatalf("duplicate key %q", k)
		}
		seen[k] = true
		for i := 3; i < len(k); i++ {
			counts[k[i]]++
		}
		if p := PublicPrefix(k); len(p) != 12 || !WellFormedPrefix(p) || p != k[:12] {
			t.Fatalf("prefix %q of %q", p, k)
		}
	}
	// 80,000 characters over 62 symbols: every symbol appears, none wildly over-represented.
	if len(counts) != 62 {
		t.Fatalf("%d distinct characters, want 62", len(counts))
	}
	for c, n := range counts {
		if n < 900 || n > 1700 {
			t.Fatalf("character %q appears %d times (expected about 1290)", c, n)
		}
	}
}

func TestWellFormedKeyRejects(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "shr_", "ht_", "sk_" + strings.Repeat("a", 41), "shr_" + strings.Repeat("a", 39),
		"shr_" + strings.Repeat("a", 41), "shr_" + strings.Repeat("a", 39) + "-", "SHR_" + strings.Repeat("a", 40),
		"ht_" + strings.Repeat("a", 39), "ht_" + strings.Repeat("a", 41), "HT_" + strings.Repeat("a", 40),
		"ht-" + strings.Repeat("a", 40), "_" + strings.Repeat("a", 40), "abcd_" + strings.Repeat("a", 40),
		"h1_" + strings.Repeat("a", 40), "ht_" + strings.Repeat("a", 39) + "_"} {
		if WellFormedKey(s) {
			t.Errorf("%q accepted", s)
		}
	}
	if WellFormedPrefix("shr_abc") || WellFormedPrefix("shr_abcdefg!") || WellFormedPrefix("ht_abcdefgh") || WellFormedPrefix("ht_abcdefgh_") {
		t.Error("malformed prefix accepted")
	}
	if HashKey("shr_x") == HashKey("shr_y") || len(HashKey("shr_x")) != 64 {
		t.Error("hash")
	}
	// hex SHA-256 (FIPS 180-2's example "abc"): what the stored key hashes are
	if h := HashKey("abc"); h != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashKey(abc) = %s", h)
	}
}

// TestKeyPrefixes: keys of the default prefix (ht_), of the legacy one (shr_) and of any valid
// configured prefix are well formed, with 12-character public prefixes; invalid prefix settings are
// refused at issue.
func TestKeyPrefixes(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"ht_", LegacyKeyPrefix, "x_", "abc_"} {
		k, err := NewAPIKey(p)
		if err != nil || !strings.HasPrefix(k, p) || len(k) != len(p)+40 || !WellFormedKey(k) {
			t.Fatalf("prefix %q: key %q, %v", p, k, err)
		}
		if pp := PublicPrefix(k); !WellFormedPrefix(pp) || pp != k[:12] {
			t.Fatalf("public prefix %q of %q", pp, k)
		}
	}
	if k := "shr_" + strings.Repeat("Ab3", 13) + "Z"; !WellFormedKey(k) || !WellFormedPrefix(k[:12]) {
		t.Fatalf("an issued shr_ key is refused: %q", k)
	}
	for _, p := range []string{"", "_", "ht", "abcd_", "Ht_", "h1_", "h_t_", "ht-"} {
		if ValidKeyPrefix(p) {
			t.Errorf("prefix %q accepted", p)
		}
		if p != "" {
			if _, err := NewAPIKey(p); err == nil {
				t.Errorf("NewAPIKey(%q) issued a key", p)
			}
		}
	}
}

func TestPeriodIsTheUTCCalendarMonth(t *testing.T) {
	t.Parallel()
	// 23:30 on 31 Jan in UTC-5 is 04:30 on 1 Feb UTC: February's period.
	ny := time.FixedZone("EST", -5*3600)
	p := PeriodOf(time.Date(2026, 1, 31, 23, 30, 0, 0, ny))
	if p.ID() != "202602" || !p.Start.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) || !p.End.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("period %+v %s", p, p.ID())
	}
	dec := PeriodOf(time.Date(2026, 12, 15, 0, 0, 0, 0, time.UTC))
	if dec.End.Year() != 2027 || dec.End.Month() != time.January {
		t.Fatalf("December ends %s", dec.End)
	}
	if s := dec.SecondsLeft(dec.End.Add(-1500 * time.Millisecond)); s != 2 {
		t.Fatalf("seconds left rounds up: %d", s)
	}
	if s := dec.SecondsLeft(dec.End.Add(time.Hour)); s != 1 {
		t.Fatalf("past the end: %d, want 1", s)
	}
}

func TestTokenCostCharge(t *testing.T) {
	t.Parallel()
	costs := DefaultTokenCosts()
	cases := []struct {
		method, path string
		items        int
		fresh        bool
		want         int
	}{
		{"GET", "/api/health", 0, false, 0},
		{"GET", "/api/database/search", 0, false, 1},
		{"GET", "/api/quote/{symbol}", 0, false, 2},
		{"POST", "/api/screen/{symbol}", 0, false, 5},
		{"POST", "/api/screen/{symbol}", 0, true, 10},
		{"POST", "/api/quotes/batch", 3, false, 6},
		{"POST", "/api/quotes/batch", 0, false, 2},
		{"POST", "/api/quotes/batch", 50, false, 50},
		{"POST", "/api/portfolio/scan", 100, false, 50},
		{"POST", "/api/screen-bulk", 0, false, 50},
	}
	for _, c := range cases {
		tc, ok := costs.Lookup(c.method, c.path)
		if !ok {
			t.Fatalf("%s %s missing", c.method, c.path)
		}
		if got := tc.Charge(c.items, c.fresh); got != c.want {
			t.Errorf("%s %s items=%d fresh=%v: %d, want %d", c.method, c.path, c.items, c.fresh, got, c.want)
		}
	}
	seen := map[string]bool{}
	for _, c := range costs {
		if seen[c.Method+c.Path] {
			t.Errorf("duplicate row %s %s", c.Method, c.Path)
		}
		seen[c.Method+c.Path] = true
	}
}

func TestPlansValidateAndQuota(t *testing.T) {
	t.Parallel()
	ps := DefaultPlans()
	if err := ps.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := append(Plans{}, ps...)
	bad[0].TokensPerMonth = -7
	bad = append(bad, bad[1])
	err := bad.Validate()
	if err == nil || !strings.Contains(err.Error(), "tokens per month -7") || !strings.Contains(err.Error(), "defined twice") {
		t.Fatalf("validate: %v", err)
	}
	pro, _ := ps.Lookup(PlanPro)
	q := QuotaOf(pro, MeterState{Used: 15125, Overage: 125}, PeriodOf(time.Date(2026, 11, 5, 0, 0, 0, 0, time.UTC)))
	if q.TokensRemaining != 0 || q.OverageCostUSD != "1.00" || q.PeriodStart != "2026-11-01T00:00:00Z" || q.PeriodEnd != "2026-12-01T00:00:00Z" {
		t.Fatalf("quota %+v", q)
	}
	if !pro.OverageCost(3).Equal(decimal.RequireFromString("0.024")) {
		t.Fatal("overage cost is not exact decimal")
	}
	if RemainingOf(-1, 10) != -1 || RemainingOf(50, 20) != 30 || RemainingOf(50, 60) != 0 {
		t.Fatal("RemainingOf")
	}
}

func TestNormalizeEmail(t *testing.T) {
	t.Parallel()
	good := map[string]string{"A.B@Example.COM": "a.b@example.com", " x+tag@sub.example.org ": "x+tag@sub.example.org"}
	for in, want := range good {
		if got, ok := NormalizeEmail(in); !ok || got != want {
			t.Errorf("%q: %q %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "plain", "a@b", "Name <a@b.com>", "a@b.com.", "@example.com", strings.Repeat("a", 250) + "@x.com"} {
		if _, ok := NormalizeEmail(in); ok {
			t.Errorf("%q accepted", in)
		}
	}
}
