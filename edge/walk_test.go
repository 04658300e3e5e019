package edge_test

import (
	"context"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/app"
	"github.com/shariah-screen/shariah/screening"
)

// TestScreeningWalksDownOnce (issue 28: "a symbol's walk through a screening crosses each package once,
// no climb back up"): GET /api/screen/{symbol} on a cache miss, with the screener's input reader and
// result store wrapped to capture the goroutine's stack where they are called (the inputs read, the
// result store's reads and its write), and the disclaimers too: the engine is pure and takes nothing to
// wrap, and the screener attaches the disclaimers right after it, from the same frame. Each stack,
// mapped to the module's packages from the outermost frame in (frames outside the module, fiber's
// among them, left out), must name each package in one run only: a package that appears, is left
// for another and appears again is a climb back up.
func TestScreeningWalksDownOnce(t *testing.T) {
	t.Parallel()
	rec := &stacks{}
	e := setup(t, options{wrap: func(s *app.Services) {
		s.Screener.Ref = walkInputs{InputReader: s.Screener.Ref, rec: rec}
		s.Screener.Results = walkResults{ResultStore: s.Screener.Results, rec: rec}
		disclaimers := s.Screener.Disclaimers
		s.Screener.Disclaimers = func(ids ...string) []shariah.Disclaimer {
			rec.capture("engine (the disclaimers attached after it)")
			return disclaimers(ids...)
		}
	}})
	k := e.newKey(t, account.PlanPro)
	if r := e.do(t, "GET", "/api/screen/AAPL", nil, key(k)); r.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/screen/AAPL: %d %s", r.StatusCode, r.body)
	}
	got := rec.walks()
	for _, point := range []string{"Asset", "Fundamentals", "Series", "PutResult", "engine (the disclaimers attached after it)"} {
		if _, ok := got[point]; !ok {
			t.Errorf("no stack captured at %s (a cache miss reads the inputs, screens and stores the result)", point)
		}
	}
	for point, walks := range got {
		for _, w := range walks {
			t.Logf("%-45s %s\n\t%s", point, strings.Join(w.packages, " > "), strings.Join(w.functions, " > "))
			if again := climbs(w.packages); again != "" {
				t.Errorf("%s: the walk climbs back up into %s: %s", point, again, strings.Join(w.packages, " > "))
			}
		}
	}
}

// TestWalkFindsAClimb holds the walk's measure to what it must see: frames mapped to the module's
// packages (fiber's and the test's own left out), and a package entered twice found.
func TestWalkFindsAClimb(t *testing.T) {
	for f, want := range map[string]string{
		"github.com/shariah-screen/shariah/screening.(*Screener).compute":       "screening",
		"github.com/shariah-screen/shariah/screening.(*Screener).Screen.func1":  "screening",
		"github.com/shariah-screen/shariah.Errorf":                              ".",
		"github.com/shariah-screen/shariah/ingest/sec.(*Source).Run":            "ingest/sec",
		"github.com/gofiber/fiber/v2.(*Ctx).Next":                               "",
		"github.com/shariah-screen/shariah/edge_test.walkInputs.Fundamentals":   "",
		"github.com/shariah-screen/shariah-other/screening.(*Screener).compute": "",
	} {
		if got := modulePackage(f); got != want {
			t.Errorf("modulePackage(%s) = %q, want %q", f, got, want)
		}
	}
	if got := climbs([]string{"edge", "screening", "market", "screening"}); got != "screening" {
		t.Errorf("edge > screening > market > screening: climbs %q, want screening", got)
	}
	if got := climbs([]string{"edge", "screening", "market", "."}); got != "" {
		t.Errorf("edge > screening > market > .: climbs %q, want none", got)
	}
}

// climbs returns a package the walk enters a second time, after leaving it ("" when none).
func climbs(walk []string) string {
	seen := map[string]bool{}
	for _, p := range walk {
		if seen[p] {
			return p
		}
		seen[p] = true
	}
	return ""
}

// stacks keeps, per capture point, the distinct walks through the module's packages of the stacks
// taken there.
type stacks struct {
	mu sync.Mutex
	at map[string][]walk
}

// walk is a stack's path through the module, outermost first: its packages (a run of frames of one
// package counted once) and its functions.
type walk struct{ packages, functions []string }

func (s *stacks) capture(point string) {
	pcs := make([]uintptr, 256)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var w walk // innermost first until reversed
	for {
		f, more := frames.Next()
		if p := modulePackage(f.Function); p != "" {
			w.functions = append(w.functions, f.Function[strings.LastIndexByte(f.Function, '/')+1:])
			if len(w.packages) == 0 || w.packages[len(w.packages)-1] != p {
				w.packages = append(w.packages, p)
			}
		}
		if !more {
			break
		}
	}
	slices.Reverse(w.packages)
	slices.Reverse(w.functions)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[string][]walk{}
	}
	if !slices.ContainsFunc(s.at[point], func(o walk) bool { return slices.Equal(o.packages, w.packages) }) {
		s.at[point] = append(s.at[point], w)
	}
}

func (s *stacks) walks() map[string][]walk {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.at
}

// modulePackage is the module package of a frame's function, relative to the module ("." for the
// kernel), or "" for a function outside the module or of a test package.
func modulePackage(function string) string {
	const module = "github.com/shariah-screen/shariah"
	if !strings.HasPrefix(function, module+".") && !strings.HasPrefix(function, module+"/") {
		return ""
	}
	path := function
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		if j := strings.IndexByte(path[i:], '.'); j >= 0 {
			path = path[:i+j]
		}
	}
	if path == module {
		return "."
	}
	path = strings.TrimPrefix(path, module+"/")
	if strings.HasSuffix(path, "_test") {
		return ""
	}
	return path
}

// walkInputs captures the stack where the screener reads its inputs.
type walkInputs struct {
	screening.InputReader
	rec *stacks
}

func (w walkInputs) Version(ctx context.Context) (int64, error) {
	w.rec.capture("Version")
	return w.InputReader.Version(ctx)
}

func (w walkInputs) Asset(ctx context.Context, symbol string) (shariah.Asset, bool, error) {
	w.rec.capture("Asset")
	return w.InputReader.Asset(ctx, symbol)
}

func (w walkInputs) Fundamentals(ctx context.Context, symbol string) ([]shariah.Fundamentals, error) {
	w.rec.capture("Fundamentals")
	return w.InputReader.Fundamentals(ctx, symbol)
}

func (w walkInputs) Series(ctx context.Context, symbol, interval string) (shariah.Series, bool, error) {
	w.rec.capture("Series")
	return w.InputReader.Series(ctx, symbol, interval)
}

// walkResults captures the stack where the screener reads and writes the result store.
type walkResults struct {
	screening.ResultStore
	rec *stacks
}

func (w walkResults) ServedResult(ctx context.Context, symbol, ruleset string) (shariah.StoredResult, bool, error) {
	w.rec.capture("ServedResult")
	return w.ResultStore.ServedResult(ctx, symbol, ruleset)
}

func (w walkResults) Result(ctx context.Context, symbol, ruleset string) (screening.Result, int64, bool, error) {
	w.rec.capture("Result")
	return w.ResultStore.Result(ctx, symbol, ruleset)
}

func (w walkResults) PutResult(ctx context.Context, r screening.Result, version int64) error {
	w.rec.capture("PutResult")
	return w.ResultStore.PutResult(ctx, r, version)
}
