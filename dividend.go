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
