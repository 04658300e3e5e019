package redis

import (
	"context"
	"sort"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/market"
)

// PopularityStore implements market.Popularity.
type PopularityStore struct{ c rueidis.Client }

var _ market.Popularity = (*PopularityStore)(nil)

// NewPopularityStore returns the store over the client.
func NewPopularityStore(c rueidis.Client) *PopularityStore { return &PopularityStore{c: c} }

// AddRequests adds request counts to the day of at.
func (s *PopularityStore) AddRequests(ctx context.Context, counts map[string]int64, at time.Time) error {
	key := popularKey(at)
	cmds := make(rueidis.Commands, 0, len(counts)+1)
	for sym, n := range counts {
		cmds = append(cmds, s.c.B().Zincrby().Key(key).Increment(float64(n)).Member(sym).Build())
	}
	cmds = append(cmds, s.c.B().Expire().Key(key).Seconds(8*24*3600).Build())
	for _, r := range s.c.DoMulti(ctx, cmds...) {
		if err := r.Error(); err != nil {
			return err
		}
	}
	return nil
}

// MostRequested sums the top 1,000 of each day and returns the n most requested, ties by symbol.
func (s *PopularityStore) MostRequested(ctx context.Context, n, days int, now time.Time) ([]string, error) {
	cmds := make(rueidis.Commands, days)
	for d := range days {
		cmds[d] = s.c.B().Zrevrange().Key(popularKey(now.AddDate(0, 0, -d))).Start(0).Stop(999).Withscores().Build()
	}
	total := map[string]float64{}
	for _, r := range s.c.DoMulti(ctx, cmds...) {
		zs, err := r.AsZScores()
		if err != nil {
			return nil, err
		}
		for _, z := range zs {
			total[z.Member] += z.Score
		}
	}
	out := make([]string, 0, len(total))
	for sym := range total {
		out = append(out, sym)
	}
	sort.Slice(out, func(i, j int) bool {
		if total[out[i]] != total[out[j]] {
			return total[out[i]] > total[out[j]]
		}
		return out[i] < out[j]
	})
	return out[:min(n, len(out))], nil
}
