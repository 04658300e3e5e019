package mcp

import (
	shariah "github.com/shariah-screen/shariah"
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

// withDefaults builds, once, the shared services Deps was given without (tests that build a partial server).
func (d Deps) withDefaults() Deps {
	var disclaimers func(ids ...string) []shariah.Disclaimer
	if d.Education != nil {
		disclaimers = d.Education.DisclaimersFor
	}
	if d.Zakat == nil {
		d.Zakat = &finance.Zakat{Ref: d.Ref, Disclaimers: disclaimers}
	}
	if d.Purifier == nil {
		d.Purifier = &finance.Purifier{Ref: d.Ref, Screener: d.Screener, Disclaimers: disclaimers}
	}
	if log, ok := d.screenerResults().(screening.ChangeLog); ok && d.Changes == nil {
		d.Changes = &screening.ChangeFeed{Log: log, Indices: d.Ref}
		if d.Watchlists != nil {
			d.Changes.Watchlists = d.Watchlists.Store
		}
	}
	if d.Trajectories == nil && d.Screener != nil {
		d.Trajectories = &insights.TrajectoryAnalytics{Ref: d.Ref, Trajectory: d.Trajectory, Rulesets: d.Screener.Rulesets}
		if d.Watchlists != nil {
			d.Trajectories.Watchlists = d.Watchlists.Store
		}
	}
	return d
}

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
	// The process's shared services, composed once by cmd/shariah (the REST edge's own); nil: built once
	// by New over the fields above.
	Trajectories *insights.TrajectoryAnalytics
	Changes      *screening.ChangeFeed // the verdict change feed; nil: over the screener's result store when it keeps one
	Zakat        *finance.Zakat
	Purifier     *finance.Purifier
	// EventRelevance rates 8-K items (news.RelevanceFor8K), for staleness.
	EventRelevance func(items []string) (string, string)
}

// screenerResults is the screener's result store (nil without a screener).
func (d Deps) screenerResults() screening.ResultStore {
	if d.Screener == nil {
		return nil
	}
	return d.Screener.Results
}
