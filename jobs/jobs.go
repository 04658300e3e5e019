// Package jobs holds the asynq task types (noun:verb), their payloads, constructors and handlers, and the
// worker server that runs them. Bulk index screens and ETF screens are added here by their issues.
package jobs

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hibiken/asynq"
)

// Queues and their priorities: interactive work (an ETF screen a request waits for) before bulk runs.
var Queues = map[string]int{"interactive": 6, "bulk": 3, "default": 1}

// NewWorker returns an asynq server on the Redis at url (a Redis Cluster when cluster is true: RedisOpt)
// and the mux its handlers register on.
func NewWorker(url string, cluster bool, concurrency int, log *slog.Logger) (*asynq.Server, *asynq.ServeMux, error) {
	opt, err := RedisOpt(url, cluster)
	if err != nil {
		return nil, nil, err
	}
	srv := asynq.NewServer(opt, asynq.Config{
		Concurrency:    concurrency,
		Queues:         Queues,
		RetryDelayFunc: RetryDelay,
		Logger:         slogAdapter{log},
		ErrorHandler: asynq.ErrorHandlerFunc(func(ctx context.Context, task *asynq.Task, err error) {
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
