package redis

import (
	"context"
	_ "embed"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
)

//go:embed lua/window_hit.lua
var windowHitSrc string

var windowHitScript = rueidis.NewLuaScript(windowHitSrc)

// WindowCounter implements shariah.WindowCounter: one counter per bucket and window, in one script.
type WindowCounter struct{ c rueidis.Client }

var _ shariah.WindowCounter = WindowCounter{}

// NewWindowCounter returns a counter over the client.
func NewWindowCounter(c rueidis.Client) WindowCounter { return WindowCounter{c: c} }

// Hit implements shariah.WindowCounter.
func (w WindowCounter) Hit(ctx context.Context, bucket string, window time.Duration) (int64, time.Duration, error) {
	vals, err := windowHitScript.Exec(ctx, w.c, []string{windowKey(bucket)}, []string{strconv.FormatInt(window.Milliseconds(), 10)}).AsIntSlice()
	if err != nil {
		return 0, 0, err
	}
	return vals[0], time.Duration(vals[1]) * time.Millisecond, nil
}
