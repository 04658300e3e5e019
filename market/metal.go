package market

import "github.com/shariah-screen/shariah"

// MetalPrice is a precious-metal price in USD per troy ounce.
type MetalPrice struct {
	Metal       string         `json:"metal"` // gold or silver
	USDPerOunce shariah.Number `json:"usd_per_troy_ounce"`
	AsOf        string         `json:"as_of"`
	Source      string         `json:"source"`
}
