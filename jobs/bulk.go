package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/robfig/cron/v3"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/bulk"
	sredis "github.com/shariah-screen/shariah/redis"
)

// Task types (noun:verb).
const (
	TypeIndexScreen = "index:screen" // a bulk run of an index; the task id is the run id
	TypeETFScreen   = "etf:screen"   // an ETF look-through
)

// RunPayload is the payload of an index:screen task.
type RunPayload struct {
	RunID string `json:"run_id"`
}

// Queue implements bulk.Queue (and the ETF queue) with an asynq client and inspector.
type Queue struct {
	Client    *asynq.Client
	Inspector *asynq.Inspector
}

// NewQueue connects a queue to the Redis at url, a Redis Cluster when cluster is true (RedisOpt).
func NewQueue(url string, cluster bool) (*Queue, error) {
	opt, err := RedisOpt(url, cluster)
	if err != nil {
		return nil, err
	}
	if co, ok := opt.(ClusterOpt); ok {
		co.ContextDeadlines = true // an enqueue keeps its request's deadline (EnqueueRun)
		opt = co
	}
	return &Queue{Client: asynq.NewClient(opt), Inspector: asynq.NewInspector(opt)}, nil
}

// Close closes the connections.
func (q *Queue) Close() {
	q.Client.Close()
	q.Inspector.Close()
}

var _ bulk.Queue = (*Queue)(nil)

// EnqueueRun queues a run as one task whose id is the run id, so the same run cannot be queued twice.
// A run survives its worker: killed mid-run, another worker's reclaim loop resumes it when the run's
// lease expires (bulk.Service.Reclaim; asynq's own recovery, after its 30 s lease, finds it taken).
// A finished task is not retained: a deleted run leaves no key behind, its task included.
// An enqueue for a request takes at most the request's Redis call timeout (redis.WithCallTimeout).
func (q *Queue) EnqueueRun(ctx context.Context, runID string) error {
	err := q.enqueue(ctx, TypeIndexScreen, RunPayload{RunID: runID}, asynq.TaskID(runID), asynq.Queue("bulk"),
		asynq.MaxRetry(25), asynq.Timeout(3*time.Hour))
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return shariah.Errorf(shariah.ECONFLICT, "Run %s is already queued.", runID)
	}
	return queueError(err)
}

// enqueue queues one task of a payload within the caller's Redis call timeout (sredis.Bound: a
// request's enqueue keeps its budget); a task id already queued is asynq.ErrTaskIDConflict.
func (q *Queue) enqueue(ctx context.Context, typ string, payload any, opts ...asynq.Option) error {
	b, _ := json.Marshal(payload)
	ctx, done := sredis.Bound(ctx)
	_, err := q.Client.EnqueueContext(ctx, asynq.NewTask(typ, b), opts...)
	done(err)
	return err
}

// queueError is an enqueue's failure as the caller answers it: Redis could not take the task (asynq
// keeps only the text of the cause: a refused or hung node, a cluster failing over), so the queue
// is unavailable for a while (503 with Retry-After at the edge), not broken.
func queueError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w (%v)", shariah.Errorf(shariah.EUNAVAILABLE, "The job queue is unavailable. Retry shortly."), err)
}

// DropRun deletes a run's task if it is still waiting (an active one stops by itself between symbols).
func (q *Queue) DropRun(ctx context.Context, runID string) error {
	err := q.Inspector.DeleteTask("bulk", runID)
	if err != nil && (errors.Is(err, asynq.ErrTaskNotFound) || strings.Contains(err.Error(), "active")) {
		return nil
	}
	return err
}

// RetryDelay retries the service's tasks quickly: a run resumed after a crash should not wait minutes.
func RetryDelay(n int, err error, t *asynq.Task) time.Duration {
	if n < 5 {
		return time.Second
	}
	return asynq.DefaultRetryDelayFunc(n, err, t)
}

// RegisterBulk registers the index:screen handler.
func RegisterBulk(mux *asynq.ServeMux, b *bulk.Service) {
	mux.HandleFunc(TypeIndexScreen, func(ctx context.Context, t *asynq.Task) error {
		var p RunPayload
		if err := json.Unmarshal(t.Payload(), &p); err != nil || p.RunID == "" {
			return fmt.Errorf("bad payload: %w", asynq.SkipRetry)
		}
		err := b.Execute(ctx, p.RunID)
		if err != nil && ctx.Err() == nil {
			retried, _ := asynq.GetRetryCount(ctx)
			maxRetry, _ := asynq.GetMaxRetry(ctx)
			if retried >= maxRetry { // asynq gives up after this attempt: the run has failed
				_, _ = b.Runs.SetStatus(context.WithoutCancel(ctx), p.RunID, bulk.Failed,
					[]string{bulk.Queued, bulk.Running}, time.Now().UTC(), "gave up after "+strconv.Itoa(retried+1)+" attempts: "+err.Error())
				r, _, _ := b.Runs.Run(context.WithoutCancel(ctx), p.RunID)
				_ = b.Runs.ReleaseIndex(context.WithoutCancel(ctx), r.IndexName, p.RunID)
			}
		}
		return err
	})
}

// Rescreens runs cron-driven index rescreens: each schedule enqueues a run of its index; a run already
// active for the index (a long run, or a manual one) makes the trigger a no-op, so one index never has
// two runs at once.
type Rescreens struct {
	cron *cron.Cron
	log  *slog.Logger
}

// ParseSchedules reads "SP500=0 2 * * *;DJIA=30 2 * * *" (index=cron spec, semicolon-separated).
func ParseSchedules(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		index, spec, ok := strings.Cut(part, "=")
		if !ok || strings.TrimSpace(index) == "" {
			return nil, fmt.Errorf("schedule %q is not INDEX=cron spec", part)
		}
		spec = strings.TrimSpace(spec)
		if _, err := cronParser.Parse(spec); err != nil {
			return nil, fmt.Errorf("schedule of %s: %w", index, err)
		}
		out[strings.ToUpper(strings.TrimSpace(index))] = spec
	}
	return out, nil
}

var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// NewRescreens schedules the rescreens (UTC).
func NewRescreens(b *bulk.Service, schedules map[string]string, log *slog.Logger) (*Rescreens, error) {
	c := cron.New(cron.WithParser(cronParser), cron.WithLocation(time.UTC))
	for index, spec := range schedules {
		index := index
		if _, err := c.AddFunc(spec, func() {
			r, err := b.StartRun(context.Background(), shariah.ServiceCaller, index, 0, false, "", "schedule")
			switch shariah.ErrorCode(err) {
			case "":
				log.Info("rescreen queued", "index", index, "run_id", r.ID)
			case shariah.ECONFLICT:
				log.Info("rescreen skipped: a run is active", "index", index)
			default:
				log.Error("rescreen failed", "index", index, "error", err.Error())
			}
		}); err != nil {
			return nil, err
		}
	}
	return &Rescreens{cron: c, log: log}, nil
}

// Run starts the schedules and blocks until ctx ends.
func (r *Rescreens) Run(ctx context.Context) error {
	r.cron.Start()
	<-ctx.Done()
	<-r.cron.Stop().Done()
	return nil
}
