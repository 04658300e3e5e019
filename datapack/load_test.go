package datapack

import (
	"context"
	"fmt"
	"os"
	"testing"
	"testing/fstest"
	"time"

	"github.com/redis/rueidis"
	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/datapack/defaultpack"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
)

// freshStore starts a Redis of its own for the test.
func freshStore(t *testing.T) (*sredis.RefStore, rueidis.Client) {
	t.Helper()
	c, err := sredis.Open(testsvc.MustRedis(t).RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return sredis.NewRefStore(c), c
}

// snapshot dumps every key's serialized value except the version counter.
func snapshot(t *testing.T, c rueidis.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := c.Do(ctx, c.B().Keys().Pattern("*").Build()).AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		if k == "shr:ref:version" {
			continue
		}
		typ, _ := c.Do(ctx, c.B().Type().Key(k).Build()).ToString()
		switch typ {
		case "string":
			v, _ := c.Do(ctx, c.B().Get().Key(k).Build()).ToString()
			out[k] = v
		case "hash":
			m, _ := c.Do(ctx, c.B().Hgetall().Key(k).Build()).AsStrMap()
			out[k] = fmt.Sprint(m)
		case "set":
			m, _ := c.Do(ctx, c.B().Smembers().Key(k).Build()).AsStrSlice()
			out[k] = fmt.Sprint(len(m))
		default:
			out[k] = typ
		}
	}
	return out
}

func TestLoadTwiceChangesNothing(t *testing.T) {
	t.Parallel()
	st, c := freshStore(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	p := ReadPack(defaultpack.FS, "default-pack", true)
	rep, err := Load(ctx, st, p, Extras{}, now)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Assets != 50 || rep.Quotes != 50 || rep.Illustrative != 33 {
		t.Fatalf("first load: %+v", rep)
	}
	before := snapshot(t, c)
	rep2, err := Load(ctx, st, ReadPack(defaultpack.FS, "default-pack", true), Extras{}, now)
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Illustrative != 0 {
		t.Fatalf("second load made %d illustrative periods again", rep2.Illustrative)
	}
	after := snapshot(t, c)
	if len(before) != len(after) {
		t.Fatalf("%d keys before, %d after", len(before), len(after))
	}
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("key %s changed on reload:\n%.300s\n%.300s", k, v, after[k])
		}
	}
	// Every default equity can be screened offline: all inputs present, all labelled illustrative.
	for _, a := range p.Assets {
		if a.Type != shariah.Equity {
			continue
		}
		fs, _ := st.Fundamentals(ctx, a.Symbol)
		if len(fs) == 0 {
			t.Fatalf("%s has no fundamentals", a.Symbol)
		}
		last := fs[len(fs)-1]
		for _, f := range shariah.Fields {
			fact, ok := last.Facts[f]
			if !ok || fact.Source != shariah.SourceIllustrative {
				t.Fatalf("%s %s: %+v", a.Symbol, f, fact)
			}
		}
	}
}

func TestBadPackLosesNothingStored(t *testing.T) {
	t.Parallel()
	st, c := freshStore(t)
	ctx := context.Background()
	now := time.Now()
	if _, err := Load(ctx, st, ReadPack(defaultpack.FS, "default-pack", true), Extras{}, now); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, c)
	bad := fstest.MapFS{
		"companies.csv":    file("symbol,name,asset_type\nAAPL,,equity\n$$$,x,equity\n"),
		"prices.csv":       file("symbol,date,close\nAAPL,2026-10-30,-1\nAAPL,not-a-date,5\n"),
		"fundamentals.csv": file("symbol,period_end,period,total_assets,source\nAAPL,2025-12-31,FY,abc,illustrative\n"),
		"indices.csv":      file("index_name,symbol\nNOT AN INDEX!,AAPL\n"),
	}
	p := ReadPack(bad, "bad", false)
	if len(p.Problems) != 6 {
		t.Fatalf("problems: %v", p.Problems)
	}
	if _, err := Load(ctx, st, p, Extras{}, now); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, c)
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("a bad pack changed %s", k)
		}
	}
}

func TestLoadSharedSEC(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = "../../shared/data"
	}
	if _, err := os.Stat(dir + "/sec"); err != nil {
		t.Skipf("shared data not found at %s (set SHARIAH_DATA_DIR): %v", dir, err)
	}
	st, _ := freshStore(t)
	ctx := context.Background()
	p := ReadSEC(os.DirFS(dir))
	if _, err := Load(ctx, st, p, Extras{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	fs, _ := st.Fundamentals(ctx, "AAPL")
	var q3 *shariah.Fundamentals
	for i := range fs {
		if fs[i].PeriodEnd == "2024-06-29" && fs[i].Period == "Q3" {
			q3 = &fs[i]
		}
	}
	// 10-Q 0000320193-24-000081: Assets 331,612,000,000 at 2024-06-29.
	if q3 == nil || q3.Facts[shariah.TotalAssets].Value.String() != "331612000000" || q3.Facts[shariah.TotalAssets].Ref != "0000320193-24-000081" {
		t.Fatalf("AAPL Q3 fiscal 2024: %+v", q3)
	}
	a, _, _ := st.Asset(ctx, "AAPL")
	if a.SIC != "3571" || a.CIK != "0000320193" {
		t.Fatalf("AAPL record %+v", a)
	}
}

// TestLoadCountsFundamentalsBySource: the stats' counts of companies by what their fundamentals stand
// on are kept by every write, and a load restores them for data stored before they existed.
func TestLoadCountsFundamentalsBySource(t *testing.T) {
	t.Parallel()
	st, c := freshStore(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	if _, err := Load(ctx, st, ReadPack(defaultpack.FS, "default-pack", true), Extras{}, now); err != nil {
		t.Fatal(err)
	}
	if filed, illus, err := st.CompaniesBySource(ctx); err != nil || filed != 0 || illus != 33 {
		t.Fatalf("after the default pack: filed %d, illustrative %d, %v", filed, illus, err)
	}
	// A filing replaces one company's illustrative numbers.
	f := shariah.Fact{Value: shariah.NewNumber(decimal.NewFromInt(5)), Source: shariah.SourceFiling, Ref: "0000000000-26-000001"}
	if err := st.PutFundamentals(ctx, map[string][]shariah.Fundamentals{"MSFT": {{Symbol: "MSFT", PeriodEnd: "2026-06-30", Period: "FY",
		Facts: map[shariah.Field]shariah.Fact{shariah.TotalAssets: f}}}}); err != nil {
		t.Fatal(err)
	}
	if filed, illus, _ := st.CompaniesBySource(ctx); filed != 1 || illus != 32 {
		t.Fatalf("after a filing: filed %d, illustrative %d", filed, illus)
	}
	// Data stored before the counts existed: a reload counts it again.
	keys, _ := c.Do(ctx, c.B().Keys().Pattern("shr:fund-source:*").Build()).AsStrSlice()
	for _, k := range keys {
		c.Do(ctx, c.B().Del().Key(k).Build())
	}
	if _, err := Load(ctx, st, ReadPack(defaultpack.FS, "default-pack", true), Extras{}, now); err != nil {
		t.Fatal(err)
	}
	if filed, illus, _ := st.CompaniesBySource(ctx); filed != 1 || illus != 32 {
		t.Fatalf("after a reload: filed %d, illustrative %d", filed, illus)
	}
}
