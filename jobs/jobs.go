// Package jobs holds the asynq task types (noun:verb), their payloads, constructors and handlers, and the
// worker server that runs them. Bulk index screens and ETF screens are added here by their issues.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hibiken/asynq"

	"github.com/shariah-screen/shariah/webhooks"
)

// Queues and their priorities: interactive work (an ETF screen a request waits for) first, then webhook
// deliveries (short, and a receiver should hear of a change within seconds, not after a bulk run),
// then bulk runs.
var Queues = map[string]int{"interactive": 6, "webhooks": 4, "bulk": 3, "default": 1}

// WorkerOptions shape a worker server.
type WorkerOptions struct {
	Concurrency int // tasks run at once
	// WebhookBackoff is the webhook deliveries' retry schedule (zero: webhooks.DefaultBackoff): the same
	// schedule as the webhooks.Service's, which records each delivery's next try from it.
	WebhookBackoff webhooks.Backoff
	// PollInterval is how often retries and scheduled tasks fall due (asynq's DelayedTaskCheckInterval;
	// 0: asynq's 5 s). Tests with a schedule of milliseconds shorten it.
	PollInterval time.Duration
}

// NewWorker returns an asynq server on the Redis at url (a Redis Cluster when cluster is true: RedisOpt)
// and the mux its handlers register on.
func NewWorker(url string, cluster bool, concurrency int, log *slog.Logger) (*asynq.Server, *asynq.ServeMux, error) {
	return NewWorkerWith(url, cluster, WorkerOptions{Concurrency: concurrency}, log)
}

// NewWorkerWith is NewWorker with every option.
func NewWorkerWith(url string, cluster bool, o WorkerOptions, log *slog.Logger) (*asynq.Server, *asynq.ServeMux, error) {
	opt, err := RedisOpt(url, cluster)
	if err != nil {
		return nil, nil, err
	}
	backoff := o.WebhookBackoff
	if backoff == (webhooks.Backoff{}) {
		backoff = webhooks.DefaultBackoff()
	}
	srv := asynq.NewServer(opt, asynq.Config{
		Concurrency:              o.Concurrency,
		Queues:                   Queues,
		RetryDelayFunc:           retryDelay(backoff),
		DelayedTaskCheckInterval: o.PollInterval,
		Logger:                   slogAdapter{log},
		ErrorHandler: asynq.ErrorHandlerFunc(func(ctx context.Context, task *asynq.Task, err error) {
			if errors.Is(err, webhooks.ErrRetry) { // the receiver failed, not the service: recorded in the delivery
				log.Info("webhook delivery attempt failed", "error", err.Error())
				return
			}
			log.Error("task failed", "type", task.Type(), "error", err.Error())
		}),
	})
	return srv, asynq.NewServeMux(), nil
}

// slogAdapter lets asynq log through slog.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...), "component", "asynq") }
func (a slogAdapter) Info(args ...any)  { a.l.Info(fmt.Sprint(args...), "component", "asynq") }
func (a slogAdapter) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...), "component", "asynq") }
func (a slogAdapter) Error(args ...any) { a.l.Error(fmt.Sprint(args...), "component", "asynq") }
func (a slogAdapter) Fatal(args ...any) {
	a.l.Error(fmt.Sprint(args...), "component", "asynq", "fatal", true)
}
