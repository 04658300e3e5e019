package market

import "github.com/shariah-screen/shariah"

// FXRate is the value of one US dollar in a currency (units of the currency per USD), as of a date.
type FXRate struct {
	Currency string         `json:"currency"` // ISO 4217
	PerUSD   shariah.Number `json:"per_usd"`
	AsOf     string         `json:"as_of"`
	Source   string         `json:"source"`
}
