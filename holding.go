package shariah

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
