package redis

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/filings"
)

// NewsStore implements filings.NewsStore.
type NewsStore struct{ c rueidis.Client }

var _ filings.NewsStore = (*NewsStore)(nil)

// NewNewsStore returns the news store over the client.
func NewNewsStore(c rueidis.Client) *NewsStore { return &NewsStore{c: c} }

func (s *NewsStore) get(ctx context.Context, id string) (filings.Article, bool, error) {
	b, err := s.c.Do(ctx, s.c.B().Get().Key(articleKey(id)).Build()).AsBytes()
	if rueidis.IsRedisNil(err) {
		return filings.Article{}, false, nil
	}
	if err != nil {
		return filings.Article{}, false, err
	}
	var a filings.Article
	return a, true, json.Unmarshal(b, &a)
}

func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range append(append([]string{}, a...), b...) {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// PutArticles stores articles; one already stored under the same id (normalised URL) or title key is
// merged into it: its sources and symbols grow, the earliest publication date stays.
func (s *NewsStore) PutArticles(ctx context.Context, as []filings.Article) (int, error) {
	added := 0
	for _, a := range as {
		id := a.ID
		if a.TitleKey != "" {
			other, err := s.c.Do(ctx, s.c.B().Hget().Key(newsTitlesKey()).Field(a.TitleKey).Build()).ToString()
			if err != nil && !rueidis.IsRedisNil(err) {
				return added, err
			}
			if other != "" {
				id = other
			}
		}
		old, exists, err := s.get(ctx, id)
		if err != nil {
			return added, err
		}
		if exists {
			old.Sources = union(old.Sources, union(a.Sources, []string{a.Source}))
			old.Symbols = union(old.Symbols, a.Symbols)
			if !a.Published.IsZero() && (old.Published.IsZero() || a.Published.Before(old.Published)) {
				old.Published = a.Published
			}
			a = old
		} else {
			a.ID = id
			a.Sources = union(a.Sources, []string{a.Source})
			added++
		}
		b, err := json.Marshal(a)
		if err != nil {
			return added, err
		}
		score := float64(a.Published.UnixMilli())
		cmds := rueidis.Commands{
			s.c.B().Set().Key(articleKey(a.ID)).Value(rueidis.BinaryString(b)).Build(),
			s.c.B().Zadd().Key(newsAllKey()).ScoreMember().ScoreMember(score, a.ID).Build(),
		}
		if a.TitleKey != "" {
			cmds = append(cmds, s.c.B().Hset().Key(newsTitlesKey()).FieldValue().FieldValue(a.TitleKey, a.ID).Build())
		}
		for _, sym := range a.Symbols {
			cmds = append(cmds, s.c.B().Zadd().Key(newsSymKey(sym)).ScoreMember().ScoreMember(score, a.ID).Build())
		}
		for _, r := range s.c.DoMulti(ctx, cmds...) {
			if err := r.Error(); err != nil {
				return added, err
			}
		}
	}
	return added, nil
}

// News lists articles newest first with the total. Without content filters (source, category, q,
// relevance) only the page is read; with them the latest 5,000 are considered.
func (s *NewsStore) News(ctx context.Context, q filings.NewsQuery) ([]filings.Article, int, error) {
	key := newsAllKey()
	if q.Symbol != "" {
		key = newsSymKey(q.Symbol)
	}
	if q.Source == "" && q.Category == "" && q.Q == "" && q.Relevance == "" {
		res := s.c.DoMulti(ctx, s.c.B().Zcard().Key(key).Build(),
			s.c.B().Zrevrange().Key(key).Start(int64(q.Offset)).Stop(int64(q.Offset+q.Limit-1)).Build())
		total, err := res[0].AsInt64()
		if err != nil {
			return nil, 0, err
		}
		ids, err := res[1].AsStrSlice()
		if err != nil {
			return nil, 0, err
		}
		page, err := s.articles(ctx, ids, nil)
		if page == nil {
			page = []filings.Article{}
		}
		return page, int(total), err
	}
	ids, err := s.c.Do(ctx, s.c.B().Zrevrange().Key(key).Start(0).Stop(4999).Build()).AsStrSlice()
	if err != nil {
		return nil, 0, err
	}
	needle := strings.ToLower(strings.TrimSpace(q.Q))
	out, err := s.articles(ctx, ids, func(a filings.Article) bool {
		return (q.Source == "" || contains(a.Sources, q.Source)) &&
			(q.Category == "" || strings.EqualFold(a.Category, q.Category)) &&
			(q.Relevance == "" || a.ComplianceRelevance == q.Relevance) &&
			(needle == "" || strings.Contains(strings.ToLower(a.Title+" "+a.Summary), needle))
	})
	if err != nil {
		return nil, 0, err
	}
	total := len(out)
	if q.Offset >= total {
		return []filings.Article{}, total, nil
	}
	return out[q.Offset:min(q.Offset+q.Limit, total)], total, nil
}

// articles reads articles by id in order (in chunks), keeping those keep accepts (all when nil).
func (s *NewsStore) articles(ctx context.Context, ids []string, keep func(filings.Article) bool) ([]filings.Article, error) {
	var out []filings.Article
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		cmds := make(rueidis.Commands, len(part))
		for i, id := range part {
			cmds[i] = s.c.B().Get().Key(articleKey(id)).Build()
		}
		for _, r := range s.c.DoMulti(ctx, cmds...) {
			b, err := r.AsBytes()
			if rueidis.IsRedisNil(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			var a filings.Article
			if err := json.Unmarshal(b, &a); err != nil {
				return nil, err
			}
			if keep == nil || keep(a) {
				out = append(out, a)
			}
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
