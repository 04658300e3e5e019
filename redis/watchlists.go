package redis

import (
	"context"
	_ "embed"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/account"
)

var (
	//go:embed lua/watchlist_create.lua
	wlCreateSrc string
	//go:embed lua/watchlist_add.lua
	wlAddSrc string
	//go:embed lua/watchlist_remove.lua
	wlRemoveSrc string

	wlCreate = rueidis.NewLuaScript(wlCreateSrc)
	wlAdd    = rueidis.NewLuaScript(wlAddSrc)
	wlRemove = rueidis.NewLuaScript(wlRemoveSrc)
)

// WatchlistStore implements account.WatchlistStore.
type WatchlistStore struct{ c rueidis.Client }

var _ account.WatchlistStore = (*WatchlistStore)(nil)

// NewWatchlistStore returns the store over the client.
func NewWatchlistStore(c rueidis.Client) *WatchlistStore { return &WatchlistStore{c: c} }

// CreateWatchlist stores w unless the user has max watchlists.
func (s *WatchlistStore) CreateWatchlist(ctx context.Context, user string, w account.Watchlist, max int) error {
	args := []string{strconv.Itoa(max), w.ID, strconv.FormatInt(w.CreatedAt.UnixMilli(), 10), w.Name, w.CreatedAt.UTC().Format(time.RFC3339Nano)}
	args = append(args, w.Symbols...)
	n, err := wlCreate.Exec(ctx, s.c, []string{wlListKey(user), wlRecKey(user, w.ID), wlSymsKey(user, w.ID)}, args).AsInt64()
	if err != nil {
		return err
	}
	if n < 0 {
		return account.ErrWatchlistLimit
	}
	return nil
}

// Watchlists reads the user's watchlists, oldest first.
func (s *WatchlistStore) Watchlists(ctx context.Context, user string) ([]account.Watchlist, error) {
	ids, err := s.c.Do(ctx, s.c.B().Zrange().Key(wlListKey(user)).Min("0").Max("-1").Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	out := make([]account.Watchlist, 0, len(ids))
	for _, id := range ids {
		w, ok, err := s.Watchlist(ctx, user, id)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, w)
		}
	}
	return out, nil
}

// Watchlist reads one watchlist of the user.
func (s *WatchlistStore) Watchlist(ctx context.Context, user, id string) (account.Watchlist, bool, error) {
	res := s.c.DoMulti(ctx,
		s.c.B().Zscore().Key(wlListKey(user)).Member(id).Build(),
		s.c.B().Hgetall().Key(wlRecKey(user, id)).Build(),
		s.c.B().Zrange().Key(wlSymsKey(user, id)).Min("0").Max("-1").Build())
	if err := res[0].Error(); rueidis.IsRedisNil(err) {
		return account.Watchlist{}, false, nil
	} else if err != nil {
		return account.Watchlist{}, false, err
	}
	rec, err := res[1].AsStrMap()
	if err != nil {
		return account.Watchlist{}, false, err
	}
	syms, err := res[2].AsStrSlice()
	if err != nil {
		return account.Watchlist{}, false, err
	}
	created, _ := time.Parse(time.RFC3339Nano, rec["created_at"])
	return account.Watchlist{ID: id, Name: rec["name"], Symbols: syms, CreatedAt: created.UTC()}, true, nil
}

// DeleteWatchlist removes a watchlist of the user.
func (s *WatchlistStore) DeleteWatchlist(ctx context.Context, user, id string) (bool, error) {
	res := s.c.DoMulti(ctx,
		s.c.B().Zrem().Key(wlListKey(user)).Member(id).Build(),
		s.c.B().Del().Key(wlRecKey(user, id), wlSymsKey(user, id)).Build())
	for _, r := range res {
		if err := r.Error(); err != nil {
			return false, err
		}
	}
	n, _ := res[0].AsInt64()
	return n == 1, nil
}

// AddSymbol appends a symbol to a watchlist.
func (s *WatchlistStore) AddSymbol(ctx context.Context, user, id, sym string, max int) error {
	n, err := wlAdd.Exec(ctx, s.c, []string{wlListKey(user), wlSymsKey(user, id)}, []string{id, strconv.Itoa(max), sym}).AsInt64()
	switch {
	case err != nil:
		return err
	case n == -2:
		return account.ErrNoWatchlist
	case n == -1:
		return account.ErrWatchlistFull
	}
	return nil
}

// RemoveSymbol removes a symbol from a watchlist.
func (s *WatchlistStore) RemoveSymbol(ctx context.Context, user, id, sym string) (bool, error) {
	n, err := wlRemove.Exec(ctx, s.c, []string{wlListKey(user), wlSymsKey(user, id)}, []string{id, sym}).AsInt64()
	if err != nil {
		return false, err
	}
	if n == -2 {
		return false, account.ErrNoWatchlist
	}
	return n == 1, nil
}
