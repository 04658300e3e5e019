package main

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/oklog/run"
	"golang.org/x/time/rate"

	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/ingest"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/ingest/nport"
	"github.com/shariah-screen/shariah/ingest/prices"
	"github.com/shariah-screen/shariah/ingest/sec"
	sredis "github.com/shariah-screen/shariah/redis"
)

// addIngest wires the ingest sources (SEC EDGAR, prices, news) on the scheduler.
func (e *env) addIngest(g *run.Group) error {
	rc, err := sredis.Open(e.cfg.RedisURL)
	if err != nil {
		return err
	}
	db, err := analytics.Open(e.cfg.ClickHouseURL)
	if err != nil {
		return err
	}
	ref := sredis.NewRefStore(rc)
	store := sredis.NewIngestStore(rc)
	newsStore := sredis.NewNewsStore(rc)
	sched := ingest.NewScheduler(store, e.log)
	ic := e.cfg.Ingest
	ua := ic.SECUserAgent
	secSrc := ingest.Source{Name: "sec", Schedule: ic.SECSchedule, Timeout: 30 * time.Minute, Retries: 2}
	local := strings.HasPrefix(ic.SECDataURL, "file://") && strings.HasPrefix(ic.SECWWWURL, "file://")
	if ua == "" && !local { // a local mirror needs no contact: nothing is sent to the SEC
		secSrc.Disabled = "SEC requires a User-Agent naming a contact: set SHARIAH_SEC_USER_AGENT"
	} else {
		s := &sec.Source{
			Client: &sec.Client{HTTP: &httpx.Client{HTTP: &http.Client{Timeout: 60 * time.Second}, UserAgent: ua,
				Limiter: rate.NewLimiter(rate.Limit(ic.SECRate), 1)}, DataBase: ic.SECDataURL, WWWBase: ic.SECWWWURL},
			Ref: ref, Filings: store, Trajectory: analytics.Trajectory{DB: db}, News: newsStore,
			Symbols: config.SymbolList(ic.SECSymbols), EventRelevance: eventRelevance,
		}
		if ic.SECSymbols == "*" {
			s.Symbols = nil // every company of a local mirror
		}
		secSrc.Run = s.Run
	}
	if err := sched.Add(secSrc); err != nil {
		return err
	}
	priceSrc := &prices.Source{HTTP: &httpx.Client{UserAgent: "shariah-screen prices", Limiter: rate.NewLimiter(5, 1)},
		URLTemplate: ic.PricesURL, Symbols: config.SymbolList(ic.PriceSymbols), Ref: ref}
	if err := sched.Add(ingest.Source{Name: "prices", Schedule: ic.PricesSchedule, Timeout: 20 * time.Minute, Retries: 2, Run: priceSrc.Run}); err != nil {
		return err
	}
	top := &prices.MostRequested{Prices: priceSrc, Popularity: sredis.NewPopularityStore(rc), N: ic.QuotesTop}
	if err := sched.Add(ingest.Source{Name: "quotes", Schedule: ic.QuotesSchedule, Timeout: 10 * time.Minute, Retries: 1, Run: top.Run}); err != nil {
		return err
	}
	sukukSrc := &nport.Source{HTTP: &httpx.Client{UserAgent: ua, Limiter: rate.NewLimiter(rate.Limit(ic.SECRate), 1)},
		Filings: strings.Split(ic.NPORTFilings, ","), Curated: ic.SukukCurated, Store: sredis.NewSukukStore(rc)}
	if ic.NPORTFilings == "" {
		sukukSrc.Filings = nil
	}
	nportSrc := ingest.Source{Name: "sukuk", Schedule: ic.SukukSchedule, Timeout: 10 * time.Minute, Retries: 2, Run: sukukSrc.Run}
	if ic.SukukCurated == "" || ic.NPORTFilings == "" {
		nportSrc.Disabled = "set SHARIAH_NPORT_FILINGS and SHARIAH_SUKUK_CURATED to ingest sukuk from N-PORT filings"
	}
	if err := sched.Add(nportSrc); err != nil {
		return err
	}
	if err := addNews(sched, ic, ref, newsStore); err != nil {
		return err
	}
	ctxActor(g, func(ctx context.Context) error {
		if ic.AtStart {
			go sched.RunAll(ctx)
		}
		err := sched.Run(ctx)
		db.Close()
		rc.Close()
		return err
	})
	return nil
}
