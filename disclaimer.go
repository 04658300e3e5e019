package shariah

// Disclaimer is one entry of the disclaimer registry (GET /api/disclaimers).
type Disclaimer struct {
	ID       string `json:"id"` // screening, market_data, purification, zakat, etf_lookthrough, educational
	Version  string `json:"version"`
	Lang     string `json:"lang"`
	Severity string `json:"severity"` // religious or data
	Title    string `json:"title,omitempty"`
	Text     string `json:"text"`
	URL      string `json:"url"`
}

// DisclaimerIDs are the six disclaimers of the registry.
var DisclaimerIDs = []string{"screening", "market_data", "purification", "zakat", "etf_lookthrough", "educational"}
