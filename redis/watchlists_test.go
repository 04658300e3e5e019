package redis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
)

func TestWatchlistStoreLimitsAndOrder(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	st := sredis.NewWatchlistStore(b.client)
	ctx := context.Background()
	user := "u-" + time.Now().Format("150405.000000000")
	w := account.Watchlist{ID: "11111111-1111-7111-8111-111111111111", Name: "a", Symbols: []string{"MSFT", "AAPL"}, CreatedAt: time.Now().UTC()}
	if err := st.CreateWatchlist(ctx, user, w, 1); err != nil {
		t.Fatal(err)
	}
	w2 := w
	w2.ID = "22222222-2222-7222-8222-222222222222"
	if err := st.CreateWatchlist(ctx, user, w2, 1); !errors.Is(err, account.ErrWatchlistLimit) {
		t.Fatalf("second watchlist past a limit of 1: %v", err)
	}
	if err := st.AddSymbol(ctx, user, w.ID, "KO", 3); err != nil {
		t.Fatal(err)
	}
	if err := st.AddSymbol(ctx, user, w.ID, "KO", 3); err != nil {
		t.Fatalf("adding twice: %v", err)
	}
	if err := st.AddSymbol(ctx, user, w.ID, "JNJ", 3); !errors.Is(err, account.ErrWatchlistFull) {
		t.Fatalf("fourth symbol past 3: %v", err)
	}
	if err := st.AddSymbol(ctx, user, w2.ID, "KO", 3); !errors.Is(err, account.ErrNoWatchlist) {
		t.Fatalf("adding to a watchlist that does not exist: %v", err)
	}
	if _, err := st.RemoveSymbol(ctx, user, w.ID, "AAPL"); err != nil {
		t.Fatal(err)
	}
	if err := st.AddSymbol(ctx, user, w.ID, "AAPL", 3); err != nil {
		t.Fatal(err)
	}
	got, ok, err := st.Watchlist(ctx, user, w.ID)
	if err != nil || !ok || len(got.Symbols) != 3 || got.Symbols[0] != "MSFT" || got.Symbols[1] != "KO" || got.Symbols[2] != "AAPL" {
		t.Fatalf("symbols in the order added: %+v %v", got, err)
	}
	if _, ok, _ := st.Watchlist(ctx, "someone-else", w.ID); ok {
		t.Fatal("another user reads the watchlist")
	}
	if ok, _ := st.DeleteWatchlist(ctx, "someone-else", w.ID); ok {
		t.Fatal("another user deletes the watchlist")
	}
	if ok, _ := st.DeleteWatchlist(ctx, user, w.ID); !ok {
		t.Fatal("owner cannot delete")
	}
	if ls, _ := st.Watchlists(ctx, user); len(ls) != 0 {
		t.Fatalf("after delete: %+v", ls)
	}
}
