package analytics

import (
	"context"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/shariah-screen/shariah/insights"
)

// Trajectory implements insights.TrajectoryStore over ClickHouse.
type Trajectory struct{ DB *DB }

var _ insights.TrajectoryStore = Trajectory{}

// PutTrajectory writes a symbol's quarters in one batch; a quarter written again replaces the old row.
func (t Trajectory) PutTrajectory(ctx context.Context, symbol string, pts []insights.TrajectoryPoint) error {
	return t.PutTrajectories(ctx, map[string][]insights.TrajectoryPoint{symbol: pts})
}

// Trajectory reads the last n quarters of a symbol, oldest first.
func (t Trajectory) Trajectory(ctx context.Context, symbol string, n int) ([]insights.TrajectoryPoint, error) {
	rows, err := t.DB.Conn.Query(ctx, `SELECT toString(period_end), period, toUInt32(fiscal_year), debt_assets, cash_assets, liquidity_assets,
		interest_revenue, has_debt, has_cash, has_liquidity, has_interest, source, accession, form
		FROM `+t.DB.table("trajectory")+` FINAL WHERE symbol = ? AND period != 'FY'
		ORDER BY period_end DESC LIMIT ?`, symbol, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []insights.TrajectoryPoint
	for rows.Next() {
		p, err := scanPoint(rows)
		if err != nil {
			return nil, err
		}
		out = append([]insights.TrajectoryPoint{p}, out...)
	}
	return out, rows.Err()
}

// scanPoint reads one row of the trajectory's columns (after the extra leading ones, such as the
// symbol, given in dst): has_* = 0 is a ratio the filings did not allow (nil).
func scanPoint(rows driver.Rows, dst ...any) (insights.TrajectoryPoint, error) {
	var p insights.TrajectoryPoint
	var fy uint32
	var d, c, l, i float64
	var hd, hc, hl, hi uint8
	if err := rows.Scan(append(dst, &p.PeriodEnd, &p.Period, &fy, &d, &c, &l, &i, &hd, &hc, &hl, &hi, &p.Source, &p.Accession, &p.Form)...); err != nil {
		return p, err
	}
	p.FiscalYear = int(fy)
	insights.DescribeTrajectoryPoint(&p)
	opt := func(v float64, has uint8) *float64 {
		if has == 0 {
			return nil
		}
		return &v
	}
	p.DebtAssets, p.CashAssets, p.LiquidityAssets, p.InterestRevenue = opt(d, hd), opt(c, hc), opt(l, hl), opt(i, hi)
	return p, nil
}
