package account

import "encoding/json"

// TokenCost is the price of one route in tokens. The edge reads this one table to charge requests and
// GET /api/keys/token-costs serves it, so what is published is what is charged.
type TokenCost struct {
	Method string `json:"method"`
	Path   string `json:"path"`   // route template in OpenAPI syntax ({symbol})
	Tokens int    `json:"tokens"` // base cost; 0 for free routes
	// PerItem, when set, charges this many tokens per requested item (symbols of a batch, holdings of a
	// sukuk sleeve), capped at Max.
	PerItem int `json:"per_item,omitempty"`
	Max     int `json:"max,omitempty"`
	// Fresh is the cost when the request forces a fresh computation (force_refresh=true).
	Fresh int    `json:"fresh,omitempty"`
	Class string `json:"class"` // free, lightweight, standard, screening, heavy
}

// Charge returns the cost of one request: items is the number of symbols of a batch request (ignored
// unless PerItem is set), fresh whether it forces a fresh computation.
func (c TokenCost) Charge(items int, fresh bool) int {
	if c.PerItem > 0 {
		n := c.PerItem * items
		if n < c.Tokens {
			n = c.Tokens
		}
		if c.Max > 0 && n > c.Max {
			n = c.Max
		}
		return n
	}
	if fresh && c.Fresh > 0 {
		return c.Fresh
	}
	return c.Tokens
}

// TokenCosts is the cost table, one entry per route.
type TokenCosts []TokenCost

// Lookup returns the entry of a route.
func (t TokenCosts) Lookup(method, path string) (TokenCost, bool) {
	for _, c := range t {
		if c.Method == method && c.Path == path {
			return c, true
		}
	}
	return TokenCost{}, false
}

// Cost classes: what a route costs in tokens (DefaultTokenCosts).
const (
	CostFree        = "free"
	CostLightweight = "lightweight"
	CostStandard    = "standard"
	CostScreening   = "screening"
	CostHeavy       = "heavy"
)

func free(m, p string) TokenCost { return TokenCost{Method: m, Path: p, Class: CostFree} }
func light(m, p string) TokenCost {
	return TokenCost{Method: m, Path: p, Tokens: 1, Class: CostLightweight}
}
func std(m, p string) TokenCost { return TokenCost{Method: m, Path: p, Tokens: 2, Class: CostStandard} }
func screen(m, p string) TokenCost {
	return TokenCost{Method: m, Path: p, Tokens: 5, Fresh: 10, Class: CostScreening}
}
func perSymbol(m, p string) TokenCost {
	return TokenCost{Method: m, Path: p, Tokens: 2, PerItem: 2, Max: 50, Class: CostStandard}
}
func indexWide(m, p string) TokenCost {
	return TokenCost{Method: m, Path: p, Tokens: 5, Class: CostStandard}
}
func heavy(m, p string) TokenCost { return TokenCost{Method: m, Path: p, Tokens: 50, Class: CostHeavy} }

// DefaultTokenCosts is the token-cost table for every route of the API:
// 0 for health, education, disclaimers, keys, billing, auth/me and the pictures (badge, trajectory SVG); 1 for lightweight reads (search,
// suggest, news, watchlists, listings); 2 for standard reads (quotes, OHLC, cached results, records);
// 5 for a cached screen and 10 for a fresh one; 5 for the index-wide trajectory analytics; 2 per symbol for batches, capped at 50; 50 for a bulk
// index run or an ETF screen.
func DefaultTokenCosts() TokenCosts {
	const G, P, D = "GET", "POST", "DELETE"
	return TokenCosts{
		free(G, "/api/health"),
		// keys and account
		free(P, "/api/keys/generate"), free(P, "/api/keys/revoke"),
		free(G, "/api/keys/plans"), free(G, "/api/keys/token-costs"),
		free(G, "/api/auth/me"), free(G, "/api/auth/me/usage/daily"), free(G, "/api/auth/me/usage/recent"),
		free(G, "/api/auth/me/usage/routes"),
		free(P, "/api/auth/me/regenerate"),
		free(G, "/api/keys/{api_key}/usage"), free(G, "/api/keys/{api_key}/usage/daily"),
		free(G, "/api/keys/{api_key}/usage/recent"), free(P, "/api/keys/{api_key}/regenerate"),
		// usage analytics (operator keys; read from aggregates)
		std(G, "/api/analytics/usage"), std(G, "/api/analytics/routes"), std(G, "/api/analytics/top-keys"),
		std(G, "/api/analytics/quota-events"),
		// billing
		free(P, "/api/billing/checkout"), free(P, "/api/billing/portal"), free(P, "/api/billing/webhook"),
		// education and disclaimers
		free(G, "/api/education/glossary"), free(G, "/api/education/methodologies"),
		free(G, "/api/education/methodologies/{name}"), free(G, "/api/education/screening-criteria"),
		free(G, "/api/education/purification"),
		free(G, "/api/disclaimers"), free(G, "/api/disclaimers/{disclaimer_id}"),
		// database and market data
		light(G, "/api/suggest"), light(G, "/api/database/search"), light(G, "/api/database/stats"),
		std(G, "/api/database/stock/{symbol}"),
		std(G, "/api/quote/{symbol}"), std(G, "/api/ohlc/{symbol}"), perSymbol(P, "/api/quotes/batch"),
		screen(G, "/api/asset/{symbol}/full"), std(G, "/api/trending"),
		light(G, "/api/fx"), light(P, "/api/symbols/canonical"),
		// screening
		screen(G, "/api/screen/{symbol}"), screen(P, "/api/screen/{symbol}"),
		std(G, "/api/result/{symbol}"), std(G, "/api/results"), std(G, "/api/results/updates"),
		std(G, "/api/changes"), // the verdict change feed: a page of up to 500 changes, priced as a results read
		perSymbol(P, "/api/portfolio/scan"), perSymbol(P, "/api/compare"),
		std(G, "/api/reports/screening/{symbol}"), perSymbol(P, "/api/reports/portfolio"),
		std(G, "/api/reports/export/csv"),
		// bulk runs
		light(G, "/api/screen-bulk/indices"), light(G, "/api/screen-bulk/status"), light(G, "/api/screen-bulk/runs"),
		std(G, "/api/screen-bulk/compare"), heavy(P, "/api/screen-bulk"),
		light(P, "/api/screen-bulk/{run_id}/cancel"), std(G, "/api/screen-bulk/{run_id}/results"),
		std(G, "/api/screen-bulk/{run_id}/summary"), std(G, "/api/screen-bulk/{run_id}/export/csv"),
		std(G, "/api/screen-bulk/{run_id}/export/json"), light(D, "/api/screen-bulk/{run_id}"),
		light(G, "/api/screen-bulk/source-health"),
		// ETFs
		std(G, "/api/etf/{symbol}/holdings"), std(G, "/api/etf/{symbol}/info"), std(G, "/api/etf/{symbol}/screening"),
		heavy(P, "/api/etf/{symbol}/screen"), std(P, "/api/etf/{symbol}/purification"),
		perSymbol(P, "/api/etf/compare"), heavy(P, "/api/etf/screen-bulk"), light(G, "/api/etf/directory"),
		// news, filings, dividends
		light(G, "/api/news"), light(G, "/api/news/sources"), light(G, "/api/news/{symbol}"),
		std(G, "/api/filings/{symbol}"), std(G, "/api/filings/{symbol}/events"), std(G, "/api/filings/{symbol}/facts"),
		std(G, "/api/filings/{symbol}/provenance"),
		std(G, "/api/dividends/{symbol}"), std(G, "/api/dividends/{symbol}/purification"),
		std(G, "/api/dividends/{symbol}/purification-rate"),
		// calculators
		std(P, "/api/purification/calculate"), std(P, "/api/zakat/calculate"),
		// insights
		std(G, "/api/insights/{symbol}/alternatives"), std(G, "/api/insights/{symbol}/staleness"),
		std(G, "/api/insights/{symbol}/trajectory"), std(G, "/api/insights/{symbol}/peer-percentiles"),
		std(G, "/api/insights/{symbol}/cashflow"),
		// trajectory analytics read a whole index's filed quarters in one query: priced as a cached screening
		indexWide(G, "/api/insights/drift"), indexWide(G, "/api/insights/sector-medians"),
		// pictures: no key (embedded in other pages), stored data only
		free(G, "/api/badge/{symbol}.svg"), free(G, "/api/insights/{symbol}/trajectory.svg"),
		std(P, "/api/terminal/agent"),
		// watchlists
		light(G, "/api/watchlists"), light(P, "/api/watchlists"), light(G, "/api/watchlists/{watchlist_id}"),
		light(D, "/api/watchlists/{watchlist_id}"), light(P, "/api/watchlists/{watchlist_id}/symbols"),
		light(D, "/api/watchlists/{watchlist_id}/symbols/{symbol}"),
		// webhooks (the Free plan has none: 403, refunded); a test sends one event while the caller waits
		light(G, "/api/webhooks"), std(P, "/api/webhooks"), light(G, "/api/webhooks/{webhook_id}"),
		light(D, "/api/webhooks/{webhook_id}"), light(P, "/api/webhooks/{webhook_id}/rotate-secret"),
		std(P, "/api/webhooks/{webhook_id}/test"), light(G, "/api/webhooks/{webhook_id}/deliveries"),
		light(P, "/api/webhooks/{webhook_id}/deliveries/{delivery_id}/replay"),
		// sukuk
		light(G, "/api/sukuk/search"), std(G, "/api/sukuk/{isin}"), std(G, "/api/sukuk/issuer/{lei}"),
		perSymbol(P, "/api/sukuk/portfolio-impact"),
	}
}

// BatchItems counts what a per-item route charges for in a request body: the symbols of a batch and the
// holdings of a sleeve (a body that does not parse counts none; its handler refuses it and it is refunded).
func BatchItems(body []byte) int {
	var b struct {
		Symbols  []json.RawMessage `json:"symbols"`
		Holdings []json.RawMessage `json:"holdings"`
	}
	_ = json.Unmarshal(body, &b)
	return len(b.Symbols) + len(b.Holdings)
}
