package redis_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/internal/testsvc"
	sredis "github.com/shariah-screen/shariah/redis"
	"github.com/shariah-screen/shariah/screening"
	"github.com/shariah-screen/shariah/webhooks"
)

func TestWebhookStore(t *testing.T) {
	t.Parallel()
	b := setup(t, testsvc.MustRedis(t).RedisURL())
	exerciseWebhookStore(t, b.client)
}

// exerciseWebhookStore runs every path of the webhook store (and every webhook script): the single
// Redis test and TestEveryScriptOnRedisCluster share it.
func exerciseWebhookStore(t *testing.T, c rueidis.Client) {
	t.Helper()
	ctx := context.Background()
	st := sredis.NewWebhookStore(c)
	now := time.Now().UTC().Truncate(time.Millisecond)
	ep := func(user, id string) webhooks.Endpoint {
		return webhooks.Endpoint{ID: id, UserID: user, URL: "https://hooks.example.com/" + id, Secret: "whsec_1", CreatedAt: now,
			Filter: webhooks.Filter{Symbols: []string{"AAPL"}}, Kinds: []string{screening.ChangeOverall}}
	}
	for _, id := range []string{"e1", "e2"} {
		if err := st.CreateEndpoint(ctx, ep("alice", id), 2); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CreateEndpoint(ctx, ep("alice", "e3"), 2); !errors.Is(err, webhooks.ErrLimit) {
		t.Fatalf("a third endpoint with a limit of 2: %v", err)
	}
	if err := st.CreateEndpoint(ctx, ep("bob", "e4"), 2); err != nil {
		t.Fatal(err)
	}
	if list, err := st.Endpoints(ctx, "alice"); err != nil || len(list) != 2 || list[0].ID != "e1" || list[1].Secret != "whsec_1" {
		t.Fatalf("alice's endpoints: %+v %v", list, err)
	}
	if _, ok, err := st.Endpoint(ctx, "bob", "e1"); ok || err != nil {
		t.Fatalf("bob reads alice's endpoint: %v %v", ok, err)
	}
	if ok, err := st.SetSecret(ctx, "alice", "e2", "whsec_2"); !ok || err != nil {
		t.Fatalf("set secret: %v %v", ok, err)
	}
	if err := st.Disable(ctx, "e2", webhooks.Disabled{Reason: "410", At: now}); err != nil {
		t.Fatal(err)
	}
	if e, ok, err := st.Endpoint(ctx, "", "e2"); !ok || err != nil || e.Secret != "whsec_2" || e.Disabled == nil || e.Disabled.Reason != "410" {
		t.Fatalf("e2 after rotate and disable: %+v %v %v", e, ok, err)
	}
	if all, err := st.AllEndpoints(ctx); err != nil || len(all) != 3 {
		t.Fatalf("all endpoints: %d %v", len(all), err)
	}

	// health: failures keep their first time until a success; exhausted deliveries count up
	since, err := st.Failed(ctx, "e1", now)
	if err != nil || !since.Equal(now) {
		t.Fatalf("first failure: %v %v", since, err)
	}
	if since, err = st.Failed(ctx, "e1", now.Add(time.Hour)); err != nil || !since.Equal(now) {
		t.Fatalf("second failure moved the start: %v %v", since, err)
	}
	for want := 1; want <= 2; want++ {
		if n, err := st.Exhausted(ctx, "e1"); err != nil || n != want {
			t.Fatalf("streak %d: %d %v", want, n, err)
		}
	}
	if err := st.Succeeded(ctx, "e1"); err != nil {
		t.Fatal(err)
	}
	if since, _ = st.Failed(ctx, "e1", now.Add(2*time.Hour)); !since.Equal(now.Add(2 * time.Hour)) {
		t.Fatalf("a success did not clear the failure record: %v", since)
	}
	if err := st.Enable(ctx, "e2"); err != nil {
		t.Fatal(err)
	}
	if e, _, _ := st.Endpoint(ctx, "alice", "e2"); e.Disabled != nil {
		t.Fatal("e2 still disabled")
	}

	// events and deliveries: a delivery is stored once; a stored pending one is queued again
	if err := st.PutEvent(ctx, "ev1", []byte(`{"id":"ev1"}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	if body, ok, err := st.EventBody(ctx, "ev1"); !ok || err != nil || string(body) != `{"id":"ev1"}` {
		t.Fatalf("event body: %s %v %v", body, ok, err)
	}
	d1 := webhooks.Delivery{ID: webhooks.DeliveryID("e1", "ev1"), EndpointID: "e1", EventID: "ev1", Status: webhooks.StatusPending, CreatedAt: now}
	d2 := webhooks.Delivery{ID: webhooks.DeliveryID("e4", "ev1"), EndpointID: "e4", EventID: "ev1", Status: webhooks.StatusPending, CreatedAt: now}
	if q, err := st.CreateDeliveries(ctx, []webhooks.Delivery{d1, d2}, time.Hour); err != nil || !q[0] || !q[1] {
		t.Fatalf("new deliveries: %v %v", q, err)
	}
	d1.Status, d1.Attempts = webhooks.StatusDelivered, 1
	if err := st.UpdateDelivery(ctx, d1); err != nil {
		t.Fatal(err)
	}
	if q, err := st.CreateDeliveries(ctx, []webhooks.Delivery{d1, d2}, time.Hour); err != nil || q[0] || !q[1] {
		t.Fatalf("again: delivered one not queued, pending one queued: %v %v", q, err)
	}
	if got, ok, err := st.Delivery(ctx, "e1", d1.ID); !ok || err != nil || got.Status != webhooks.StatusDelivered || got.Attempts != 1 {
		t.Fatalf("delivery: %+v %v %v", got, ok, err)
	}
	replayed := d1
	replayed.Status, replayed.Replays = webhooks.StatusPending, 1
	if err := st.UpdateDelivery(ctx, replayed); err != nil {
		t.Fatal(err)
	}
	if q, err := st.CreateDeliveries(ctx, []webhooks.Delivery{d1}, time.Hour); err != nil || q[0] {
		t.Fatalf("a replayed delivery queued again by a fan-out: %v %v", q, err)
	}
	if err := st.UpdateDelivery(ctx, d1); err != nil {
		t.Fatal(err)
	}
	if list, err := st.Deliveries(ctx, "e1", 10); err != nil || len(list) != 1 || list[0].ID != d1.ID {
		t.Fatalf("deliveries: %+v %v", list, err)
	}
	gone := webhooks.Delivery{ID: webhooks.DeliveryID("e1", "old"), EndpointID: "e1", Status: webhooks.StatusFailed}
	if err := st.UpdateDelivery(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := st.Delivery(ctx, "e1", gone.ID); ok {
		t.Fatal("an update recreated a delivery that was not stored")
	}

	// delete: the user's only; a deleted endpoint gets no state back
	if ok, err := st.DeleteEndpoint(ctx, "bob", "e1"); ok || err != nil {
		t.Fatalf("bob deleted alice's endpoint: %v %v", ok, err)
	}
	if ok, err := st.DeleteEndpoint(ctx, "alice", "e1"); !ok || err != nil {
		t.Fatalf("delete: %v %v", ok, err)
	}
	if err := st.Disable(ctx, "e1", webhooks.Disabled{Reason: "late"}); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.SetSecret(ctx, "alice", "e1", "x"); ok || err != nil {
		t.Fatalf("secret of a deleted endpoint: %v %v", ok, err)
	}
	if all, _ := st.AllEndpoints(ctx); len(all) != 2 {
		t.Fatalf("after delete: %d endpoints", len(all))
	}
	if err := st.CreateEndpoint(ctx, ep("alice", "e5"), 2); err != nil {
		t.Fatalf("a slot freed by the delete: %v", err)
	}
	if cur, err := st.RelayCursor(ctx); cur != "" || err != nil {
		t.Fatalf("cursor: %q %v", cur, err)
	}
	if err := st.SetRelayCursor(ctx, "ev1"); err != nil {
		t.Fatal(err)
	}
	if cur, _ := st.RelayCursor(ctx); cur != "ev1" {
		t.Fatalf("cursor: %q", cur)
	}
}
