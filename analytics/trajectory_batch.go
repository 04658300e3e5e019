package analytics

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/shariah-screen/shariah/insights"
)

// PutTrajectories writes many symbols' quarters in one insert. ClickHouse makes a part per insert, so
// a bulk load of thousands of companies (SEC's companyfacts.zip) writes them in batches rather than
// one insert a company. PutTrajectory is the one-symbol case; a quarter written again replaces the
// old row (ReplacingMergeTree).
func (t Trajectory) PutTrajectories(ctx context.Context, bySymbol map[string][]insights.TrajectoryPoint) error {
	syms := make([]string, 0, len(bySymbol))
	for sym, pts := range bySymbol {
		if len(pts) > 0 {
			syms = append(syms, sym)
		}
	}
	if len(syms) == 0 {
		return nil
	}
	sort.Strings(syms)
	b, err := t.DB.Conn.PrepareBatch(t.DB.writeContext(ctx), "INSERT INTO "+t.DB.table("trajectory")+
		" (symbol, period_end, period, fiscal_year, debt_assets, cash_assets, liquidity_assets, interest_revenue,"+
		" has_debt, has_cash, has_liquidity, has_interest, source, accession, ingested_at, form)")
	if err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Second)
	val := func(p *float64) (float64, uint8) {
		if p == nil {
			return 0, 0
		}
		return *p, 1
	}
	for _, sym := range syms {
		for _, p := range bySymbol[sym] {
			end, err := time.Parse("2006-01-02", p.PeriodEnd)
			if err != nil {
				continue
			}
			d, hd := val(p.DebtAssets)
			c, hc := val(p.CashAssets)
			l, hl := val(p.LiquidityAssets)
			i, hi := val(p.InterestRevenue)
			if err := b.Append(sym, end, p.Period, uint16(max(p.FiscalYear, 0)), d, c, l, i, hd, hc, hl, hi, p.Source, p.Accession, now, p.Form); err != nil {
				_ = b.Abort()
				return err
			}
		}
	}
	return b.Send()
}

// filedBatch bounds the symbols of one FiledTrajectories query: an index is a few hundred, and a
// query's text (the IN list) stays small however large a data pack's index is.
const filedBatch = 1000

// FiledTrajectories reads the last n filed quarters (insights.FiledSources) of each symbol, oldest
// first, in one query per filedBatch symbols (LIMIT n BY symbol: ClickHouse cuts each symbol's rows,
// newest first, on the server). Illustrative quarters are filtered in the query, before the limit,
// so they neither show nor take a filed quarter's place.
func (t Trajectory) FiledTrajectories(ctx context.Context, symbols []string, n int) (map[string][]insights.TrajectoryPoint, error) {
	out := map[string][]insights.TrajectoryPoint{}
	for start := 0; start < len(symbols); start += filedBatch {
		batch := symbols[start:min(start+filedBatch, len(symbols))]
		rows, err := t.DB.Conn.Query(ctx, `SELECT symbol, toString(period_end), period, toUInt32(fiscal_year), debt_assets, cash_assets,
			liquidity_assets, interest_revenue, has_debt, has_cash, has_liquidity, has_interest, source, accession, form
			FROM `+t.DB.table("trajectory")+` FINAL WHERE symbol IN (SELECT arrayJoin(?)) AND period != 'FY' AND has(?, source)
			ORDER BY symbol, period_end DESC LIMIT ? BY symbol`, batch, insights.FiledSources, n)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var sym string
			p, err := scanPoint(rows, &sym)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[sym] = append(out[sym], p)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	for _, pts := range out {
		slices.Reverse(pts)
	}
	return out, nil
}
