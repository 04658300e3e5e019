package redis

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/shariah-screen/shariah/account"
)

// eventTTL keeps processed event ids well past the processor's retry window (Stripe: 3 days).
const eventTTL = 30 * 24 * time.Hour

// BillingStore implements account.BillingStore.
type BillingStore struct{ c rueidis.Client }

var _ account.BillingStore = (*BillingStore)(nil)

// NewBillingStore returns the store over the client.
func NewBillingStore(c rueidis.Client) *BillingStore { return &BillingStore{c: c} }

// MarkEvent records an event id (SET NX); false when it was there.
func (s *BillingStore) MarkEvent(ctx context.Context, id string) (bool, error) {
	err := s.c.Do(ctx, s.c.B().Set().Key(billingEventKey(id)).Value(strconv.FormatInt(time.Now().Unix(), 10)).Nx().Ex(eventTTL).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return false, nil
	}
	return err == nil, err
}

// UnmarkEvent forgets an event id.
func (s *BillingStore) UnmarkEvent(ctx context.Context, id string) error {
	return s.c.Do(ctx, s.c.B().Del().Key(billingEventKey(id)).Build()).Error()
}

// Subscription reads a user's subscription.
func (s *BillingStore) Subscription(ctx context.Context, user string) (account.Subscription, bool, error) {
	b, err := s.c.Do(ctx, s.c.B().Get().Key(billingSubKey(user)).Build()).AsBytes()
	if rueidis.IsRedisNil(err) {
		return account.Subscription{}, false, nil
	}
	if err != nil {
		return account.Subscription{}, false, err
	}
	var sub account.Subscription
	return sub, true, json.Unmarshal(b, &sub)
}

// UserOfCustomer maps a processor customer to the user.
func (s *BillingStore) UserOfCustomer(ctx context.Context, customer string) (string, bool, error) {
	if customer == "" {
		return "", false, nil
	}
	u, err := s.c.Do(ctx, s.c.B().Get().Key(billingCustomerKey(customer)).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", false, nil
	}
	return u, err == nil, err
}

// PutSubscription stores a subscription, its customer mapping and its pending downgrade.
func (s *BillingStore) PutSubscription(ctx context.Context, sub account.Subscription) error {
	b, err := json.Marshal(sub)
	if err != nil {
		return err
	}
	cmds := rueidis.Commands{s.c.B().Set().Key(billingSubKey(sub.UserID)).Value(rueidis.BinaryString(b)).Build()}
	if sub.Customer != "" {
		cmds = append(cmds, s.c.B().Set().Key(billingCustomerKey(sub.Customer)).Value(sub.UserID).Build())
	}
	if sub.DowngradeAt != nil {
		cmds = append(cmds, s.c.B().Zadd().Key(billingDowngradesKey()).ScoreMember().ScoreMember(float64(sub.DowngradeAt.Unix()), sub.UserID).Build())
	} else {
		cmds = append(cmds, s.c.B().Zrem().Key(billingDowngradesKey()).Member(sub.UserID).Build())
	}
	for _, r := range s.c.DoMulti(ctx, cmds...) {
		if err := r.Error(); err != nil {
			return err
		}
	}
	return nil
}

// DueDowngrades lists users whose downgrade time has come.
func (s *BillingStore) DueDowngrades(ctx context.Context, now time.Time) ([]string, error) {
	return s.c.Do(ctx, s.c.B().Zrangebyscore().Key(billingDowngradesKey()).Min("-inf").Max(strconv.FormatInt(now.Unix(), 10)).Build()).AsStrSlice()
}
