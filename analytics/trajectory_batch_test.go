package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/analytics"
	"github.com/shariah-screen/shariah/insights"
)

// TestFiledTrajectoriesReadsManySymbolsAtOnce: the last n filed quarters of each symbol, oldest first,
// in one query; illustrative quarters neither show nor take a filed quarter's place; FY rows and
// symbols without filed quarters are absent.
func TestFiledTrajectoriesReadsManySymbolsAtOnce(t *testing.T) {
	t.Parallel()
	db := setup(t)
	ctx := context.Background()
	tr := analytics.Trajectory{DB: db}
	f := func(v float64) *float64 { return &v }
	quarters := func(n int, source string, debt float64) []insights.TrajectoryPoint {
		var pts []insights.TrajectoryPoint
		for i := range n {
			end := time.Date(2023, time.Month(3*(i%4)+3), 30, 0, 0, 0, 0, time.UTC).AddDate(i/4, 0, 0)
			pts = append(pts, insights.TrajectoryPoint{PeriodEnd: end.Format("2006-01-02"), Period: fmt.Sprintf("Q%d", i%4+1),
				DebtAssets: f(debt + float64(i)/100), Source: source, Accession: fmt.Sprintf("acc-%d", i)})
		}
		return pts
	}
	mixed := quarters(6, shariah.SourceFiling, 0.2)
	mixed = append(mixed, insights.TrajectoryPoint{PeriodEnd: "2024-12-31", Period: "Q4", DebtAssets: f(0.9), Source: shariah.SourceIllustrative},
		insights.TrajectoryPoint{PeriodEnd: "2025-03-31", Period: "Q1", DebtAssets: f(0.9), Source: shariah.SourceIllustrative},
		insights.TrajectoryPoint{PeriodEnd: "2025-06-30", Period: "FY", DebtAssets: f(0.9), Source: shariah.SourceFiling})
	if err := tr.PutTrajectories(ctx, map[string][]insights.TrajectoryPoint{
		"AAA": quarters(10, shariah.SourceFiling, 0.1), "BBB": quarters(3, shariah.SourceFiling, 0.3),
		"MIX": mixed, "ILL": quarters(4, shariah.SourceIllustrative, 0.5),
	}); err != nil {
		t.Fatal(err)
	}
	got, err := tr.FiledTrajectories(ctx, []string{"AAA", "BBB", "MIX", "ILL", "NONE"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	ends := func(sym string) string {
		var s []string
		for _, p := range got[sym] {
			if p.Source != shariah.SourceFiling {
				t.Errorf("%s: a %s quarter", sym, p.Source)
			}
			s = append(s, fmt.Sprintf("%s=%.2f", p.PeriodEnd, *p.DebtAssets))
		}
		return fmt.Sprint(s)
	}
	for sym, want := range map[string]string{
		"AAA": "[2024-09-30=0.16 2024-12-30=0.17 2025-03-30=0.18 2025-06-30=0.19]",
		"BBB": "[2023-03-30=0.30 2023-06-30=0.31 2023-09-30=0.32]",
		"MIX": "[2023-09-30=0.22 2023-12-30=0.23 2024-03-30=0.24 2024-06-30=0.25]",
	} {
		if g := ends(sym); g != want {
			t.Errorf("%s: %s, want %s", sym, g, want)
		}
	}
	if _, ok := got["ILL"]; ok || len(got) != 3 {
		t.Errorf("symbols without filed quarters answered: %v", got)
	}
}
