package account

import (
	"context"
	"time"

	"github.com/shariah-screen/shariah"
)

// BillingEvent is a payment processor's subscription event, reduced to what changes a plan.
type BillingEvent struct {
	ID           string
	Type         string // checkout.completed, subscription.updated, subscription.deleted
	Created      time.Time
	KeyPrefix    string // checkout: the key that started it (client_reference_id)
	Plan         string // the plan bought (metadata.plan)
	Customer     string
	Subscription string
	Status       string    // subscription status (active, trialing, past_due, unpaid, canceled, ...)
	PeriodEnd    time.Time // end of the paid period (subscription events)
}

// Billing event types.
const (
	EventCheckoutCompleted   = "checkout.completed"
	EventSubscriptionUpdated = "subscription.updated"
	EventSubscriptionDeleted = "subscription.deleted"
)

// Subscription is a user's paid plan as the processor last told it.
type Subscription struct {
	UserID       string     `json:"user_id"`
	Customer     string     `json:"customer"`
	Subscription string     `json:"subscription"`
	Plan         string     `json:"plan"`
	Status       string     `json:"status"`
	LastEvent    time.Time  `json:"last_event"`   // created time of the last event applied
	DowngradeAt  *time.Time `json:"downgrade_at"` // when the plan returns to Free (end of the paid period)
}

// BillingStore keeps subscriptions and the events already processed.
type BillingStore interface {
	// MarkEvent records an event id; false when it was recorded before. UnmarkEvent forgets it.
	MarkEvent(ctx context.Context, id string) (bool, error)
	UnmarkEvent(ctx context.Context, id string) error
	Subscription(ctx context.Context, userID string) (Subscription, bool, error)
	UserOfCustomer(ctx context.Context, customer string) (string, bool, error)
	PutSubscription(ctx context.Context, s Subscription) error
	// DueDowngrades lists the users whose downgrade time has come.
	DueDowngrades(ctx context.Context, now time.Time) ([]string, error)
}

// PaidPlans are the plans sold through the processor.
var PaidPlans = []string{PlanStarter, PlanPro, PlanEnterprise}

// ErrDuplicateEvent is returned for an event already processed.
var ErrDuplicateEvent = shariah.Errorf(shariah.EINVALID, "This event was already processed.")

// Billing applies subscription events to the plans of users' keys.
type Billing struct {
	Keys  *Keys
	Store BillingStore
	Now   func() time.Time
}

func (b *Billing) now() time.Time {
	if b.Now != nil {
		return b.Now().UTC()
	}
	return time.Now().UTC()
}

// setUserPlan gives every active key of the user the plan (the meter applies it on the next request).
func (b *Billing) setUserPlan(ctx context.Context, userID, plan string) error {
	keys, err := b.Keys.Store.KeysOfUser(ctx, userID)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.Active && k.Plan != plan {
			if err := b.Keys.Store.SetPlan(ctx, k.Hash, plan); err != nil {
				return err
			}
		}
	}
	return nil
}

// Apply processes an event once: a replay is ErrDuplicateEvent and changes nothing; an event older than
// the last one applied to the subscription is recorded but does not roll the plan back. It returns what
// it did.
func (b *Billing) Apply(ctx context.Context, ev BillingEvent) (string, error) {
	if ev.ID == "" {
		return "", shariah.Errorf(shariah.EINVALID, "The event has no id.")
	}
	first, err := b.Store.MarkEvent(ctx, ev.ID)
	if err != nil {
		return "", err
	}
	if !first {
		return "", ErrDuplicateEvent
	}
	outcome, err := b.apply(ctx, ev)
	if err != nil {
		_ = b.Store.UnmarkEvent(ctx, ev.ID) // let the processor's retry through
		return "", err
	}
	return outcome, nil
}

func validPaid(plan string) bool {
	for _, p := range PaidPlans {
		if p == plan {
			return true
		}
	}
	return false
}

// userOf finds the account an event is about: the key's user for a checkout, the customer's for a
// subscription change. ignored is set (and userID empty) when the event is not for this service.
func (b *Billing) userOf(ctx context.Context, ev BillingEvent) (userID, ignored string, err error) {
	switch ev.Type {
	case EventCheckoutCompleted:
		if ev.KeyPrefix == "" || !validPaid(ev.Plan) {
			return "", "", shariah.Errorf(shariah.EINVALID, "The checkout carries no key prefix (client_reference_id) or no paid plan (metadata.plan).")
		}
		k, err := b.Keys.Store.KeyByPrefix(ctx, ev.KeyPrefix)
		if shariah.ErrorCode(err) == shariah.ENOTFOUND {
			return "", "", shariah.Errorf(shariah.EINVALID, "The checkout's key %s is unknown.", ev.KeyPrefix)
		}
		if err != nil {
			return "", "", err
		}
		return k.UserID, "", nil
	case EventSubscriptionUpdated, EventSubscriptionDeleted:
		id, ok, err := b.Store.UserOfCustomer(ctx, ev.Customer)
		if err != nil {
			return "", "", err
		}
		if !ok {
			return "", "ignored: no account for this customer", nil
		}
		return id, "", nil
	default:
		return "", "ignored: event type not handled", nil
	}
}

// apply records a payment event on the account's subscription and changes its plan: a paid plan on
// checkout or an active subscription, the free plan (now or at the period's end) when it ends.
func (b *Billing) apply(ctx context.Context, ev BillingEvent) (string, error) {
	userID, ignored, err := b.userOf(ctx, ev)
	if err != nil || ignored != "" {
		return ignored, err
	}
	sub, _, err := b.Store.Subscription(ctx, userID)
	if err != nil {
		return "", err
	}
	if !sub.LastEvent.IsZero() && ev.Created.Before(sub.LastEvent) {
		return "ignored: older than the last event applied", nil
	}
	sub.UserID, sub.LastEvent = userID, ev.Created
	if ev.Customer != "" {
		sub.Customer = ev.Customer
	}
	if ev.Subscription != "" {
		sub.Subscription = ev.Subscription
	}
	if ev.Status != "" {
		sub.Status = ev.Status
	}
	now := b.now()
	outcome := ""
	switch {
	case ev.Type == EventCheckoutCompleted || ev.Type == EventSubscriptionUpdated && (ev.Status == "active" || ev.Status == "trialing"):
		plan := ev.Plan
		if plan == "" {
			plan = sub.Plan
		}
		if !validPaid(plan) {
			return "", shariah.Errorf(shariah.EINVALID, "The subscription carries no paid plan (metadata.plan).")
		}
		sub.Plan, sub.DowngradeAt = plan, nil
		if err := b.setUserPlan(ctx, userID, plan); err != nil {
			return "", err
		}
		outcome = "plan " + plan
	case ev.Type == EventSubscriptionDeleted || ev.Status == "unpaid" || ev.Status == "canceled" || ev.Status == "incomplete_expired":
		at := ev.PeriodEnd
		if at.IsZero() || !at.After(now) {
			sub.Plan, sub.DowngradeAt = PlanFree, nil
			if err := b.setUserPlan(ctx, userID, PlanFree); err != nil {
				return "", err
			}
			outcome = "plan free"
		} else {
			sub.DowngradeAt = &at
			outcome = "plan free from " + at.Format(time.RFC3339)
		}
	default:
		outcome = "recorded: status " + ev.Status
	}
	if err := b.Store.PutSubscription(ctx, sub); err != nil {
		return "", err
	}
	return outcome, nil
}

// ApplyDue returns to Free the users whose paid period has ended; it returns how many.
func (b *Billing) ApplyDue(ctx context.Context) (int, error) {
	now := b.now()
	users, err := b.Store.DueDowngrades(ctx, now)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, u := range users {
		sub, ok, err := b.Store.Subscription(ctx, u)
		if err != nil {
			return n, err
		}
		if !ok || sub.DowngradeAt == nil || sub.DowngradeAt.After(now) {
			continue
		}
		if err := b.setUserPlan(ctx, u, PlanFree); err != nil {
			return n, err
		}
		sub.Plan, sub.DowngradeAt = PlanFree, nil
		if err := b.Store.PutSubscription(ctx, sub); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
