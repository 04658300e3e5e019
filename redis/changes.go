package redis

import (
	"bytes"
	"context"
	"crypto/sha1"
	_ "embed"
	"encoding/hex"
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

// What result_put.lua answers: what a result's change is measured against.
const (
	priorNone      = 0 // a first screening
	priorBaseline  = 1 // the baseline, whose verdicts differ
	priorReplaced  = 2 // the replaced result (no baseline yet)
	priorUnchanged = 3 // the baseline, whose verdicts are the result's
)

// resultPutSha1 is result_put.lua's SHA-1, for its EVALSHA sent in PutResult's pipeline.
var resultPutSha1 = func() string { sum := sha1.Sum([]byte(resultPutSrc)); return hex.EncodeToString(sum[:]) }()

// putResultCmd is result_put.lua's EVALSHA for a result's value (sent in one pipeline with the index).
func (s *ResultStore) putResultCmd(r screening.Result, value []byte, key string) rueidis.Completed {
	return s.c.B().Evalsha().Sha1(resultPutSha1).Numkeys(2).Key(resultKey(r.Symbol, r.Ruleset.Name), changeBaselineKey(r.Symbol)).
		Arg(rueidis.BinaryString(value), r.Ruleset.Name, key).Build()
}

// putResultAnswer reads result_put.lua's answer; a Redis that lost its scripts (NOSCRIPT after a
// restart) has the script run again with EVAL.
func (s *ResultStore) putResultAnswer(ctx context.Context, res rueidis.RedisResult, r screening.Result, value []byte, key string) (int64, []byte, error) {
	if e, ok := rueidis.IsRedisErr(res.Error()); ok && e.IsNoScript() {
		res = resultPutScript.Exec(ctx, s.c, []string{resultKey(r.Symbol, r.Ruleset.Name), changeBaselineKey(r.Symbol)},
			[]string{rueidis.BinaryString(value), r.Ruleset.Name, key})
	}
	vals, err := res.ToArray()
	if err != nil {
		return 0, nil, err
	}
	kind, err := vals[0].AsInt64()
	if err != nil || len(vals) < 2 {
		return kind, nil, err
	}
	prev, err := vals[1].AsBytes()
	return kind, prev, err
}

// recordChange records the change of a stored result against what result_put.lua answered
// (screening.ChangeFrom) and advances the baseline to the result. It never fails the screening: a
// change it cannot record leaves the baseline where it was, and the symbol's next write records it
// (OnChangeError hears of it).
func (s *ResultStore) recordChange(ctx context.Context, r screening.Result, key string, kind int64, prev []byte) {
	if kind == priorUnchanged {
		return
	}
	var before screening.ChangeBasis
	expected := ""
	switch kind {
	case priorBaseline:
		expected = string(prev)
		_, basis, _ := bytes.Cut(prev, []byte("\n"))
		if err := json.Unmarshal(basis, &before); err != nil {
			s.reportChange(err)
			return
		}
	case priorReplaced:
		sr, err := decodeResult(prev)
		if err != nil {
			s.reportChange(err)
			return
		}
		before = screening.BasisOf(sr.Result)
	}
	ctx = context.WithoutCancel(ctx)
	// A first screening has nothing to compare with: its basis becomes the baseline.
	if ch, ok := screening.ChangeFrom(before, r); ok && kind != priorNone {
		if _, err := s.appendChange(ctx, ch); err != nil {
			s.reportChange(err)
			return // the baseline stays: the next write records the change
		}
	}
	basis, err := json.Marshal(screening.BasisOf(r))
	if err != nil {
		s.reportChange(err)
		return
	}
	baseline := append([]byte(key+"\n"), basis...)
	err = changeSettleScript.Exec(ctx, s.c, []string{changeBaselineKey(r.Symbol)},
		[]string{r.Ruleset.Name, expected, rueidis.BinaryString(baseline)}).Error()
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

// ChangesAfter looks through up to count changes after the cursor, oldest first, decoding those of the
// symbols keep accepts (by the entry's symbol field, before decoding), and then reads the id of the
// newest change the retention dropped (one pipeline on the log's slot, run in that order).
func (s *ResultStore) ChangesAfter(ctx context.Context, cursor string, count int, keep func(string) bool) (screening.ChangeScan, error) {
	start := "(" + cursor
	if cursor == screening.CursorStart {
		start = "-"
	}
	res := s.c.DoMulti(ctx,
		s.c.B().Xrange().Key(changesKey()).Start(start).End("+").Count(int64(count)).Build(),
		s.c.B().Get().Key(changesTrimmedKey()).Build())
	entries, err := res[0].AsXRange()
	if err != nil && !rueidis.IsRedisNil(err) {
		return screening.ChangeScan{}, err
	}
	trimmed, err := res[1].ToString()
	if err != nil && !rueidis.IsRedisNil(err) {
		return screening.ChangeScan{}, err
	}
	scan := screening.ChangeScan{Changes: []screening.Change{}, Looked: len(entries), Trimmed: trimmed}
	for _, e := range entries {
		scan.Last = e.ID
		if keep != nil && !keep(e.FieldValues["symbol"]) {
			continue
		}
		var ch screening.Change
		if err := json.Unmarshal([]byte(e.FieldValues["change"]), &ch); err != nil {
			return screening.ChangeScan{}, err
		}
		ch.ID = e.ID
		scan.Changes = append(scan.Changes, ch)
	}
	return scan, nil
}
