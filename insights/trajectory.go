package insights

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// TrajectoryPoint is one quarter of a company's ratio series.
type TrajectoryPoint struct {
	PeriodEnd       string   `json:"period_end"`
	Period          string   `json:"period"`
	FiscalYear      int      `json:"fiscal_year"`
	DebtAssets      *float64 `json:"debt_to_assets"`
	CashAssets      *float64 `json:"cash_to_assets"`
	LiquidityAssets *float64 `json:"liquidity_to_assets"` // (cash and securities + receivables) / total assets
	InterestRevenue *float64 `json:"interest_to_revenue"`
	Source          string   `json:"source"`
	Accession       string   `json:"accession_number"`
	// Label names the quarter ("Q4 2024"); Form is the filing its balance sheet came from (10-Q, 10-K;
	// empty when not recorded). A quarter read from an annual filing says so (FromAnnualFiling, Note):
	// a fourth quarter has no 10-Q, so its balance sheet is the 10-K's fiscal-year end, which is the
	// screening's FY period (ScreeningPeriods), and its revenue and interest income are the quarter's
	// share of the 10-K's year. See DescribeTrajectoryPoint.
	Label            string `json:"label"`
	Form             string `json:"form,omitempty"`
	FromAnnualFiling bool   `json:"from_annual_filing"`
	Note             string `json:"note,omitempty"`
}

// AnnualFilingQuarterNote is the Note of a quarter whose inputs came from an annual filing.
const AnnualFilingQuarterNote = "a quarter read from the annual report (%s): the balance sheet is the fiscal year's (%s), as the screening's; revenue and interest income are the quarter's (the fiscal year less the first three quarters where the filing tags no 3-month figure)"

// DescribeTrajectoryPoint fills a point's Label from its period and fiscal year, and marks a quarter
// whose form is an annual report (10-K, 20-F, 40-F and their amendments) as read from it. The
// trajectory's writers (TrajectoryOf) and its store's readers call it, so a stored point says the same.
func DescribeTrajectoryPoint(p *TrajectoryPoint) {
	p.Label = screening.PeriodLabelOf(p.Period, p.FiscalYear, p.PeriodEnd)
	p.FromAnnualFiling, p.Note = false, ""
	if p.Period != "FY" && IsAnnualForm(p.Form) {
		p.FromAnnualFiling = true
		p.Note = fmt.Sprintf(AnnualFilingQuarterNote, p.Form, screening.PeriodLabelOf("FY", p.FiscalYear, p.PeriodEnd))
	}
}

// IsAnnualForm reports whether an SEC form is an annual report (10-K, 20-F, 40-F, amendments included).
func IsAnnualForm(form string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(form)), "/")
	base, _, _ = strings.Cut(base, " ")
	return base == "10-K" || base == "10-KT" || base == "20-F" || base == "40-F"
}

// TrajectoryStore holds the quarterly ratio series (ClickHouse).
type TrajectoryStore interface {
	PutTrajectory(ctx context.Context, symbol string, pts []TrajectoryPoint) error
	// Trajectory returns the last n quarters, oldest first.
	Trajectory(ctx context.Context, symbol string, n int) ([]TrajectoryPoint, error)
	// FiledTrajectories returns the last n filed quarters of each of many symbols (FiledSources only;
	// symbols without any are absent), oldest first, in one query however many symbols: the index-wide
	// analytics read a whole index at once.
	FiledTrajectories(ctx context.Context, symbols []string, n int) (map[string][]TrajectoryPoint, error)
}

// FiledSources are the sources of trajectory quarters the analytics read: numbers from filings (and a
// live feed of them), never illustrative ones made up for the offline demo.
var FiledSources = []string{shariah.SourceFiling, shariah.SourceLive}

// TrajectoryOf computes the quarterly ratio points of a company's fundamentals (quarters only).
func TrajectoryOf(fs []shariah.Fundamentals) []TrajectoryPoint {
	var out []TrajectoryPoint
	for _, f := range fs {
		if f.Period == "FY" {
			continue
		}
		ta, ok := f.Facts[shariah.TotalAssets]
		if !ok || !ta.Value.IsPositive() {
			continue
		}
		p := TrajectoryPoint{PeriodEnd: f.PeriodEnd, Period: f.Period, FiscalYear: f.FiscalYear, Source: ta.Source, Accession: ta.Ref, Form: ta.Form}
		DescribeTrajectoryPoint(&p)
		rs := BasicRatios(f)
		get := func(name string) *float64 {
			if v, ok := rs[name]; ok {
				return &v
			}
			return nil
		}
		p.DebtAssets, p.CashAssets = get(RatioDebtAssets), get(RatioCashAssets)
		p.LiquidityAssets, p.InterestRevenue = get(RatioLiquidityAssets), get(RatioInterestRevenue)
		out = append(out, p)
	}
	return out
}

// TrajectorySummary says in one line where the ratios went over the quarters given (oldest first).
func TrajectorySummary(pts []TrajectoryPoint) string {
	if len(pts) < 2 {
		return "Not enough quarters on file for a direction."
	}
	first, last := pts[0], pts[len(pts)-1]
	var parts []string
	move := func(name string, a, b *float64) {
		if a == nil || b == nil {
			return
		}
		verb := "was flat at"
		switch d := *b - *a; {
		case d > 0.005:
			verb = "rose from"
		case d < -0.005:
			verb = "fell from"
		}
		if verb == "was flat at" {
			parts = append(parts, fmt.Sprintf("%s %s %.2f%%", name, verb, *b*100))
		} else {
			parts = append(parts, fmt.Sprintf("%s %s %.2f%% to %.2f%%", name, verb, *a*100, *b*100))
		}
	}
	move("debt/assets", first.DebtAssets, last.DebtAssets)
	move("cash/assets", first.CashAssets, last.CashAssets)
	move("liquidity/assets", first.LiquidityAssets, last.LiquidityAssets)
	move("interest/revenue", first.InterestRevenue, last.InterestRevenue)
	if len(parts) == 0 {
		return "The ratios are not available for these quarters."
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + fmt.Sprintf(" over %d quarters (%s to %s).", len(pts), first.PeriodEnd, last.PeriodEnd)
}

// FiledTrajectoriesOf computes the quarterly trajectories of a data pack's companies from their filed
// fundamentals (a quarter whose total assets come from FiledSources; illustrative periods give none),
// by symbol, oldest quarter first. `shariah load --shared` writes them, so the inline-XBRL 10-Qs of the
// shared data set have a trajectory before any SEC ingest has run.
func FiledTrajectoriesOf(fs []shariah.Fundamentals) map[string][]TrajectoryPoint {
	bySym := map[string][]shariah.Fundamentals{}
	for _, f := range fs {
		if ta, ok := f.Facts[shariah.TotalAssets]; ok && slices.Contains(FiledSources, ta.Source) {
			bySym[f.Symbol] = append(bySym[f.Symbol], f)
		}
	}
	out := map[string][]TrajectoryPoint{}
	for sym, periods := range bySym {
		slices.SortStableFunc(periods, func(a, b shariah.Fundamentals) int { return strings.Compare(a.PeriodEnd, b.PeriodEnd) })
		if pts := TrajectoryOf(periods); len(pts) > 0 {
			out[sym] = pts
		}
	}
	return out
}

// PointMarks is the kinds of mark on one quarter of a trajectory: illustrative when its figures were
// not read from a filing or a live feed of one.
func PointMarks(p TrajectoryPoint) []string {
	if p.Source == shariah.SourceIllustrative {
		return []string{screening.MarkIllustrative}
	}
	return nil
}
