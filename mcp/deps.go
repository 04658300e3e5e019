package mcp

import (
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/education"
	"github.com/shariah-screen/shariah/etf"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/finance"
	"github.com/shariah-screen/shariah/insights"
	"github.com/shariah-screen/shariah/market"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/sukuk"
)

// Deps are the domain services the MCP tools and resources use (the REST API's own).
type Deps struct {
	Education  *education.Registry
	Plans      account.Plans
	Costs      account.TokenCosts
	Bulk       *bulk.Service
	ETFs       *etf.Service
	Screener   *screening.Screener
	Ref        market.RefReader
	Catalogs   *catalog.Cache
	Insights   *insights.Service
	Watchlists *account.Watchlists
	News       filings.NewsStore
	Filings    filings.Store
	Trajectory insights.TrajectoryStore
	SukukStore sukuk.Store
	SukukRules *sukuk.Rules
	Auth       *Auth // HTTP key requirement and metering (nil: none)
	// The process's shared services, composed once (app.Compose) and the REST edge's own.
	Trajectories *insights.TrajectoryAnalytics
	Changes      *screening.ChangeFeed // the verdict change feed
	Zakat        *finance.Zakat
	Purifier     *finance.Purifier
	// EventRelevance rates 8-K items (news.RelevanceFor8K), for staleness.
	EventRelevance func(items []string) (string, string)
}
