// Package ingest runs the cron-driven ingesters (one package per source: sec, prices, news, ...).
// The scheduler is here; the sources are added by the ingestion issue.
package ingest

import (
	"context"
	"log/slog"

	"github.com/robfig/cron/v3"
)

// Scheduler runs jobs on cron schedules (UTC, with seconds optional).
type Scheduler struct {
	cron *cron.Cron
	log  *slog.Logger
}

// NewScheduler returns an empty scheduler.
func NewScheduler(log *slog.Logger) *Scheduler {
	return &Scheduler{
		cron: cron.New(cron.WithParser(cron.NewParser(cron.SecondOptional|cron.Minute|cron.Hour|cron.Dom|cron.Month|cron.Dow|cron.Descriptor)),
			cron.WithChain(cron.SkipIfStillRunning(cron.DiscardLogger), cron.Recover(cron.DiscardLogger))),
		log: log,
	}
}

// Add schedules run under a name; a run still going when the next is due is skipped (no overlap).
func (s *Scheduler) Add(name, spec string, run func(context.Context) error) error {
	_, err := s.cron.AddFunc(spec, func() {
		if err := run(context.Background()); err != nil {
			s.log.Error("ingest run failed", "source", name, "error", err.Error())
		}
	})
	return err
}

// Run starts the scheduler and blocks until ctx ends, then waits for running jobs to finish.
func (s *Scheduler) Run(ctx context.Context) error {
	s.cron.Start()
	<-ctx.Done()
	<-s.cron.Stop().Done()
	return nil
}
