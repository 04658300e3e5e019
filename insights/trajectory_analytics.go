package insights

import (
	"context"
	"slices"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/screening"
)

// TrajectoryReader is what the trajectory analytics read of the reference store: the indices (to list
// an index's constituents) and the records and fundamentals of many symbols.
type TrajectoryReader interface {
	catalog.IndexSource
	AssetsMany(ctx context.Context, symbols []string) (map[string]shariah.Asset, error)
	FundamentalsMany(ctx context.Context, symbols []string) (map[string][]shariah.Fundamentals, error)
}

// TrajectoryAnalytics answers the trajectory questions about a set of companies (an index's
// constituents or a watchlist): which drift against a methodology's thresholds, and the sector medians
// per quarter. REST (/api/insights/drift, /api/insights/sector-medians) and the MCP tool get_index_drift
// call it, so they answer alike.
//
// Filed data only: the trajectory table is filled by the SEC ingest alone (TrajectoryOf over filed
// companyfacts; `shariah load` writes no trajectory), and FiledTrajectories reads only quarters of
// FiledSources, so an illustrative number never enters a drift or a median. A constituent without a
// filed quarter is left out and counted: as illustrative when its stored fundamentals are illustrative
// only (FundamentalsSourceOf), else as having no filed quarters.
type TrajectoryAnalytics struct {
	Ref        TrajectoryReader
	Trajectory TrajectoryStore // nil: EUNAVAILABLE
	Rulesets   screening.Rulesets
	Watchlists account.WatchlistStore // nil: a watchlist scope is EUNAVAILABLE
}

// TrajectoryScope is the set of companies asked about: exactly one of Index and WatchlistID (the
// watchlist of UserID, who must own it), and the number of latest quarters read.
type TrajectoryScope struct {
	Index       string
	WatchlistID string
	UserID      string
	Quarters    int // DriftQuartersMin..DriftQuartersMax
}

// DriftQuery asks which companies of a scope drift against a ruleset's lines (one methodology's, or
// every methodology's when Methodology is "").
type DriftQuery struct {
	TrajectoryScope
	Ruleset     string
	Methodology string
}

// LeftOut counts the companies of a scope without a filed quarter.
type LeftOut struct {
	Illustrative    int      `json:"illustrative"`      // their screening inputs are illustrative
	NoFiledQuarters int      `json:"no_filed_quarters"` // no filed quarter on file (no filings ingested, or none quarterly)
	Symbols         []string `json:"symbols"`           // both kinds, sorted
}

// DriftCompany is one company drifting on one ratio against one line (a company drifting on two ratios
// is two rows).
type DriftCompany struct {
	Symbol          string       `json:"symbol"`
	Name            string       `json:"name"`
	Sector          string       `json:"sector"`
	Ratio           string       `json:"ratio"`
	Methodology     string       `json:"methodology"`
	MethodologyName string       `json:"methodology_name"`
	Rule            string       `json:"rule"`
	ThresholdBP     string       `json:"threshold_bp"`
	Comparator      string       `json:"comparator"`
	Partial         bool         `json:"partial"`
	Direction       string       `json:"direction"`
	QuartersOfDrift int          `json:"quarters_of_drift"`
	FirstBP         float64      `json:"first_bp"`
	LatestBP        float64      `json:"latest_bp"`
	DistancePoints  float64      `json:"distance_points"`
	LatestPeriodEnd string       `json:"latest_period_end"`
	Series          []DriftPoint `json:"series"`
}

// DriftReport answers GET /api/insights/drift and the MCP tool get_index_drift.
type DriftReport struct {
	Index       *string        `json:"index"`
	WatchlistID *string        `json:"watchlist_id"`
	Ruleset     string         `json:"ruleset"`
	Methodology *string        `json:"methodology"`
	Quarters    int            `json:"quarters"`
	Considered  int            `json:"considered"` // companies with filed quarters, whose trajectories were read
	Companies   []DriftCompany `json:"companies"`  // by distance to the line, closest first
	LeftOut     LeftOut        `json:"left_out"`
}

// SectorMediansReport answers GET /api/insights/sector-medians. Considered and LeftOut are as in
// DriftReport (fields beyond the contract: a median without them hides who is missing).
type SectorMediansReport struct {
	Index       *string        `json:"index"`
	WatchlistID *string        `json:"watchlist_id"`
	Quarters    int            `json:"quarters"`
	Considered  int            `json:"considered"`
	Sectors     []SectorMedian `json:"sectors"`
	LeftOut     LeftOut        `json:"left_out"`
}

// companies is a resolved scope: its symbols and their filed trajectories.
type companies struct {
	index, watchlist *string
	assets           map[string]shariah.Asset
	filed            map[string][]TrajectoryPoint
	considered       []string // symbols with filed quarters, sorted
	leftOut          LeftOut
}

// validate checks a scope's shape: exactly one of index and watchlist_id, quarters in range.
func (s TrajectoryScope) validate(v *shariah.Validation) {
	switch {
	case s.Index == "" && s.WatchlistID == "":
		v.Add("give one of index and watchlist_id", "value_error.missing", "query", "index")
	case s.Index != "" && s.WatchlistID != "":
		v.Add("give one of index and watchlist_id, not both", "value_error.conflict", "query", "watchlist_id")
	}
	if s.Quarters < DriftQuartersMin || s.Quarters > DriftQuartersMax {
		v.Add("value must be between 2 and 8", "value_error.number.range", "query", "quarters")
	}
}

// read resolves a validated scope to its companies and their filed quarters (one query for them all).
func (t *TrajectoryAnalytics) read(ctx context.Context, s TrajectoryScope) (companies, error) {
	var c companies
	var syms []string
	if s.Index != "" {
		name := catalog.NormalizeIndexName(s.Index)
		listing, members, err := catalog.ListIndices(ctx, t.Ref)
		if err != nil {
			return c, err
		}
		if !slices.ContainsFunc(listing, func(l catalog.IndexListing) bool { return l.Name == name }) {
			var v shariah.Validation
			v.Add(catalog.UnknownIndexMessage(listing), "value_error.index", "query", "index")
			return c, v.Err()
		}
		c.index, syms = &name, members[name]
	} else {
		if t.Watchlists == nil {
			return c, shariah.Errorf(shariah.EUNAVAILABLE, "Watchlists are not available here.")
		}
		wl, err := (&account.Watchlists{Store: t.Watchlists}).Get(ctx, s.UserID, s.WatchlistID)
		if err != nil {
			return c, err
		}
		c.watchlist, syms = &wl.ID, wl.Symbols
	}
	if t.Trajectory == nil {
		return c, shariah.Errorf(shariah.EUNAVAILABLE, "The trajectory series is not available here.")
	}
	syms = slices.Compact(slices.Sorted(slices.Values(syms)))
	c.leftOut.Symbols = []string{}
	if len(syms) == 0 {
		return c, nil
	}
	var err error
	if c.filed, err = t.Trajectory.FiledTrajectories(ctx, syms, s.Quarters); err != nil {
		return c, err
	}
	if c.assets, err = t.Ref.AssetsMany(ctx, syms); err != nil {
		return c, err
	}
	var missing []string
	for _, sym := range syms {
		if len(c.filed[sym]) > 0 {
			c.considered = append(c.considered, sym)
		} else {
			missing = append(missing, sym)
		}
	}
	if len(missing) > 0 {
		fs, err := t.Ref.FundamentalsMany(ctx, missing)
		if err != nil {
			return c, err
		}
		for _, sym := range missing {
			if shariah.FundamentalsSourceOf(fs[sym]) == shariah.DataIllustrative {
				c.leftOut.Illustrative++
			} else {
				c.leftOut.NoFiledQuarters++
			}
		}
		c.leftOut.Symbols = missing
	}
	return c, nil
}

// Drift lists the companies of a scope drifting against the lines of a ruleset (DriftOf; per company
// and ratio the nearest line, NearestPerRatio), closest to their line first.
func (t *TrajectoryAnalytics) Drift(ctx context.Context, q DriftQuery) (DriftReport, error) {
	var v shariah.Validation
	q.validate(&v)
	if err := v.Err(); err != nil {
		return DriftReport{}, err
	}
	rs, mid, err := t.Rulesets.Resolve(q.Ruleset, q.Methodology)
	if err != nil {
		return DriftReport{}, err
	}
	c, err := t.read(ctx, q.TrajectoryScope)
	if err != nil {
		return DriftReport{}, err
	}
	r := DriftReport{Index: c.index, WatchlistID: c.watchlist, Ruleset: rs.Name, Quarters: q.Quarters,
		Considered: len(c.considered), Companies: []DriftCompany{}, LeftOut: c.leftOut}
	if mid != "" {
		r.Methodology = &mid
	}
	lines := ThresholdLines(rs, mid)
	for _, sym := range c.considered {
		a := c.assets[sym]
		for _, s := range NearestPerRatio(DriftOf(c.filed[sym], lines)) {
			r.Companies = append(r.Companies, DriftCompany{Symbol: sym, Name: a.Name, Sector: a.Sector, Ratio: s.Line.Ratio,
				Methodology: s.Line.Methodology, MethodologyName: s.Line.Name, Rule: s.Line.RuleID, ThresholdBP: s.Line.ThresholdBP.String(),
				Comparator: s.Line.Comparator, Partial: s.Line.Partial, Direction: s.Direction, QuartersOfDrift: s.QuartersOfDrift,
				FirstBP: s.FirstBP, LatestBP: s.LatestBP, DistancePoints: s.DistancePoints, LatestPeriodEnd: s.LatestPeriodEnd, Series: s.Series})
		}
	}
	SortDriftCompanies(r.Companies)
	return r, nil
}

// SectorMedians computes the per-quarter sector medians of a scope's filed trajectories
// (SectorMediansOf).
func (t *TrajectoryAnalytics) SectorMedians(ctx context.Context, s TrajectoryScope) (SectorMediansReport, error) {
	var v shariah.Validation
	s.validate(&v)
	if err := v.Err(); err != nil {
		return SectorMediansReport{}, err
	}
	c, err := t.read(ctx, s)
	if err != nil {
		return SectorMediansReport{}, err
	}
	sectorOf := make(map[string]string, len(c.considered))
	filed := make(map[string][]TrajectoryPoint, len(c.considered))
	for _, sym := range c.considered {
		sectorOf[sym], filed[sym] = c.assets[sym].Sector, c.filed[sym]
	}
	return SectorMediansReport{Index: c.index, WatchlistID: c.watchlist, Quarters: s.Quarters, Considered: len(c.considered),
		Sectors: SectorMediansOf(filed, sectorOf, s.Quarters), LeftOut: c.leftOut}, nil
}
