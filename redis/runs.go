package redis

import (
	"context"
	_ "embed"
	"encoding/json"
	"sort"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/bulk"
)

//go:embed lua/run_status.lua
var runStatusSrc string

//go:embed lua/release_index.lua
var releaseIndexSrc string

//go:embed lua/run_put_item.lua
var runPutItemSrc string

//go:embed lua/run_progress.lua
var runProgressSrc string

//go:embed lua/run_lease.lua
var runLeaseSrc string

var (
	runStatusScript    = rueidis.NewLuaScript(runStatusSrc)
	releaseIndexScript = rueidis.NewLuaScript(releaseIndexSrc)
	runPutItemScript   = rueidis.NewLuaScript(runPutItemSrc)
	runProgressScript  = rueidis.NewLuaScript(runProgressSrc)
	runLeaseScript     = rueidis.NewLuaScript(runLeaseSrc)
)

// RunStore implements bulk.Store.
type RunStore struct{ c rueidis.Client }

var _ bulk.Store = (*RunStore)(nil)

// NewRunStore returns the run store over the client.
func NewRunStore(c rueidis.Client) *RunStore { return &RunStore{c: c} }

func tstr(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func tparse(s string) *time.Time {
	if s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil
	}
	return &t
}

// CreateRun writes the record, the constituent snapshot and the history entry.
func (s *RunStore) CreateRun(ctx context.Context, r bulk.Run, symbols []string) error {
	cmds := rueidis.Commands{
		s.c.B().Hset().Key(runKey(r.ID)).FieldValue().
			FieldValue("run_id", r.ID).FieldValue("index_name", r.IndexName).FieldValue("status", r.Status).
			FieldValue("ruleset", r.Ruleset).FieldValue("limit", strconv.Itoa(r.Limit)).
			FieldValue("force_refresh", strconv.FormatBool(r.ForceRefresh)).FieldValue("trigger", r.Trigger).
			FieldValue("total", strconv.Itoa(len(symbols))).FieldValue("processed", "0").FieldValue("errors", "0").
			FieldValue("created_at", tstr(r.CreatedAt)).FieldValue("updated_at", tstr(r.CreatedAt)).
			FieldValue("previous_run_id", r.PreviousRunID).FieldValue("owner", r.Owner).Build(),
		s.c.B().Zadd().Key(runsKey()).ScoreMember().ScoreMember(float64(r.CreatedAt.UnixMilli()), r.ID).Build(),
	}
	if len(symbols) > 0 {
		cmds = append(cmds, s.c.B().Rpush().Key(runSymbolsKey(r.ID)).Element(symbols...).Build())
	}
	return s.doAll(ctx, cmds)
}

func (s *RunStore) doAll(ctx context.Context, cmds rueidis.Commands) error {
	for _, r := range s.c.DoMulti(ctx, cmds...) {
		if err := r.Error(); err != nil {
			return err
		}
	}
	return nil
}

func runFromMap(m map[string]string) bulk.Run {
	atoi := func(k string) int { n, _ := strconv.Atoi(m[k]); return n }
	r := bulk.Run{ID: m["run_id"], IndexName: m["index_name"], Status: m["status"], Ruleset: m["ruleset"], Limit: atoi("limit"),
		ForceRefresh: m["force_refresh"] == "true", Trigger: m["trigger"], Total: atoi("total"), Processed: atoi("processed"),
		Errors: atoi("errors"), CurrentSymbol: m["current_symbol"], StartedAt: tparse(m["started_at"]), FinishedAt: tparse(m["finished_at"]),
		Error: m["error"], PreviousRunID: m["previous_run_id"], Owner: m["owner"]}
	if t := tparse(m["created_at"]); t != nil {
		r.CreatedAt = *t
	}
	if t := tparse(m["updated_at"]); t != nil {
		r.UpdatedAt = *t
	}
	return r
}

// Run reads a run and what is left of its lease (one round trip).
func (s *RunStore) Run(ctx context.Context, id string) (bulk.Run, bool, error) {
	res := s.c.DoMulti(ctx, s.c.B().Hgetall().Key(runKey(id)).Build(), s.c.B().Pttl().Key(runLeaseKey(id)).Build())
	return runOf(res[0], res[1])
}

// runOf reads a run from its HGETALL and its lease's PTTL.
func runOf(rec, pttl rueidis.RedisResult) (bulk.Run, bool, error) {
	m, err := rec.AsStrMap()
	if err != nil {
		return bulk.Run{}, false, err
	}
	if m["run_id"] == "" {
		return bulk.Run{}, false, nil
	}
	ms, err := pttl.AsInt64()
	if err != nil {
		return bulk.Run{}, false, err
	}
	r := runFromMap(m)
	r.LeaseLeft = -1
	if ms >= 0 {
		r.LeaseLeft = time.Duration(ms) * time.Millisecond
	}
	return r, true, nil
}

// SetStatus implements bulk.Store with the run_status script.
func (s *RunStore) SetStatus(ctx context.Context, id, status string, from []string, at time.Time, errMsg string) (bool, error) {
	args := append([]string{status, tstr(at), errMsg}, from...)
	n, err := runStatusScript.Exec(ctx, s.c, []string{runKey(id)}, args).AsInt64()
	return n == 1, err
}

// SetProgress records the current symbol and the counts of an existing run; it never touches the status.
func (s *RunStore) SetProgress(ctx context.Context, id, current string, processed, errors int, at time.Time) error {
	return runProgressScript.Exec(ctx, s.c, []string{runKey(id)}, []string{current, strconv.Itoa(processed), strconv.Itoa(errors), tstr(at)}).Error()
}

// RunSymbols reads the constituent snapshot.
func (s *RunStore) RunSymbols(ctx context.Context, id string) ([]string, error) {
	return s.c.Do(ctx, s.c.B().Lrange().Key(runSymbolsKey(id)).Start(0).Stop(-1).Build()).AsStrSlice()
}

// PutItem stores a symbol's outcome once (HSETNX) while the run exists: a resumed run never writes a
// symbol twice, and a worker finishing after the run was deleted writes nothing.
func (s *RunStore) PutItem(ctx context.Context, id string, it bulk.Item) (bool, error) {
	b, err := json.Marshal(it)
	if err != nil {
		return false, err
	}
	n, err := runPutItemScript.Exec(ctx, s.c, []string{runKey(id), runItemsKey(id)}, []string{it.Symbol, string(b)}).AsInt64()
	return n == 1, err
}

// Items reads every outcome of a run, by symbol.
func (s *RunStore) Items(ctx context.Context, id string) ([]bulk.Item, error) {
	m, err := s.c.Do(ctx, s.c.B().Hgetall().Key(runItemsKey(id)).Build()).AsStrMap()
	if err != nil {
		return nil, err
	}
	out := make([]bulk.Item, 0, len(m))
	for _, v := range m {
		var it bulk.Item
		if err := json.Unmarshal([]byte(v), &it); err != nil {
			return nil, err
		}
		if it.Result != nil {
			upgradeResult(it.Result) // written before the client-ecosystem fields: by_methodology keys, percent
		}
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Symbol < out[j].Symbol })
	return out, nil
}

// DoneSymbols lists the symbols with an outcome.
func (s *RunStore) DoneSymbols(ctx context.Context, id string) (map[string]bool, error) {
	keys, err := s.c.Do(ctx, s.c.B().Hkeys().Key(runItemsKey(id)).Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(keys))
	for _, k := range keys {
		out[k] = true
	}
	return out, nil
}

// Runs lists runs newest first with filters; runs are few (one per index per schedule), so the
// filtering reads every record.
func (s *RunStore) Runs(ctx context.Context, f bulk.Filter, offset, limit int) ([]bulk.Run, int, error) {
	since := "-inf"
	if !f.Since.IsZero() {
		since = strconv.FormatInt(f.Since.UnixMilli(), 10)
	}
	ids, err := s.c.Do(ctx, s.c.B().Zrevrangebyscore().Key(runsKey()).Max("+inf").Min(since).Build()).AsStrSlice()
	if err != nil {
		return nil, 0, err
	}
	var all []bulk.Run
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		cmds := make(rueidis.Commands, 0, 2*len(part))
		for _, id := range part {
			cmds = append(cmds, s.c.B().Hgetall().Key(runKey(id)).Build(), s.c.B().Pttl().Key(runLeaseKey(id)).Build())
		}
		res := s.c.DoMulti(ctx, cmds...)
		for i := 0; i < len(res); i += 2 {
			run, ok, err := runOf(res[i], res[i+1])
			if err != nil {
				return nil, 0, err
			}
			if !ok {
				continue
			}
			if (f.IndexName == "" || run.IndexName == f.IndexName) && (f.Status == "" || run.Status == f.Status) {
				all = append(all, run)
			}
		}
	}
	total := len(all)
	if offset >= total {
		return []bulk.Run{}, total, nil
	}
	if limit < total-offset {
		return all[offset : offset+limit], total, nil
	}
	return all[offset:], total, nil
}

// DeleteRun removes every key of the run: its record, symbols, items and lease (one DEL: they share a
// slot), then its history entry. A worker still finishing the run afterwards recreates nothing
// (run_put_item, run_progress, run_status and run_lease all require the record).
func (s *RunStore) DeleteRun(ctx context.Context, id string) error {
	return s.doAll(ctx, rueidis.Commands{
		s.c.B().Del().Key(runKey(id), runSymbolsKey(id), runItemsKey(id), runLeaseKey(id)).Build(),
		s.c.B().Zrem().Key(runsKey()).Member(id).Build(),
	})
}

// ClaimIndex sets the index's active run unless another holds it; it returns the holder.
func (s *RunStore) ClaimIndex(ctx context.Context, index, runID string, ttl time.Duration) (string, bool, error) {
	ok, err := s.c.Do(ctx, s.c.B().Set().Key(indexActiveKey(index)).Value(runID).Nx().Ex(ttl).Build()).AsBool()
	if err != nil && !rueidis.IsRedisNil(err) {
		return "", false, err
	}
	if ok {
		return runID, true, nil
	}
	holder, err := s.c.Do(ctx, s.c.B().Get().Key(indexActiveKey(index)).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false, nil // expired meanwhile: the caller may retry
	}
	return holder, false, err
}

// ReleaseIndex frees the index if runID holds it (compare and delete in one script).
func (s *RunStore) ReleaseIndex(ctx context.Context, index, runID string) error {
	return releaseIndexScript.Exec(ctx, s.c, []string{indexActiveKey(index)}, []string{runID}).Error()
}

// AcquireLease implements bulk.Store with the run_lease script.
func (s *RunStore) AcquireLease(ctx context.Context, id, token string, ttl time.Duration) (bool, error) {
	return s.lease(ctx, id, token, ttl, "acquire")
}

// RenewLease implements bulk.Store with the run_lease script.
func (s *RunStore) RenewLease(ctx context.Context, id, token string, ttl time.Duration) (bool, error) {
	return s.lease(ctx, id, token, ttl, "renew")
}

func (s *RunStore) lease(ctx context.Context, id, token string, ttl time.Duration, mode string) (bool, error) {
	n, err := runLeaseScript.Exec(ctx, s.c, []string{runKey(id), runLeaseKey(id)}, []string{token, strconv.FormatInt(ttl.Milliseconds(), 10), mode}).AsInt64()
	return n == 1, err
}

// ReleaseLease frees the lease if the token holds it (compare and delete, as release_index does).
func (s *RunStore) ReleaseLease(ctx context.Context, id, token string) error {
	return releaseIndexScript.Exec(ctx, s.c, []string{runLeaseKey(id)}, []string{token}).Error()
}
