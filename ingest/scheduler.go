// Package ingest runs the cron-driven ingesters: one Source per upstream (sec, prices, news), each with
// its schedule, a timeout per run, retries with exponential backoff and jitter, no overlap with its own
// previous run, and a Redis lock so two ingest processes never run the same source at once. Each run
// records the source's health (last success, last error, items, lag) for /api/screen-bulk/source-health
// and /metrics.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/shariah-screen/shariah/filings"
)

// Source is one ingester.
type Source struct {
	Name     string
	Schedule string        // cron spec (UTC) or @every
	Timeout  time.Duration // per attempt; 0: 10 minutes
	Retries  int           // extra attempts after a failed one
	Run      func(ctx context.Context) (items int, err error)
	// Disabled, when set, keeps the source from running and says why in its health.
	Disabled string
}

// Scheduler runs sources on their schedules.
type Scheduler struct {
	cron    *cron.Cron
	health  filings.HealthStore
	log     *slog.Logger
	Backoff time.Duration // first retry delay; 0: 2 s
	mu      sync.Mutex
	running map[string]bool
	sources map[string]Source
}

var parser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// NewScheduler returns an empty scheduler.
func NewScheduler(health filings.HealthStore, log *slog.Logger) *Scheduler {
	return &Scheduler{cron: cron.New(cron.WithParser(parser), cron.WithLocation(time.UTC)), health: health, log: log,
		running: map[string]bool{}, sources: map[string]Source{}}
}

// Add schedules a source and records its initial health.
func (s *Scheduler) Add(src Source) error {
	if _, err := parser.Parse(src.Schedule); err != nil {
		return fmt.Errorf("source %s: schedule %q: %w", src.Name, src.Schedule, err)
	}
	s.mu.Lock()
	s.sources[src.Name] = src
	s.mu.Unlock()
	h := s.current(context.Background(), src)
	if src.Disabled != "" {
		h.Status, h.Detail = "disabled", src.Disabled
	} else if h.Status == "" || h.Status == "disabled" {
		h.Status, h.Detail = "never_run", ""
	}
	if err := s.health.PutHealth(context.Background(), h); err != nil {
		return err
	}
	if src.Disabled != "" {
		return nil
	}
	_, err := s.cron.AddFunc(src.Schedule, func() { _ = s.RunOnce(context.Background(), src.Name) })
	return err
}

// current reads a source's stored health (or a fresh record).
func (s *Scheduler) current(ctx context.Context, src Source) filings.SourceHealth {
	all, _ := s.health.Health(ctx)
	for _, h := range all {
		if h.Name == src.Name {
			h.Schedule = src.Schedule
			return h
		}
	}
	return filings.SourceHealth{Name: src.Name, Schedule: src.Schedule}
}

// ErrBusy is returned when the source is already running here or in another process.
var ErrBusy = errors.New("source is already running")

// RunOnce runs a source now (with its retries), unless it is already running here or elsewhere.
func (s *Scheduler) RunOnce(ctx context.Context, name string) error {
	s.mu.Lock()
	src, ok := s.sources[name]
	if !ok || src.Disabled != "" {
		s.mu.Unlock()
		return fmt.Errorf("source %s is not runnable", name)
	}
	if s.running[name] { // no overlap with its own previous run
		s.mu.Unlock()
		return ErrBusy
	}
	s.running[name] = true
	s.mu.Unlock()
	defer func() { s.mu.Lock(); delete(s.running, name); s.mu.Unlock() }()
	timeout := src.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	release, ok, err := s.health.TryLock(ctx, "source:"+name, timeout*time.Duration(src.Retries+1)+time.Minute)
	if err != nil {
		return err
	}
	if !ok {
		s.log.Info("ingest skipped: running in another process", "source", name)
		return ErrBusy
	}
	defer release()
	start := time.Now().UTC()
	var items int
	backoff := s.Backoff
	if backoff <= 0 {
		backoff = 2 * time.Second
	}
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, timeout)
		items, err = src.Run(actx)
		cancel()
		if err == nil || attempt >= src.Retries || ctx.Err() != nil {
			break
		}
		// exponential backoff with up to 50% jitter, so retries of several processes spread out
		d := backoff << attempt
		d += time.Duration(rand.Int64N(int64(d)/2 + 1))
		s.log.Warn("ingest attempt failed; retrying", "source", name, "attempt", attempt+1, "in", d.String(), "error", err.Error())
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
	h := s.current(context.Background(), src)
	h.LastRunAt, h.Runs = &start, h.Runs+1
	if err != nil {
		now := time.Now().UTC()
		h.Status, h.LastError, h.LastErrorAt, h.Failures = "failing", err.Error(), &now, h.Failures+1
		s.log.Error("ingest run failed", "source", name, "error", err.Error())
	} else {
		now := time.Now().UTC()
		h.Status, h.LastSuccessAt, h.Items, h.ItemsTotal, h.Detail = "ok", &now, items, h.ItemsTotal+int64(items), ""
		if h.LastError != "" && h.LastErrorAt != nil && h.LastErrorAt.Before(start) {
			h.Detail = "recovered; previous error kept in last_error"
		}
		s.log.Info("ingest run done", "source", name, "items", items, "took", time.Since(start).String())
	}
	if perr := s.health.PutHealth(context.Background(), h); perr != nil {
		return perr
	}
	return err
}

// RunAll runs every enabled source once, concurrently (used at start); failures are in the health.
func (s *Scheduler) RunAll(ctx context.Context) {
	s.mu.Lock()
	var names []string
	for n, src := range s.sources {
		if src.Disabled == "" {
			names = append(names, n)
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, n := range names {
		wg.Add(1)
		go func() { defer wg.Done(); _ = s.RunOnce(ctx, n) }()
	}
	wg.Wait()
}

// Run starts the schedules and blocks until ctx ends, then waits for running jobs.
func (s *Scheduler) Run(ctx context.Context) error {
	s.cron.Start()
	<-ctx.Done()
	<-s.cron.Stop().Done()
	return nil
}
