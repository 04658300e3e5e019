package redis

import (
	"context"
	_ "embed"
	"encoding/json"
	"sort"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
)

// Run keys share the run id's hash tag; the history is a sorted set by creation time; an index's
// active run is a string with a TTL (a crashed scheduler cannot hold an index forever).
func runKey(id string) string         { return "shr:run:{" + id + "}" }
func runSymbolsKey(id string) string  { return "shr:run:{" + id + "}:symbols" }
func runItemsKey(id string) string    { return "shr:run:{" + id + "}:items" }
func runsKey() string                 { return "shr:runs" }
func indexActiveKey(ix string) string { return "shr:runs:active:" + ix }

//go:embed lua/run_status.lua
var runStatusSrc string

//go:embed lua/release_index.lua
var releaseIndexSrc string

var (
	runStatusScript    = rueidis.NewLuaScript(runStatusSrc)
	releaseIndexScript = rueidis.NewLuaScript(releaseIndexSrc)
)

// RunStore implements shariah.RunStore.
type RunStore struct{ c rueidis.Client }

var _ shariah.RunStore = (*RunStore)(nil)

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
func (s *RunStore) CreateRun(ctx context.Context, r shariah.Run, symbols []string) error {
	cmds := rueidis.Commands{
		s.c.B().Hset().Key(runKey(r.ID)).FieldValue().
			FieldValue("run_id", r.ID).FieldValue("index_name", r.IndexName).FieldValue("status", r.Status).
			FieldValue("ruleset", r.Ruleset).FieldValue("limit", strconv.Itoa(r.Limit)).
			FieldValue("force_refresh", strconv.FormatBool(r.ForceRefresh)).FieldValue("trigger", r.Trigger).
			FieldValue("total", strconv.Itoa(len(symbols))).FieldValue("processed", "0").FieldValue("errors", "0").
			FieldValue("created_at", tstr(r.CreatedAt)).FieldValue("updated_at", tstr(r.CreatedAt)).
			FieldValue("previous_run_id", r.PreviousRunID).Build(),
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

func runFromMap(m map[string]string) shariah.Run {
	atoi := func(k string) int { n, _ := strconv.Atoi(m[k]); return n }
	r := shariah.Run{ID: m["run_id"], IndexName: m["index_name"], Status: m["status"], Ruleset: m["ruleset"], Limit: atoi("limit"),
		ForceRefresh: m["force_refresh"] == "true", Trigger: m["trigger"], Total: atoi("total"), Processed: atoi("processed"),
		Errors: atoi("errors"), CurrentSymbol: m["current_symbol"], StartedAt: tparse(m["started_at"]), FinishedAt: tparse(m["finished_at"]),
		Error: m["error"], PreviousRunID: m["previous_run_id"]}
	if t := tparse(m["created_at"]); t != nil {
		r.CreatedAt = *t
	}
	if t := tparse(m["updated_at"]); t != nil {
		r.UpdatedAt = *t
	}
	return r
}

// Run reads a run.
func (s *RunStore) Run(ctx context.Context, id string) (shariah.Run, bool, error) {
	m, err := s.c.Do(ctx, s.c.B().Hgetall().Key(runKey(id)).Build()).AsStrMap()
	if err != nil {
		return shariah.Run{}, false, err
	}
	if m["run_id"] == "" {
		return shariah.Run{}, false, nil
	}
	return runFromMap(m), true, nil
}

// SetStatus implements shariah.RunStore with the run_status script.
func (s *RunStore) SetStatus(ctx context.Context, id, status string, from []string, at time.Time, errMsg string) (bool, error) {
	args := append([]string{status, tstr(at), errMsg}, from...)
	n, err := runStatusScript.Exec(ctx, s.c, []string{runKey(id)}, args).AsInt64()
	return n == 1, err
}

// SetProgress records the current symbol and the counts; it never touches the status.
func (s *RunStore) SetProgress(ctx context.Context, id, current string, processed, errors int, at time.Time) error {
	// HSET on a deleted run would resurrect a stub: only an existing record is updated.
	exists, err := s.c.Do(ctx, s.c.B().Exists().Key(runKey(id)).Build()).AsInt64()
	if err != nil || exists == 0 {
		return err
	}
	return s.c.Do(ctx, s.c.B().Hset().Key(runKey(id)).FieldValue().FieldValue("current_symbol", current).
		FieldValue("processed", strconv.Itoa(processed)).FieldValue("errors", strconv.Itoa(errors)).
		FieldValue("updated_at", tstr(at)).Build()).Error()
}

// RunSymbols reads the constituent snapshot.
func (s *RunStore) RunSymbols(ctx context.Context, id string) ([]string, error) {
	return s.c.Do(ctx, s.c.B().Lrange().Key(runSymbolsKey(id)).Start(0).Stop(-1).Build()).AsStrSlice()
}

// PutItem stores a symbol's outcome once (HSETNX): a resumed run never writes a symbol twice.
func (s *RunStore) PutItem(ctx context.Context, id string, it shariah.RunItem) (bool, error) {
	b, err := json.Marshal(it)
	if err != nil {
		return false, err
	}
	return s.c.Do(ctx, s.c.B().Hsetnx().Key(runItemsKey(id)).Field(it.Symbol).Value(rueidis.BinaryString(b)).Build()).AsBool()
}

// Items reads every outcome of a run, by symbol.
func (s *RunStore) Items(ctx context.Context, id string) ([]shariah.RunItem, error) {
	m, err := s.c.Do(ctx, s.c.B().Hgetall().Key(runItemsKey(id)).Build()).AsStrMap()
	if err != nil {
		return nil, err
	}
	out := make([]shariah.RunItem, 0, len(m))
	for _, v := range m {
		var it shariah.RunItem
		if err := json.Unmarshal([]byte(v), &it); err != nil {
			return nil, err
		}
		if it.Result != nil {
			it.Result.Normalize() // written before the client-ecosystem fields: by_methodology keys, percent
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
func (s *RunStore) Runs(ctx context.Context, f shariah.RunFilter, offset, limit int) ([]shariah.Run, int, error) {
	ids, err := s.c.Do(ctx, s.c.B().Zrevrange().Key(runsKey()).Start(0).Stop(-1).Build()).AsStrSlice()
	if err != nil {
		return nil, 0, err
	}
	var all []shariah.Run
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		cmds := make(rueidis.Commands, len(part))
		for i, id := range part {
			cmds[i] = s.c.B().Hgetall().Key(runKey(id)).Build()
		}
		for _, r := range s.c.DoMulti(ctx, cmds...) {
			m, err := r.AsStrMap()
			if err != nil {
				return nil, 0, err
			}
			if m["run_id"] == "" {
				continue
			}
			run := runFromMap(m)
			if (f.IndexName == "" || run.IndexName == f.IndexName) && (f.Status == "" || run.Status == f.Status) {
				all = append(all, run)
			}
		}
	}
	total := len(all)
	if offset >= total {
		return []shariah.Run{}, total, nil
	}
	return all[offset:min(offset+limit, total)], total, nil
}

// DeleteRun removes the run and everything it collected.
func (s *RunStore) DeleteRun(ctx context.Context, id string) error {
	return s.doAll(ctx, rueidis.Commands{
		s.c.B().Del().Key(runKey(id), runSymbolsKey(id), runItemsKey(id)).Build(),
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
