package news

import (
	"encoding/csv"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shariah-screen/shariah"
)

func devAssets(t *testing.T) []shariah.Asset {
	var out []shariah.Asset
	for _, f := range []struct{ path, sym string }{
		{"/work/shared/data/reference/nasdaq-listings/nasdaq-listed-symbols.csv", "Symbol"},
		{"/work/shared/data/reference/nyse-other-listings/other-listed.csv", "ACT Symbol"},
	} {
		fh, _ := os.Open(f.path)
		r := csv.NewReader(fh)
		r.FieldsPerRecord = -1
		recs, _ := r.ReadAll()
		h := map[string]int{}
		for i, c := range recs[0] {
			h[c] = i
		}
		for _, rec := range recs[1:] {
			if len(rec) < len(recs[0]) || strings.Contains(rec[h[f.sym]], "$") {
				continue
			}
			typ := shariah.Equity
			if rec[h["ETF"]] == "Y" {
				typ = shariah.ETF
			}
			name := strings.TrimSuffix(strings.TrimSpace(rec[h["Company Name"]]), " Common Stock")
			out = append(out, shariah.Asset{Symbol: strings.ReplaceAll(rec[h[f.sym]], ".", "-"), Name: name, Type: typ})
		}
	}
	return out
}

func TestDevNames(t *testing.T) {
	as := devAssets(t)
	st := time.Now()
	tg := NewTagger(as)
	t.Logf("%d assets, build %v", len(as), time.Since(st))
	var single, multi []string
	for _, es := range tg.names {
		for _, e := range es {
			line := strings.Join(e.tokens, " ") + " -> " + strings.Join(e.symbols, ",")
			if len(e.tokens) == 1 {
				single = append(single, line)
			} else {
				multi = append(multi, line)
			}
		}
	}
	sort.Strings(single)
	sort.Strings(multi)
	os.WriteFile("/tmp/single.txt", []byte(strings.Join(single, "\n")), 0o644)
	os.WriteFile("/tmp/multi.txt", []byte(strings.Join(multi, "\n")), 0o644)
	fmt.Println(len(single), len(multi))
	for _, n := range []string{"Apple Inc.", "Alphabet Inc. Class A", "Amazon.com, Inc.", "Cisco Systems, Inc.", "Coca-Cola Company (The)", "Eli Lilly and Company", "Meta Platforms, Inc. Class A", "Berkshire Hathaway Inc.", "NVIDIA Corporation", "Ford Motor Company", "Procter & Gamble Company (The)"} {
		fmt.Printf("%q -> %q\n", n, shortNames(n))
	}
}

func TestDevFD(t *testing.T) {
	fh, _ := os.Open("/work/shared/data/reference/financedatabase/equities-compact.csv")
	r := csv.NewReader(fh)
	recs, _ := r.ReadAll()
	var as []shariah.Asset
	for _, rec := range recs[1:] {
		as = append(as, shariah.Asset{Symbol: rec[0], Name: rec[1], Type: shariah.Equity})
	}
	st := time.Now()
	tg := NewTagger(as)
	t.Logf("%d assets, build %v", len(as), time.Since(st))
	var single []string
	for _, es := range tg.names {
		for _, e := range es {
			if len(e.tokens) == 1 {
				single = append(single, e.tokens[0]+" -> "+strings.Join(e.symbols, ","))
			}
		}
	}
	sort.Strings(single)
	os.WriteFile("/tmp/single_fd.txt", []byte(strings.Join(single, "\n")), 0o644)
}
