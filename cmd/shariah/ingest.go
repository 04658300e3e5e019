package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/oklog/run"
	"golang.org/x/time/rate"

	"github.com/shariah-screen/shariah/app"
	"github.com/shariah-screen/shariah/config"
	"github.com/shariah-screen/shariah/filings"
	"github.com/shariah-screen/shariah/ingest"
	"github.com/shariah-screen/shariah/ingest/httpx"
	"github.com/shariah-screen/shariah/ingest/nport"
	"github.com/shariah-screen/shariah/ingest/prices"
	"github.com/shariah-screen/shariah/ingest/sec"
	"github.com/shariah-screen/shariah/insights"
	sredis "github.com/shariah-screen/shariah/redis"
)

// addIngest wires the ingest sources (SEC EDGAR, prices, news) on the scheduler.
func (e *env) addIngest(g *run.Group, svc *app.Services) error {
	ref, store, newsStore := svc.Raw, svc.Ingest, svc.News
	sched := ingest.NewScheduler(store, e.Log)
	ic := e.Config.Ingest
	secSource, sukukSrc := secSources(ic, ref, store, svc.Trajectory, newsStore, e.Log)
	secSrc := ingest.Source{Name: "sec", Schedule: ic.SECSchedule, Timeout: 2 * time.Hour, Retries: 2, Run: secSource.Run}
	bulkSrc := ingest.Source{Name: "sec-bulk", Schedule: ic.SECBulkSchedule, Timeout: 3 * time.Hour, Retries: 1,
		Run: func(ctx context.Context) (int, error) {
			rep, err := secSource.IngestZip(ctx, ic.SECBulkZip)
			e.Log.Info("companyfacts.zip", "report", rep, "error", err)
			return rep.Stored, err
		}}
	if ic.SECBulkZip == "" {
		bulkSrc.Disabled = "set SHARIAH_SEC_BULK_ZIP (e.g. " + sec.CompanyFactsZipURL + ") to ingest every filer nightly"
	}
	if ic.SECUserAgent == "" && !localSEC(ic) { // a local mirror needs no contact: nothing is sent to the SEC
		secSrc.Disabled = "SEC requires a User-Agent naming a contact: set SHARIAH_SEC_USER_AGENT"
	}
	if ic.SECUserAgent == "" && ic.SECBulkZip != "" && isRemote(ic.SECBulkZip) {
		bulkSrc.Disabled = "SEC requires a User-Agent naming a contact: set SHARIAH_SEC_USER_AGENT"
	}
	for _, src := range []ingest.Source{secSrc, bulkSrc} {
		if err := sched.Add(src); err != nil {
			return err
		}
	}
	priceSrc := &prices.Source{HTTP: &httpx.Client{UserAgent: "shariah-screen prices", Limiter: rate.NewLimiter(5, 1)},
		URLTemplate: ic.PricesURL, Symbols: config.SymbolList(ic.PriceSymbols), Ref: ref}
	if err := sched.Add(ingest.Source{Name: "prices", Schedule: ic.PricesSchedule, Timeout: 20 * time.Minute, Retries: 2, Run: priceSrc.Run}); err != nil {
		return err
	}
	top := &prices.MostRequested{Prices: priceSrc, Popularity: svc.Popularity, N: ic.QuotesTop}
	if err := sched.Add(ingest.Source{Name: "quotes", Schedule: ic.QuotesSchedule, Timeout: 10 * time.Minute, Retries: 1, Run: top.Run}); err != nil {
		return err
	}
	sukukSrc.Store = svc.Sukuk
	nportSrc := ingest.Source{Name: "sukuk", Schedule: ic.SukukSchedule, Timeout: 10 * time.Minute, Retries: 2, Run: sukukSrc.Run}
	if ic.SukukCurated == "" || ic.NPORTFilings == "" {
		nportSrc.Disabled = "set SHARIAH_NPORT_FILINGS and SHARIAH_SUKUK_CURATED to ingest sukuk from N-PORT filings"
	}
	if err := sched.Add(nportSrc); err != nil {
		return err
	}
	if err := addNews(sched, ic, ref, newsStore, secSource.Client.HTTP.Limiter); err != nil {
		return err
	}
	// The start-up run, like the scheduled ones, ends before the actor does (and so before the
	// services it uses are closed).
	ctxActor(g, func(ctx context.Context) error {
		started := make(chan struct{})
		if ic.AtStart {
			go func() { sched.RunAll(ctx); close(started) }()
		} else {
			close(started)
		}
		err := sched.Run(ctx)
		<-started
		return err
	})
	return nil
}

// secSources builds the SEC EDGAR ingester and the N-PORT (sukuk) ingester over one HTTP client, so
// one rate limiter (SHARIAH_SEC_RPS) bounds every request the process sends to SEC hosts: submissions,
// companyfacts, the ticker map, companyfacts.zip and N-PORT filings (SEC allows 10 a second, counted
// per client address, not per ingester). Filing documents the SEC ingester reads later go through the
// same client.
func secSources(ic config.Ingest, ref sec.Store, store *sredis.IngestStore, traj insights.TrajectoryStore,
	news filings.NewsStore, log *slog.Logger) (*sec.Source, *nport.Source) {
	secHTTP := &httpx.Client{HTTP: &http.Client{Timeout: 60 * time.Second}, UserAgent: ic.SECUserAgent,
		Limiter: rate.NewLimiter(rate.Limit(ic.SECRate), 1)}
	syms, indices := ic.SECCoverage()
	s := &sec.Source{
		Client: &sec.Client{HTTP: secHTTP, DataBase: ic.SECDataURL, WWWBase: ic.SECWWWURL},
		Ref:    ref, Filings: store, Trajectory: traj, News: news, Checkpoints: store,
		Symbols: syms, Indices: indices, RefreshAfter: ic.SECRefreshAfter, EventRelevance: app.EventRelevance, Log: log,
	}
	n := &nport.Source{HTTP: secHTTP, Curated: ic.SukukCurated}
	if ic.NPORTFilings != "" {
		n.Filings = strings.Split(ic.NPORTFilings, ",")
	}
	return s, n
}

// localSEC reports SEC bases that are both file:// mirrors.
func localSEC(ic config.Ingest) bool {
	return strings.HasPrefix(ic.SECDataURL, "file://") && strings.HasPrefix(ic.SECWWWURL, "file://")
}

// isRemote reports an http(s) URL.
func isRemote(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// runIngest is `shariah ingest`: the cron ingesters, or with --companyfacts-zip one run of SEC's
// companyfacts.zip (a path or URL) that prints its report as JSON and exits, non-zero when a member
// failed (the others are stored).
func runIngest(args []string) error {
	if len(args) == 0 {
		return runProcesses("ingest")
	}
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	zipSrc := fs.String("companyfacts-zip", "", "ingest every filer of companyfacts.zip at this path or URL once (e.g. "+sec.CompanyFactsZipURL+")")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *zipSrc == "" || fs.NArg() > 0 {
		return usageError{"ingest: no arguments, or --companyfacts-zip PATH_OR_URL"}
	}
	e, err := load()
	if err != nil {
		return err
	}
	if e.Config.Ingest.SECUserAgent == "" && isRemote(*zipSrc) {
		return fmt.Errorf("SEC requires a User-Agent naming a contact: set SHARIAH_SEC_USER_AGENT")
	}
	svc, err := open(e)
	if err != nil {
		return err
	}
	defer closeAll(svc)
	s, _ := secSources(e.Config.Ingest, svc.Raw, svc.Ingest, svc.Trajectory, svc.News, e.Log)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := s.IngestZip(ctx, *zipSrc)
	b, _ := json.Marshal(map[string]any{"report": rep, "companies_per_second": perSecond(rep.Stored, rep.Elapsed)})
	fmt.Println(string(b))
	return err
}

func perSecond(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
