package sec

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shariah-screen/shariah"
)

// ---------------------------------------------------------------------------------------------------
// helpers

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dataFile reads a file of the shared data folder (SHARIAH_DATA_DIR, else ../../../shared/data from
// this package), skipping the test when the folder is absent: the data lives beside the project.
func dataFile(t *testing.T, rel string) []byte {
	t.Helper()
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared data folder %s is absent (set SHARIAH_DATA_DIR to run the tests on real SEC files)", dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, "sec", rel))
	if err != nil {
		t.Skipf("SEC data file %s is absent: %v", rel, err)
	}
	return b
}

func key(f shariah.Fundamentals) string { return f.PeriodEnd + " " + f.Period }

func index(t *testing.T, fs []shariah.Fundamentals) map[string]shariah.Fundamentals {
	t.Helper()
	m := map[string]shariah.Fundamentals{}
	for _, f := range fs {
		if _, dup := m[key(f)]; dup {
			t.Errorf("duplicate period %s", key(f))
		}
		m[key(f)] = f
	}
	return m
}

func fundamentalsOf(t *testing.T, b []byte, symbol string) []shariah.Fundamentals {
	t.Helper()
	cf, err := ParseCompanyFacts(b)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Fundamentals(cf, symbol)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func entry(t *testing.T, m map[string]shariah.Fundamentals, k string) shariah.Fundamentals {
	t.Helper()
	f, ok := m[k]
	if !ok {
		t.Fatalf("no period %s", k)
	}
	return f
}

// want checks one fact: value, accession number and tag ("" skips the tag).
func want(t *testing.T, f shariah.Fundamentals, field shariah.Field, value, ref, tag string) shariah.Fact {
	t.Helper()
	fact, ok := f.Facts[field]
	if !ok {
		t.Errorf("%s %s: no fact (missing: %q)", key(f), field, f.Missing[field])
		return fact
	}
	if fact.Value.String() != value {
		t.Errorf("%s %s = %s, want %s", key(f), field, fact.Value, value)
	}
	if fact.Ref != ref {
		t.Errorf("%s %s ref = %s, want %s", key(f), field, fact.Ref, ref)
	}
	if tag != "" && fact.Tag != tag {
		t.Errorf("%s %s tag = %s, want %s", key(f), field, fact.Tag, tag)
	}
	if fact.Source != shariah.SourceFiling || fact.Filed == "" || fact.Form == "" {
		t.Errorf("%s %s: incomplete provenance %+v", key(f), field, fact)
	}
	return fact
}

func absent(t *testing.T, f shariah.Fundamentals, field shariah.Field, reason string) {
	t.Helper()
	if fact, ok := f.Facts[field]; ok {
		t.Errorf("%s %s: unexpected fact %+v", key(f), field, fact)
	}
	got := f.Missing[field]
	if got == "" || (reason != "" && got != reason) {
		t.Errorf("%s missing[%s] = %q, want %q", key(f), field, got, reason)
	}
}

// longestQuarterRun is the longest run of consecutive quarters (Q1, Q2, Q3, Q4, Q1, ... about 91 days
// apart), counted in quarters, and the quarters of the latest run.
func longestQuarterRun(fs []shariah.Fundamentals) (int, []shariah.Fundamentals) {
	next := map[string]string{"Q1": "Q2", "Q2": "Q3", "Q3": "Q4", "Q4": "Q1"}
	var qs []shariah.Fundamentals
	for _, f := range fs {
		if f.Period != "FY" {
			qs = append(qs, f)
		}
	}
	best, start := 0, 0
	for i := range qs {
		if i > 0 {
			a, _ := time.Parse(dateLayout, qs[i-1].PeriodEnd)
			b, _ := time.Parse(dateLayout, qs[i].PeriodEnd)
			if d := daysBetween(a, b); d < quarterMin || d > quarterMax || next[qs[i-1].Period] != qs[i].Period {
				start = i
			}
		}
		best = max(best, i-start+1)
	}
	return best, qs[start:]
}
