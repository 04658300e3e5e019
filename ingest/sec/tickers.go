package sec

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/shariah-screen/shariah"
)

// Ticker is one row of EDGAR's company_tickers.json: the map from exchange tickers to CIKs that the
// SEC publishes, used to resolve a symbol before fetching its submissions and companyfacts.
type Ticker struct {
	Symbol string // canonical: upper case, share-class dot as a dash (BRK-B)
	CIK    string // zero-padded to 10 digits
	Name   string // EDGAR conformed name
	Row    int    // the row's place in the file, which lists each company's primary listing first
}

// NormalizeTicker writes an EDGAR ticker in the project's canonical symbol form (upper case, "BRK.B"
// as "BRK-B").
func NormalizeTicker(t string) string {
	return strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(t)), ".", "-")
}

// ParseCompanyTickers decodes company_tickers.json ({"0": {"cik_str": 320193, "ticker": "AAPL",
// "title": "Apple Inc."}, ...}) into tickers sorted by symbol. The file lists the largest companies
// first, so when a symbol repeats the row with the lowest index is kept. Rows whose ticker is not a
// plausible symbol are skipped (they could never be looked up); a bad CIK is an error.
func ParseCompanyTickers(b []byte) ([]Ticker, error) {
	var raw map[string]struct {
		CIK    json.Number `json:"cik_str"`
		Ticker string      `json:"ticker"`
		Title  string      `json:"title"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("company tickers: %w", err)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { // numeric order of "0", "1", ..., "10"
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	seen := map[string]bool{}
	var out []Ticker
	for row, k := range keys {
		r := raw[k]
		sym, ok := shariah.NormalizeSymbol(NormalizeTicker(r.Ticker))
		if !ok || seen[sym] {
			continue
		}
		cik, err := PadCIK(r.CIK.String())
		if err != nil {
			return nil, fmt.Errorf("company tickers %s (%s): %w", k, r.Ticker, err)
		}
		seen[sym] = true
		out = append(out, Ticker{Symbol: sym, CIK: cik, Name: r.Title, Row: row})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Symbol < out[j].Symbol })
	return out, nil
}
