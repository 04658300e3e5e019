package edge

import "github.com/shariah-screen/shariah/account"

// routeTable is every route the edge serves. The OpenAPI document lists exactly these paths (a test
// holds the two equal), and every /api route has a row in the token-cost table.
// Each group's comment names the file holding its handlers; readers shared by several groups are in
// binders.go.
func (s *Server) routeTable() []route {
	const G, P = "GET", "POST"
	rs := []route{
		// health and readiness (health.go)
		{Method: G, Path: "/api/health", Handler: s.health},
		{Method: G, Path: "/readyz", Handler: s.ready},
		// docs and metrics (docs.go; outside /api, no key)
		{Method: G, Path: "/openapi.json", Handler: s.openapiJSON},
		{Method: G, Path: "/docs", Handler: s.swaggerPage},
		{Method: G, Path: "/redoc", Handler: s.redocPage},
		{Method: G, Path: "/docs/assets/{file}", Handler: s.docsAsset},
		{Method: G, Path: "/metrics", Handler: s.metricsHandler},
		// keys (keys.go)
		{Method: P, Path: "/api/keys/generate", Handler: s.generateKey},
		{Method: P, Path: "/api/keys/revoke", Handler: s.revokeKey},
		{Method: G, Path: "/api/keys/plans", Auth: authHeader, Handler: s.listPlans},
		{Method: G, Path: "/api/keys/token-costs", Auth: authHeader, Handler: s.tokenCosts},
		// account: the calling key's usage and regeneration (account.go)
		{Method: G, Path: "/api/auth/me", Auth: authHeader, Handler: s.me},
		{Method: G, Path: "/api/auth/me/usage/daily", Auth: authHeader, Handler: s.usageDaily},
		{Method: G, Path: "/api/auth/me/usage/recent", Auth: authHeader, Handler: s.usageRecent},
		{Method: G, Path: "/api/auth/me/usage/routes", Auth: authHeader, Handler: s.usageRoutes}, // analytics.go
		{Method: P, Path: "/api/auth/me/regenerate", Auth: authHeader, Handler: s.regenerate},
		// account, deprecated key-in-path routes: same behaviour as their successors (account.go)
		{Method: G, Path: "/api/keys/{api_key}/usage", Auth: authPathKey, Handler: s.me, Successor: "/api/auth/me"},
		{Method: G, Path: "/api/keys/{api_key}/usage/daily", Auth: authPathKey, Handler: s.usageDaily, Successor: "/api/auth/me/usage/daily"},
		{Method: G, Path: "/api/keys/{api_key}/usage/recent", Auth: authPathKey, Handler: s.usageRecent, Successor: "/api/auth/me/usage/recent"},
		{Method: P, Path: "/api/keys/{api_key}/regenerate", Auth: authPathKey, Handler: s.regenerate, Successor: "/api/auth/me/regenerate"},
		// usage analytics, operator keys only (analytics.go)
		{Method: G, Path: "/api/analytics/usage", Auth: authHeader, Handler: s.analyticsUsage},
		{Method: G, Path: "/api/analytics/routes", Auth: authHeader, Handler: s.analyticsRoutes},
		{Method: G, Path: "/api/analytics/top-keys", Auth: authHeader, Handler: s.analyticsTopKeys},
		{Method: G, Path: "/api/analytics/quota-events", Auth: authHeader, Handler: s.analyticsQuotaEvents},
		// database: search, suggestions, records, canonical symbols (database.go)
		{Method: G, Path: "/api/database/search", Auth: authHeader, Handler: s.databaseSearch},
		{Method: G, Path: "/api/suggest", Auth: authHeader, Handler: s.suggest},
		{Method: G, Path: "/api/database/stock/{symbol}", Auth: authHeader, Handler: s.databaseStock},
		{Method: G, Path: "/api/database/stats", Auth: authHeader, Handler: s.databaseStats},
		// market data: quotes, OHLC, trending, FX (market.go)
		{Method: G, Path: "/api/quote/{symbol}", Auth: authHeader, Handler: s.quote},
		{Method: P, Path: "/api/quotes/batch", Auth: authHeader, Handler: s.quotesBatch},
		{Method: G, Path: "/api/ohlc/{symbol}", Auth: authHeader, Handler: s.ohlc},
		{Method: G, Path: "/api/trending", Auth: authHeader, Handler: s.trending},
		{Method: G, Path: "/api/asset/{symbol}/full", Auth: authHeader, Handler: s.assetFull},
		{Method: G, Path: "/api/fx", Auth: authHeader, Handler: s.fx},
		{Method: P, Path: "/api/symbols/canonical", Auth: authHeader, Handler: s.canonical},
		// screening (screening.go)
		{Method: G, Path: "/api/screen/{symbol}", Auth: authHeader, Handler: s.screen, Fresh: s.screenFresh},
		{Method: P, Path: "/api/screen/{symbol}", Auth: authHeader, Handler: s.screen, Fresh: s.screenFresh},
		{Method: G, Path: "/api/result/{symbol}", Auth: authHeader, Handler: s.result},
		{Method: G, Path: "/api/results", Auth: authHeader, Handler: s.results},
		{Method: G, Path: "/api/results/updates", Auth: authHeader, Handler: s.resultsUpdates},
		{Method: G, Path: "/api/changes", Auth: authHeader, Handler: s.changes}, // the verdict change feed (changes.go)
		{Method: P, Path: "/api/portfolio/scan", Auth: authHeader, Handler: s.portfolioScan},
		{Method: P, Path: "/api/compare", Auth: authHeader, Handler: s.compare},
		// reports and CSV export (reports.go)
		{Method: G, Path: "/api/reports/screening/{symbol}", Auth: authHeader, Handler: s.screeningReport},
		{Method: P, Path: "/api/reports/portfolio", Auth: authHeader, Handler: s.portfolioReport},
		{Method: G, Path: "/api/reports/export/csv", Auth: authHeader, Handler: s.exportCSV},
		// education and disclaimers (education.go; disclaimers need no key)
		{Method: G, Path: "/api/education/glossary", Auth: authHeader, Handler: s.glossary},
		{Method: G, Path: "/api/education/methodologies", Auth: authHeader, Handler: s.methodologies},
		{Method: G, Path: "/api/education/methodologies/{name}", Auth: authHeader, Handler: s.methodologyDetail},
		{Method: G, Path: "/api/education/screening-criteria", Auth: authHeader, Handler: s.screeningCriteria},
		{Method: G, Path: "/api/education/purification", Auth: authHeader, Handler: s.purificationGuide},
		{Method: G, Path: "/api/disclaimers", Handler: s.disclaimers},
		{Method: G, Path: "/api/disclaimers/{disclaimer_id}", Handler: s.disclaimer},
		{Method: G, Path: "/legal/disclaimers", Handler: s.legalPage},
		// bulk runs (bulk.go)
		{Method: G, Path: "/api/screen-bulk/indices", Auth: authHeader, Handler: s.bulkIndices},
		{Method: G, Path: "/api/screen-bulk/status", Auth: authHeader, Handler: s.bulkStatus},
		{Method: G, Path: "/api/screen-bulk/runs", Auth: authHeader, Handler: s.bulkRuns},
		{Method: G, Path: "/api/screen-bulk/compare", Auth: authHeader, Handler: s.bulkCompare},
		{Method: P, Path: "/api/screen-bulk", Auth: authHeader, Handler: s.startBulk},
		{Method: P, Path: "/api/screen-bulk/{run_id}/cancel", Auth: authHeader, Handler: s.bulkCancel},
		{Method: G, Path: "/api/screen-bulk/{run_id}/results", Auth: authHeader, Handler: s.bulkResults},
		{Method: G, Path: "/api/screen-bulk/{run_id}/summary", Auth: authHeader, Handler: s.bulkSummary},
		{Method: G, Path: "/api/screen-bulk/{run_id}/export/csv", Auth: authHeader, Handler: s.bulkExportCSV},
		{Method: G, Path: "/api/screen-bulk/{run_id}/export/json", Auth: authHeader, Handler: s.bulkExportJSON},
		{Method: "DELETE", Path: "/api/screen-bulk/{run_id}", Auth: authHeader, Handler: s.bulkDelete},
		{Method: G, Path: "/api/screen-bulk/source-health", Auth: authHeader, Handler: s.sourceHealth},
		// ETFs (etf.go)
		{Method: G, Path: "/api/etf/{symbol}/holdings", Auth: authHeader, Handler: s.etfHoldings},
		{Method: G, Path: "/api/etf/{symbol}/info", Auth: authHeader, Handler: s.etfInfo},
		{Method: G, Path: "/api/etf/{symbol}/screening", Auth: authHeader, Handler: s.etfScreening},
		{Method: P, Path: "/api/etf/{symbol}/screen", Auth: authHeader, Handler: s.etfScreen},
		{Method: P, Path: "/api/etf/{symbol}/purification", Auth: authHeader, Handler: s.etfPurification},
		{Method: P, Path: "/api/etf/compare", Auth: authHeader, Handler: s.etfCompare},
		{Method: P, Path: "/api/etf/screen-bulk", Auth: authHeader, Handler: s.etfScreenBulk},
		{Method: G, Path: "/api/etf/directory", Auth: authHeader, Handler: s.etfDirectory},
		// watchlists, the calling key's user's (watchlists.go)
		{Method: G, Path: "/api/watchlists", Auth: authHeader, Handler: s.listWatchlists},
		{Method: P, Path: "/api/watchlists", Auth: authHeader, Handler: s.createWatchlist},
		{Method: G, Path: "/api/watchlists/{watchlist_id}", Auth: authHeader, Handler: s.getWatchlist},
		{Method: "DELETE", Path: "/api/watchlists/{watchlist_id}", Auth: authHeader, Handler: s.deleteWatchlist},
		{Method: P, Path: "/api/watchlists/{watchlist_id}/symbols", Auth: authHeader, Handler: s.addWatchlistSymbol},
		{Method: "DELETE", Path: "/api/watchlists/{watchlist_id}/symbols/{symbol}", Auth: authHeader, Handler: s.removeWatchlistSymbol},
		// webhooks, the calling key's user's; not on the Free plan (webhooks.go)
		{Method: G, Path: "/api/webhooks", Auth: authHeader, Handler: s.listWebhooks},
		{Method: P, Path: "/api/webhooks", Auth: authHeader, Handler: s.createWebhook},
		{Method: G, Path: "/api/webhooks/{webhook_id}", Auth: authHeader, Handler: s.getWebhook},
		{Method: "DELETE", Path: "/api/webhooks/{webhook_id}", Auth: authHeader, Handler: s.deleteWebhook},
		{Method: P, Path: "/api/webhooks/{webhook_id}/rotate-secret", Auth: authHeader, Handler: s.rotateWebhookSecret},
		{Method: P, Path: "/api/webhooks/{webhook_id}/test", Auth: authHeader, Handler: s.testWebhook},
		{Method: G, Path: "/api/webhooks/{webhook_id}/deliveries", Auth: authHeader, Handler: s.webhookDeliveries},
		{Method: P, Path: "/api/webhooks/{webhook_id}/deliveries/{delivery_id}/replay", Auth: authHeader, Handler: s.replayWebhookDelivery},
		// sukuk (sukuk.go)
		{Method: G, Path: "/api/sukuk/search", Auth: authHeader, Handler: s.sukukSearch},
		{Method: G, Path: "/api/sukuk/issuer/{lei}", Auth: authHeader, Handler: s.sukukByIssuer},
		{Method: P, Path: "/api/sukuk/portfolio-impact", Auth: authHeader, Handler: s.sukukImpact},
		{Method: G, Path: "/api/sukuk/{isin}", Auth: authHeader, Handler: s.sukukByISIN},
		// billing (billing.go; exempt from the key requirement and free; checkout and portal name the key in X-API-Key)
		{Method: P, Path: "/api/billing/checkout", Handler: s.checkout},
		{Method: P, Path: "/api/billing/portal", Handler: s.portal},
		{Method: P, Path: "/api/billing/webhook", Handler: s.webhook},
		// calculators (calculators.go)
		{Method: P, Path: "/api/zakat/calculate", Auth: authHeader, Handler: s.zakatCalculate},
		{Method: P, Path: "/api/purification/calculate", Auth: authHeader, Handler: s.purificationCalculate},
		// the terminal agent (agent.go)
		{Method: P, Path: "/api/terminal/agent", Auth: authHeader, Handler: s.terminalAgent},
		// news (news.go)
		{Method: G, Path: "/api/news", Auth: authHeader, Handler: s.news},
		{Method: G, Path: "/api/news/sources", Auth: authHeader, Handler: s.newsSources},
		{Method: G, Path: "/api/news/{symbol}", Auth: authHeader, Handler: s.symbolNews},
		// filings (filings.go)
		{Method: G, Path: "/api/filings/{symbol}", Auth: authHeader, Handler: s.filings},
		{Method: G, Path: "/api/filings/{symbol}/events", Auth: authHeader, Handler: s.filingEvents},
		{Method: G, Path: "/api/filings/{symbol}/facts", Auth: authHeader, Handler: s.filingFacts},
		{Method: G, Path: "/api/filings/{symbol}/provenance", Auth: authHeader, Handler: s.filingProvenance},
		// dividends and their purification (dividends.go)
		{Method: G, Path: "/api/dividends/{symbol}", Auth: authHeader, Handler: s.dividends},
		{Method: G, Path: "/api/dividends/{symbol}/purification", Auth: authHeader, Handler: s.dividendPurification},
		{Method: G, Path: "/api/dividends/{symbol}/purification-rate", Auth: authHeader, Handler: s.purificationRate},
		// insights (insights.go)
		{Method: G, Path: "/api/insights/{symbol}/trajectory", Auth: authHeader, Handler: s.trajectory},
		{Method: G, Path: "/api/insights/{symbol}/alternatives", Auth: authHeader, Handler: s.alternatives},
		{Method: G, Path: "/api/insights/{symbol}/peer-percentiles", Auth: authHeader, Handler: s.peerPercentiles},
		{Method: G, Path: "/api/insights/{symbol}/cashflow", Auth: authHeader, Handler: s.cashflow},
		{Method: G, Path: "/api/insights/{symbol}/staleness", Auth: authHeader, Handler: s.staleness},
		// trajectory analytics over an index or a watchlist (insights.go)
		{Method: G, Path: "/api/insights/drift", Auth: authHeader, Handler: s.drift},
		{Method: G, Path: "/api/insights/sector-medians", Auth: authHeader, Handler: s.sectorMedians},
		// pictures: no key, embeddable anywhere; stored data only (pictures.go)
		{Method: G, Path: "/api/badge/{symbol}.svg", Handler: s.badge},
		{Method: G, Path: "/api/insights/{symbol}/trajectory.svg", Handler: s.trajectorySVG},
		// the dashboard page and its embedded assets; the page asks for a key (dashboard.go)
		{Method: G, Path: "/dashboard", Handler: s.dashboardPage},
		{Method: G, Path: "/dashboard/assets/{file}", Handler: s.dashboardAsset},
	}
	if s.BenchRoutes {
		// Load-test pair (health.go): the same constant body, bare and through the full key + meter path (1 token).
		rs = append(rs,
			route{Method: G, Path: "/bench/constant", Handler: s.benchConstant},
			route{Method: G, Path: "/bench/sized", Handler: benchSized},
			route{Method: G, Path: "/bench/metered", Auth: authHeader, Handler: s.benchConstant,
				cost: account.TokenCost{Method: G, Path: "/bench/metered", Tokens: 1, Class: account.CostLightweight}})
	}
	return rs
}
