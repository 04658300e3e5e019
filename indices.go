package shariah

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
