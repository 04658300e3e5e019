package redis

import (
	"context"
	_ "embed"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/account"
)

//go:embed lua/window_take.lua
var windowTakeSrc string

var windowTakeScript = rueidis.NewLuaScript(windowTakeSrc)

// WindowCounter implements account.WindowCounter: the buckets of one take are checked and counted in one
// script, so a refusal by one bucket charges none. The counters of a group share a hash tag ({group}),
// so a take touches one slot (valid on a cluster too).
type WindowCounter struct{ c rueidis.Client }

var _ account.WindowCounter = WindowCounter{}

// NewWindowCounter returns a counter over the client.
func NewWindowCounter(c rueidis.Client) WindowCounter { return WindowCounter{c: c} }

// Take implements account.WindowCounter.
func (w WindowCounter) Take(ctx context.Context, group string, window time.Duration, limits ...account.WindowLimit) (int, time.Duration, error) {
	keys := make([]string, len(limits))
	args := []string{strconv.FormatInt(window.Milliseconds(), 10)}
	for i, l := range limits {
		keys[i] = windowKey(group, l.Bucket)
		args = append(args, strconv.Itoa(l.Limit))
	}
	vals, err := windowTakeScript.Exec(ctx, w.c, keys, args).AsIntSlice()
	if err != nil {
		return 0, 0, err
	}
	return int(vals[0]) - 1, time.Duration(vals[1]) * time.Millisecond, nil
}
