package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hibiken/asynq"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/etf"
)

// ETFPayload is the payload of an etf:screen task.
type ETFPayload struct {
	Symbol  string `json:"symbol"`
	Ruleset string `json:"ruleset"`
	Force   bool   `json:"force_refresh"`
}

// EnqueueETF queues an ETF look-through on the interactive queue. One task per ETF and ruleset at a
// time: a request arriving while one is queued or running waits for that one.
func (q *Queue) EnqueueETF(ctx context.Context, p ETFPayload) error {
	err := q.enqueue(ctx, TypeETFScreen, p, asynq.TaskID("etf-"+p.Symbol+"-"+p.Ruleset),
		asynq.Queue("interactive"), asynq.MaxRetry(3), asynq.Timeout(10*time.Minute))
	if errors.Is(err, asynq.ErrTaskIDConflict) {
		return nil
	}
	return queueError(err)
}

// RegisterETF registers the etf:screen handler.
func RegisterETF(mux *asynq.ServeMux, e *etf.Service) {
	mux.HandleFunc(TypeETFScreen, func(ctx context.Context, t *asynq.Task) error {
		var p ETFPayload
		if err := json.Unmarshal(t.Payload(), &p); err != nil || p.Symbol == "" {
			return fmt.Errorf("bad payload: %w", asynq.SkipRetry)
		}
		_, err := e.Screen(ctx, p.Symbol, p.Ruleset, p.Force)
		if err != nil && shariah.ErrorCode(err) != shariah.EINTERNAL {
			return fmt.Errorf("%v: %w", err, asynq.SkipRetry) // a bad symbol will not get better
		}
		return err
	})
}
