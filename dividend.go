package shariah

// Dividend is one cash dividend of a symbol.
type Dividend struct {
	Symbol  string `json:"symbol"`
	ExDate  string `json:"ex_date"`  // YYYY-MM-DD; empty for a dividend known only from a filing's period
	PayDate string `json:"pay_date"` // YYYY-MM-DD, empty when unknown
	// PeriodEnd and Ref describe a dividend per share declared in a filing (XBRL), whose ex-date the
	// filing does not give.
	PeriodEnd string `json:"period_end,omitempty"`
	Ref       string `json:"source_ref,omitempty"`
	Amount    Number `json:"amount"` // per share
	Currency  string `json:"currency"`
	Source    string `json:"source"`
}

// IndexInfo describes a stock index of the bulk-screening listing.
type IndexInfo struct {
	Name        string   `json:"index_name"` // upper case without spaces: SP500, DJIA, NASDAQ100, ...
	Description string   `json:"description"`
	Country     string   `json:"country"`
	Symbols     []string `json:"-"` // constituents (canonical symbols)
	Source      string   `json:"source"`
}

// Holding is one position of an ETF or fund.
type Holding struct {
	ETF         string  `json:"etf_symbol"`
	Symbol      string  `json:"symbol"` // canonical symbol of the holding; empty for cash and unlisted items
	Name        string  `json:"name"`
	Weight      Number  `json:"weight"` // fraction of net assets (0.1333 for 13.33%)
	Shares      *Number `json:"shares"`
	MarketValue *Number `json:"market_value"`
	AsOf        string  `json:"as_of"`
	Source      string  `json:"source"`
}

// FXRate is the value of one US dollar in a currency (units of the currency per USD), as of a date.
type FXRate struct {
	Currency string `json:"currency"` // ISO 4217
	PerUSD   Number `json:"per_usd"`
	AsOf     string `json:"as_of"`
	Source   string `json:"source"`
}

// MetalPrice is a precious-metal price in USD per troy ounce.
type MetalPrice struct {
	Metal       string `json:"metal"` // gold or silver
	USDPerOunce Number `json:"usd_per_troy_ounce"`
	AsOf        string `json:"as_of"`
	Source      string `json:"source"`
}
