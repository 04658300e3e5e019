package main

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/ingest"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/ingest/news"
)

// addNews schedules each configured feed as its own source, "news:<name>", with its own health. Feeds
// on SEC hosts (the default press-release feed) share secLimiter, the one limit of every request the
// process sends to the SEC; other feeds have their own.
func addNews(sched *ingest.Scheduler, ic config.Ingest, ref news.AssetSource, store filings.NewsStore, secLimiter *rate.Limiter) error {
	feeds, err := ic.Feeds()
	if err != nil {
		return err
	}
	client := &httpx.Client{HTTP: &http.Client{Timeout: 30 * time.Second}, UserAgent: newsUserAgent(ic), Limiter: rate.NewLimiter(2, 1)}
	secClient := &httpx.Client{HTTP: &http.Client{Timeout: 30 * time.Second}, UserAgent: newsUserAgent(ic), Limiter: secLimiter}
	tags := &news.TaggerCache{Ref: ref}
	for _, f := range feeds {
		c := client
		if onSEC(f.URL) && secLimiter != nil {
			c = secClient
		}
		feed := &news.Feed{Name: f.Name, URL: f.URL, HTTP: c, News: store, Tags: tags}
		if err := sched.Add(ingest.Source{Name: "news:" + f.Name, Schedule: ic.NewsSchedule, Timeout: 2 * time.Minute, Retries: 2, Run: feed.Run}); err != nil {
			return err
		}
	}
	return nil
}

// onSEC reports a URL on an SEC host (sec.gov, www.sec.gov, data.sec.gov).
func onSEC(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return h == "sec.gov" || strings.HasSuffix(h, ".sec.gov")
}

// newsUserAgent names the service and, when configured, the SEC contact (www.sec.gov feeds insist on one).
func newsUserAgent(ic config.Ingest) string {
	if ic.SECUserAgent != "" {
		return ic.SECUserAgent
	}
	return "shariah-screen news"
}
