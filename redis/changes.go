package redis

import (
	"context"
	_ "embed"
	"encoding/json"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/screening"
)

//go:embed lua/result_put.lua
var resultPutSrc string

//go:embed lua/change_add.lua
var changeAddSrc string

//go:embed lua/change_settle.lua
var changeSettleSrc string

var (
	resultPutScript    = rueidis.NewLuaScript(resultPutSrc)
	changeAddScript    = rueidis.NewLuaScript(changeAddSrc)
	changeSettleScript = rueidis.NewLuaScript(changeSettleSrc)
)

// DefaultChangeRetention is how long the change log keeps a change (SHARIAH_CHANGE_RETENTION).
const DefaultChangeRetention = 90 * 24 * time.Hour

var _ screening.ChangeLog = (*ResultStore)(nil)

// WithChangeRetention returns a copy of the store whose change log keeps changes for d (0: the
// default, 90 days).
func (s *ResultStore) WithChangeRetention(d time.Duration) *ResultStore {
	c := *s
	c.retention = d
	return &c
}

// WithClock returns a copy of the store that reads the time of the retention from now (tests).
func (s *ResultStore) WithClock(now func() time.Time) *ResultStore {
	c := *s
	c.now = now
	return &c
}

// OnChangeError returns a copy of the store that reports a change it could not record (the result is
// stored all the same, and the change recorded at the symbol's next write).
func (s *ResultStore) OnChangeError(f func(error)) *ResultStore {
	c := *s
	c.changeErr = f
	return &c
}

// ChangeRetention is how long the change log keeps a change.
func (s *ResultStore) ChangeRetention() time.Duration {
	if s.retention > 0 {
		return s.retention
	}
	return DefaultChangeRetention
}

// storeResult writes a result's value with result_put.lua and returns what its change is measured
// against: the baseline's basis (JSON), or the replaced result's value when there is no baseline; both
// nil for a first screening.
func (s *ResultStore) storeResult(ctx context.Context, r screening.Result, value, basis []byte) (base, replaced []byte, err error) {
	vals, err := resultPutScript.Exec(ctx, s.c, []string{resultKey(r.Symbol, r.Ruleset.Name), changeBaselineKey(r.Symbol)},
		[]string{rueidis.BinaryString(value), r.Ruleset.Name, rueidis.BinaryString(basis)}).ToArray()
	if err != nil {
		return nil, nil, err
	}
	kind, err := vals[0].AsInt64()
	if err != nil || kind == 0 || len(vals) < 2 {
		return nil, nil, err
	}
	prev, err := vals[1].AsBytes()
	if err != nil {
		return nil, nil, err
	}
	if kind == 1 {
		return prev, nil, nil
	}
	return nil, prev, nil
}

// recordChange records the change of a stored result against what storeResult handed back
// (screening.ChangeFrom) and advances the baseline. It never fails the screening: a change it cannot
// record leaves the baseline where it was, and the symbol's next write records it (OnChangeError hears
// of it).
func (s *ResultStore) recordChange(ctx context.Context, r screening.Result, basis, base, replaced []byte) {
	if base == nil && replaced == nil {
		return // a first screening: result_put.lua made its basis the baseline
	}
	var before screening.ChangeBasis
	if base != nil {
		if err := json.Unmarshal(base, &before); err != nil {
			s.reportChange(err)
			return
		}
	} else {
		sr, err := decodeResult(replaced)
		if err != nil {
			s.reportChange(err)
			return
		}
		before = screening.BasisOf(sr.Result)
	}
	ctx = context.WithoutCancel(ctx)
	if ch, ok := screening.ChangeFrom(before, r); ok {
		if _, err := s.appendChange(ctx, ch); err != nil {
			s.reportChange(err)
			return
		}
	} else if base != nil {
		return // no change: the baseline's state is the result's
	}
	err := changeSettleScript.Exec(ctx, s.c, []string{changeBaselineKey(r.Symbol)},
		[]string{r.Ruleset.Name, rueidis.BinaryString(base), rueidis.BinaryString(basis)}).Error()
	if err != nil {
		s.reportChange(err)
	}
}

func (s *ResultStore) reportChange(err error) {
	if s.changeErr != nil {
		s.changeErr(err)
	}
}

// appendChange appends a change to the log (change_add.lua), dropping those older than the retention.
func (s *ResultStore) appendChange(ctx context.Context, ch screening.Change) (string, error) {
	b, err := json.Marshal(ch)
	if err != nil {
		return "", err
	}
	now := time.Now
	if s.now != nil {
		now = s.now
	}
	minID := strconv.FormatInt(max(now().Add(-s.ChangeRetention()).UnixMilli(), 0), 10) + "-0"
	return changeAddScript.Exec(ctx, s.c, []string{changesKey(), changesTrimmedKey()},
		[]string{minID, ch.Symbol, ch.Ruleset, rueidis.BinaryString(b)}).ToString()
}

// ChangesAfter reads up to count changes after the cursor, oldest first, and then the id of the newest
// change the retention dropped (one pipeline on the log's slot, run in that order).
func (s *ResultStore) ChangesAfter(ctx context.Context, cursor string, count int) ([]screening.Change, string, error) {
	start := "(" + cursor
	if cursor == screening.CursorStart {
		start = "-"
	}
	res := s.c.DoMulti(ctx,
		s.c.B().Xrange().Key(changesKey()).Start(start).End("+").Count(int64(count)).Build(),
		s.c.B().Get().Key(changesTrimmedKey()).Build())
	entries, err := res[0].AsXRange()
	if err != nil && !rueidis.IsRedisNil(err) {
		return nil, "", err
	}
	trimmed, err := res[1].ToString()
	if err != nil && !rueidis.IsRedisNil(err) {
		return nil, "", err
	}
	out := make([]screening.Change, 0, len(entries))
	for _, e := range entries {
		var ch screening.Change
		if err := json.Unmarshal([]byte(e.FieldValues["change"]), &ch); err != nil {
			return nil, "", err
		}
		ch.ID = e.ID
		out = append(out, ch)
	}
	return out, trimmed, nil
}
