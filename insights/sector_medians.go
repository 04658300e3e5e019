package insights

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"
)

// SectorQuarter is one calendar quarter of a sector: how many companies filed a quarter ending in it
// and the median of each trajectory ratio among those that have it (nil when none has).
type SectorQuarter struct {
	Quarter         string   `json:"quarter"` // 2025-Q3
	Companies       int      `json:"companies"`
	DebtAssets      *float64 `json:"debt_to_assets"`
	CashAssets      *float64 `json:"cash_to_assets"`
	LiquidityAssets *float64 `json:"liquidity_to_assets"`
	InterestRevenue *float64 `json:"interest_to_revenue"`
}

// SectorMedian is one sector's quarters, oldest first.
type SectorMedian struct {
	Sector   string          `json:"sector"`
	Quarters []SectorQuarter `json:"quarters"`
}

// CalendarQuarter names the calendar quarter a date falls in ("2025-09-27" is "2025-Q3"); "" when the
// date does not parse. Fiscal quarters differ between companies (Apple's Q4 ends in late September), so
// medians compare companies by the calendar quarter their period ended in.
func CalendarQuarter(periodEnd string) string {
	t, err := time.Parse("2006-01-02", periodEnd)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d-Q%d", t.Year(), (int(t.Month())+2)/3)
}

// previousQuarter is the calendar quarter before q ("2025-Q1" gives "2024-Q4").
func previousQuarter(q string) string {
	y, _ := strconv.Atoi(q[:4])
	n := int(q[6] - '0')
	if n == 1 {
		return fmt.Sprintf("%d-Q4", y-1)
	}
	return fmt.Sprintf("%d-Q%d", y, n-1)
}

// SectorMediansOf computes, per sector (sectorOf a symbol; "" is Unclassified) and calendar quarter,
// the median of each trajectory ratio over the companies with a quarter ending in it. The window is the
// `quarters` calendar quarters up to the latest one any company filed, every sector listing each of
// them (companies 0 and nil medians where none filed), so the sectors share one axis. A company with two
// quarters ending in one calendar quarter counts once, with the later. An even count's median is the
// mean of the middle two. Sectors are in alphabetical order.
func SectorMediansOf(bySymbol map[string][]TrajectoryPoint, sectorOf map[string]string, quarters int) []SectorMedian {
	latest := ""
	for _, pts := range bySymbol {
		for _, p := range pts {
			if q := CalendarQuarter(p.PeriodEnd); q > latest {
				latest = q
			}
		}
	}
	out := []SectorMedian{}
	if latest == "" || quarters < 1 {
		return out
	}
	window := make([]string, quarters)
	for i, q := quarters-1, latest; i >= 0; i, q = i-1, previousQuarter(q) {
		window[i] = q
	}
	inWindow := map[string]int{}
	for i, q := range window {
		inWindow[q] = i
	}
	// sector -> quarter index -> symbol -> the company's last point ending in that quarter
	cells := map[string][]map[string]TrajectoryPoint{}
	for sym, pts := range bySymbol {
		sector := sectorOf[sym]
		if sector == "" {
			sector = "Unclassified"
		}
		for _, p := range pts {
			i, ok := inWindow[CalendarQuarter(p.PeriodEnd)]
			if !ok {
				continue
			}
			if cells[sector] == nil {
				cells[sector] = make([]map[string]TrajectoryPoint, quarters)
			}
			if cells[sector][i] == nil {
				cells[sector][i] = map[string]TrajectoryPoint{}
			}
			if old, ok := cells[sector][i][sym]; !ok || p.PeriodEnd > old.PeriodEnd {
				cells[sector][i][sym] = p
			}
		}
	}
	for sector, qs := range cells {
		sm := SectorMedian{Sector: sector, Quarters: make([]SectorQuarter, quarters)}
		for i, byS := range qs {
			sq := SectorQuarter{Quarter: window[i], Companies: len(byS)}
			med := func(ratio string) *float64 {
				var vs []float64
				for _, p := range byS {
					if v := p.RatioOf(ratio); v != nil {
						vs = append(vs, *v)
					}
				}
				return Median(vs)
			}
			sq.DebtAssets, sq.CashAssets = med(RatioDebtAssets), med(RatioCashAssets)
			sq.LiquidityAssets, sq.InterestRevenue = med(RatioLiquidityAssets), med(RatioInterestRevenue)
			sm.Quarters[i] = sq
		}
		out = append(out, sm)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Sector < out[j].Sector })
	return out
}

// Median is the middle of the values (the mean of the middle two for an even count), 8 decimal places;
// nil for none. vs is sorted in place.
func Median(vs []float64) *float64 {
	if len(vs) == 0 {
		return nil
	}
	sort.Float64s(vs)
	m := vs[len(vs)/2]
	if len(vs)%2 == 0 {
		m = (vs[len(vs)/2-1] + m) / 2
	}
	m = math.Round(m*1e8) / 1e8
	return &m
}
