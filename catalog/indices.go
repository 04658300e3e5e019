package catalog

import (
	"context"
	"sort"
	"strings"
)

// KnownIndex is one of the indices offered for bulk screening: its canonical
// name, description, country, Yahoo symbol and usual constituent count.
type KnownIndex struct {
	Name        string
	Description string
	Country     string
	Yahoo       string
	Estimated   int
}

// KnownIndices are the about 21 indices of the bulk-screening listing, in display order.
var KnownIndices = []KnownIndex{
	{"SP500", "S&P 500: 500 leading US large caps", "United States", "^GSPC", 503},
	{"DJIA", "Dow Jones Industrial Average: 30 US blue chips", "United States", "^DJI", 30},
	{"NASDAQ100", "Nasdaq-100: the 100 largest non-financial Nasdaq listings", "United States", "^NDX", 101},
	{"SP100", "S&P 100: the largest S&P 500 companies", "United States", "^OEX", 101},
	{"FTSE100", "FTSE 100: the 100 largest London Stock Exchange companies", "United Kingdom", "^FTSE", 100},
	{"DAX40", "DAX 40: the 40 largest Frankfurt Stock Exchange companies", "Germany", "^GDAXI", 40},
	{"MDAX", "MDAX: 50 German mid caps below the DAX", "Germany", "^MDAXI", 50},
	{"TECDAX", "TecDAX: the 30 largest German technology companies", "Germany", "^TECDAX", 30},
	{"CAC40", "CAC 40: 40 leading Euronext Paris companies", "France", "^FCHI", 40},
	{"EUROSTOXX50", "EURO STOXX 50: 50 eurozone blue chips", "Eurozone", "^STOXX50E", 50},
	{"FTSEMIB", "FTSE MIB: 40 leading Borsa Italiana companies", "Italy", "FTSEMIB.MI", 40},
	{"IBEX35", "IBEX 35: 35 most liquid Spanish companies", "Spain", "^IBEX", 35},
	{"AEX", "AEX: 25 leading Euronext Amsterdam companies", "Netherlands", "^AEX", 25},
	{"SMI", "Swiss Market Index: 20 largest Swiss companies", "Switzerland", "^SSMI", 20},
	{"OMXS30", "OMX Stockholm 30: 30 most traded Stockholm shares", "Sweden", "^OMX", 30},
	{"BEL20", "BEL 20: 20 leading Euronext Brussels companies", "Belgium", "^BFX", 20},
	{"NIKKEI225", "Nikkei 225: 225 Tokyo Stock Exchange Prime companies", "Japan", "^N225", 225},
	{"HANGSENG", "Hang Seng Index: the largest Hong Kong listings", "Hong Kong", "^HSI", 82},
	{"CSI300", "CSI 300: 300 largest Shanghai and Shenzhen A shares", "China", "000300.SS", 300},
	{"NIFTY50", "NIFTY 50: 50 largest National Stock Exchange of India companies", "India", "^NSEI", 50},
	{"TASI", "Tadawul All Share Index: the Saudi Exchange main market", "Saudi Arabia", "^TASI.SR", 250},
}

// LookupIndex finds a known index by canonical name.
func LookupIndex(name string) (KnownIndex, bool) {
	for _, k := range KnownIndices {
		if k.Name == name {
			return k, true
		}
	}
	return KnownIndex{}, false
}

// IndexInfo describes a stock index of the bulk-screening listing.
type IndexInfo struct {
	Name        string   `json:"index_name"` // upper case without spaces: SP500, DJIA, NASDAQ100, ...
	Description string   `json:"description"`
	Country     string   `json:"country"`
	Symbols     []string `json:"-"` // constituents (canonical symbols)
	Source      string   `json:"source"`
}

// IndexListing is one index of GET /api/screen-bulk/indices.
type IndexListing struct {
	Name string `json:"index_name"`
	// DisplayName repeats index_name as "name", the field the ecosystem's clients read.
	DisplayName      string `json:"name"`
	Description      string `json:"description"`
	Country          string `json:"country"`
	EstimatedTickers int    `json:"estimated_tickers"`
	LoadedTickers    int    `json:"loaded_tickers"` // constituents in the loaded data (what a run screens)
	Source           string `json:"source,omitempty"`
}

// IndexSource is what the index listing reads of the reference store: the stored indices.
type IndexSource interface {
	Indices(ctx context.Context) ([]IndexInfo, error) // with Symbols filled
}

// ListIndices lists the known indices and any a data pack defined, with their loaded constituents by
// name: what a bulk run screens and what the trajectory analytics read.
func ListIndices(ctx context.Context, ref IndexSource) ([]IndexListing, map[string][]string, error) {
	stored, err := ref.Indices(ctx)
	if err != nil {
		return nil, nil, err
	}
	members := map[string][]string{}
	byName := map[string]IndexInfo{}
	for _, ix := range stored {
		members[ix.Name] = ix.Symbols
		byName[ix.Name] = ix
	}
	var out []IndexListing
	seen := map[string]bool{}
	for _, k := range KnownIndices {
		seen[k.Name] = true
		l := IndexListing{Name: k.Name, DisplayName: k.Name, Description: k.Description, Country: k.Country, EstimatedTickers: k.Estimated, LoadedTickers: len(members[k.Name])}
		if ix, ok := byName[k.Name]; ok {
			l.Source = ix.Source
		}
		out = append(out, l)
	}
	var extra []string
	for name := range byName {
		if !seen[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		ix := byName[name]
		out = append(out, IndexListing{Name: name, DisplayName: name, Description: ix.Description, Country: ix.Country, EstimatedTickers: len(ix.Symbols),
			LoadedTickers: len(ix.Symbols), Source: ix.Source})
	}
	return out, members, nil
}

// NormalizeIndexName is the canonical form of an index name as clients write it ("sp 500" is SP500).
func NormalizeIndexName(s string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
}

// UnknownIndexMessage is the field message of an index name not in the listing, naming the valid ones.
func UnknownIndexMessage(listing []IndexListing) string {
	names := make([]string, 0, len(listing))
	for _, l := range listing {
		names = append(names, l.Name)
	}
	return "unknown index; valid: " + strings.Join(names, ", ")
}
