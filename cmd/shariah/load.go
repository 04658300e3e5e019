package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/datapack"
	"github.com/shariah-screen/shariah/datapack/defaultpack"
	"github.com/shariah-screen/shariah/education"
	"github.com/shariah-screen/shariah/insights"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/rules"
)

// runLoad imports data: `load --default` (the embedded default universe), `load --dir D` (a data pack,
// docs/data-pack.md) and `load --shared D` (the real public data set in its own formats); several may be
// given and run in that order. Bad rows are reported with file and line and skipped; the good ones load.
func runLoad(args []string) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	def := fs.Bool("default", false, "load the embedded default universe (illustrative)")
	dir := fs.String("dir", "", "load a data pack directory (docs/data-pack.md)")
	name := fs.String("name", "", "name of the pack in the records' provenance (default: the directory name)")
	illus := fs.Bool("illustrative", false, "label every number of the --dir pack illustrative")
	shared := fs.String("shared", "", "load the public data set from this directory (../shared/data)")
	maxProblems := fs.Int("problems", 20, "print at most this many row problems per import")
	asJSON := fs.Bool("json", false, "print the reports as JSON")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if !*def && *dir == "" && *shared == "" {
		return usageError{"load: give --default, --dir DIR and/or --shared DIR"}
	}
	e, err := load()
	if err != nil {
		return err
	}
	rc, err := redisFor(e)
	if err != nil {
		return err
	}
	defer rc.Close()
	// Quotes are stored as the body GET /api/quote serves (with the market_data disclaimer).
	rs, err := rules.Rulesets()
	if err != nil {
		return err
	}
	edu, err := education.Load(rs)
	if err != nil {
		return err
	}
	l := &loader{st: sredis.NewRefStore(rc).WithQuoteBodies(edu.QuoteBodies()), sukuk: sredis.NewSukukStore(rc), asJSON: *asJSON, maxProblems: *maxProblems, e: e}
	defer l.close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	run := func(what string, read func() (*datapack.Pack, datapack.Extras, error)) error {
		return l.load(ctx, what, read)
	}
	if *def {
		if err := run("default universe", func() (*datapack.Pack, datapack.Extras, error) {
			return datapack.ReadPack(defaultpack.FS, "default-pack", true), datapack.Extras{}, nil
		}); err != nil {
			return err
		}
	}
	if *dir != "" {
		n := *name
		if n == "" {
			n = filepath.Base(filepath.Clean(*dir))
		}
		if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
			return usageError{fmt.Sprintf("load: --dir %q is not a directory", *dir)}
		}
		if err := run("pack "+*dir, func() (*datapack.Pack, datapack.Extras, error) {
			return datapack.ReadPack(os.DirFS(*dir), n, *illus), datapack.Extras{}, nil
		}); err != nil {
			return err
		}
	}
	if *shared != "" {
		if st, err := os.Stat(*shared); err != nil || !st.IsDir() {
			return usageError{fmt.Sprintf("load: --shared %q is not a directory", *shared)}
		}
		if err := run("shared data "+*shared, func() (*datapack.Pack, datapack.Extras, error) {
			return datapack.ReadAllShared(os.DirFS(*shared))
		}); err != nil {
			return err
		}
	}
	return nil
}

// loader imports packs into one Redis and prints a report of each.
type loader struct {
	st          *sredis.RefStore
	sukuk       *sredis.SukukStore
	asJSON      bool
	maxProblems int
	// e opens ClickHouse for the filed trajectories, once, when a pack has any
	e    *env
	traj *analytics.Trajectory
}

// load reads one pack, stores it and prints its report.
func (l *loader) load(ctx context.Context, what string, read func() (*datapack.Pack, datapack.Extras, error)) error {
	t0 := time.Now()
	p, x, err := read()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	readTime := time.Since(t0)
	rep, err := datapack.Load(ctx, l.st, p, x, time.Now())
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if rep.Sukuk, err = datapack.StoreSukuk(ctx, l.sukuk, p); err != nil {
		return fmt.Errorf("%s: sukuk: %w", what, err)
	}
	l.report(what, rep, readTime)
	l.trajectories(ctx, what, p)
	return nil
}

// trajectories writes the quarterly trajectories of the pack's filed fundamentals to ClickHouse (the
// series the trajectory routes and analytics read). ClickHouse is optional for a load: when it cannot
// take them, a line says so and the load goes on (the SEC ingest writes them later).
func (l *loader) trajectories(ctx context.Context, what string, p *datapack.Pack) {
	byS := insights.FiledTrajectoriesOf(p.Fundamentals)
	if len(byS) == 0 {
		return
	}
	if l.traj == nil {
		db, err := openClickHouse(l.e)
		if err != nil {
			fmt.Printf("%s: filed trajectories not written (ClickHouse: %v)\n", what, err)
			return
		}
		l.traj = &analytics.Trajectory{DB: db}
	}
	n := 0
	for _, pts := range byS {
		n += len(pts)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := l.traj.PutTrajectories(wctx, byS); err != nil {
		fmt.Printf("%s: filed trajectories not written (ClickHouse: %v)\n", what, err)
		return
	}
	if !l.asJSON {
		fmt.Printf("%s: filed trajectories of %d companies (%d quarters) written to ClickHouse\n", what, len(byS), n)
	}
}

// close closes the ClickHouse connection, if the load opened one.
func (l *loader) close() {
	if l.traj != nil {
		_ = l.traj.DB.Close()
	}
}

// report prints one import's counts and its first problems (or one JSON line).
func (l *loader) report(what string, rep datapack.Report, read time.Duration) {
	if l.asJSON {
		b, _ := json.Marshal(map[string]any{"import": what, "report": rep, "read_ms": read.Milliseconds(), "write_ms": rep.Duration.Milliseconds()})
		fmt.Println(string(b))
		return
	}
	fmt.Printf("%s: %d assets, %d series (%d candles), %d fundamental periods (+%d illustrative), %d dividends, %d indices, %d holdings, %d FX rates, %d metal prices, %d quotes, %d sukuk; read %s, written %s\n",
		what, rep.Assets, rep.Series, rep.Bars, rep.Fundamentals, rep.Illustrative, rep.Dividends, rep.Indices, rep.Holdings,
		rep.FX, rep.Metals, rep.Quotes, rep.Sukuk, read.Round(time.Millisecond), rep.Duration.Round(time.Millisecond))
	for i, p := range rep.Problems {
		if i == l.maxProblems {
			fmt.Printf("  ... and %d more problems\n", len(rep.Problems)-i)
			break
		}
		fmt.Printf("  skipped %s\n", p)
	}
}
