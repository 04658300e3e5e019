package main

import (
	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/edge"
	"github.com/shariah-screen/shariah/ingest"
)

// eventRelevance rates 8-K items (wired to the news package's rules).
var eventRelevance func(items []string) (string, string)

// addNews wires the news feeds (filled in with the news package).
func addNews(sched *ingest.Scheduler, ic config.Ingest, ref shariah.RefStore, news shariah.NewsStore, health shariah.HealthStore) error {
	return nil
}

// newsSources lists the configured sources for /api/news/sources.
func newsSources(ic config.Ingest) []edge.NewsSourceInfo {
	feeds, _ := ic.Feeds()
	out := []edge.NewsSourceInfo{{Name: "sec-edgar-8k", URL: ic.SECDataURL, Kind: "sec"}}
	for _, f := range feeds {
		out = append(out, edge.NewsSourceInfo{Name: f.Name, URL: f.URL, Kind: "feed"})
	}
	return out
}
