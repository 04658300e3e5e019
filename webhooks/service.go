package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// Service applies the rules of webhooks over a store and a queue: endpoints (owner-scoped: another
// user's endpoint does not exist), the fan-out of events, the deliveries and their health.
type Service struct {
	Store   Store
	Queue   Queue
	Targets *Targets
	Sender  *Sender
	// Watchlists, Indices and Resolve check a filter (and Watchlists and Indices resolve it for matching).
	Watchlists WatchlistReader
	Indices    catalog.IndexSource
	Resolve    func(ctx context.Context, symbol string) (string, error)
	Limits     Limits  // nil: DefaultLimits
	Backoff    Backoff // zero: DefaultBackoff
	// DisableAfter disables an endpoint whose every attempt failed for this long (0: 24 h);
	// DisableStreak one whose last this many deliveries all ran out of retries (0: 3).
	DisableAfter  time.Duration
	DisableStreak int
	// Retention is how long deliveries and the bodies they send are kept (0: 7 days).
	Retention time.Duration
	Now       func() time.Time
	Log       *slog.Logger
}

// Bounds of an endpoint's definition.
const (
	MaxFilterSymbols = 500
	DefaultRetention = 7 * 24 * time.Hour
)

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Service) limits() Limits {
	if s.Limits == nil {
		return DefaultLimits()
	}
	return s.Limits
}

// Schedule is the retry schedule in force.
func (s *Service) Schedule() Backoff {
	if s.Backoff == (Backoff{}) {
		return DefaultBackoff()
	}
	return s.Backoff
}

func (s *Service) retention() time.Duration {
	if s.Retention <= 0 {
		return DefaultRetention
	}
	return s.Retention
}

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// Allowed refuses a plan without webhooks (Free): 403 before anything else is looked at.
func (s *Service) Allowed(plan string) error {
	if s.limits().For(plan) <= 0 {
		return shariah.Errorf(shariah.EFORBIDDEN, "Webhooks are part of the paid plans (Starter and above); the %s plan has none.", plan)
	}
	return nil
}

// Limit is the number of endpoints the plan allows.
func (s *Service) Limit(plan string) int { return s.limits().For(plan) }

// NewEndpoint is what a user asks for in POST /api/webhooks.
type NewEndpoint struct {
	URL         *string  `json:"url"`
	WatchlistID string   `json:"watchlist_id"`
	Index       string   `json:"index"`
	Symbols     []string `json:"symbols"`
	Kinds       []string `json:"event_kinds"`
}

// Create validates and stores a new endpoint of the user; the answer carries its secret, shown once.
// Every problem is a 422 naming its field: the URL (not https unless allowed, a refused address, a
// host that does not resolve), an unknown watchlist, index, symbol or event kind, and one endpoint
// more than the plan allows.
func (s *Service) Create(ctx context.Context, userID, plan string, in NewEndpoint) (Endpoint, error) {
	if err := s.Allowed(plan); err != nil {
		return Endpoint{}, err
	}
	var v shariah.Validation
	e := Endpoint{ID: uuid.Must(uuid.NewV7()).String(), UserID: userID, Secret: NewSecret(), CreatedAt: s.now()}
	if in.URL == nil {
		v.Add("field required", "value_error.missing", "body", "url")
	} else if u, msg, typ := s.Targets.CheckURL(ctx, *in.URL); msg != "" {
		v.Add(msg, typ, "body", "url")
	} else {
		e.URL = u
	}
	f, err := s.checkFilter(ctx, userID, in, &v)
	if err != nil {
		return Endpoint{}, err
	}
	e.Filter = f
	e.Kinds = checkKinds(in.Kinds, &v)
	if err := v.Err(); err != nil {
		return Endpoint{}, err
	}
	max := s.limits().For(plan)
	if err := s.Store.CreateEndpoint(ctx, e, max); errors.Is(err, ErrLimit) {
		v.Add(fmt.Sprintf("the %s plan allows %d webhook endpoints; delete one first", plan, max), "value_error.webhook_limit", "body", "url")
		return Endpoint{}, v.Err()
	} else if err != nil {
		return Endpoint{}, err
	}
	return e, nil
}

// checkFilter validates the filter: the user's own watchlist, a known index, symbols in the database.
func (s *Service) checkFilter(ctx context.Context, userID string, in NewEndpoint, v *shariah.Validation) (Filter, error) {
	var f Filter
	if id := strings.TrimSpace(in.WatchlistID); id != "" {
		_, ok, err := s.Watchlists.Watchlist(ctx, userID, id)
		if err != nil {
			return f, err
		}
		if !ok {
			v.Add("no watchlist "+id+" of yours", "value_error.watchlist", "body", "watchlist_id")
		}
		f.WatchlistID = id
	}
	if raw := strings.TrimSpace(in.Index); raw != "" {
		name := catalog.NormalizeIndexName(raw)
		listing, _, err := catalog.ListIndices(ctx, s.Indices)
		if err != nil {
			return f, err
		}
		if !slices.ContainsFunc(listing, func(l catalog.IndexListing) bool { return l.Name == name }) {
			v.Add(catalog.UnknownIndexMessage(listing), "value_error.index", "body", "index")
		}
		f.Index = name
	}
	if len(in.Symbols) > MaxFilterSymbols {
		v.Add(fmt.Sprintf("at most %d symbols", MaxFilterSymbols), "value_error.list.max_items", "body", "symbols")
		return f, nil
	}
	seen := map[string]bool{}
	for i, raw := range in.Symbols {
		if _, ok := shariah.NormalizeSymbol(raw); !ok {
			v.Add("not a valid symbol", "value_error.symbol", "body", "symbols", i)
			continue
		}
		sym, err := s.Resolve(ctx, raw)
		if err != nil {
			return f, err
		}
		if sym == "" {
			v.Add("not in the database: "+strings.ToUpper(strings.TrimSpace(raw)), "value_error.symbol_unknown", "body", "symbols", i)
			continue
		}
		if !seen[sym] {
			seen[sym] = true
			f.Symbols = append(f.Symbols, sym)
		}
	}
	return f, nil
}

// checkKinds validates the event kinds (none: every kind), in the order given, without repeats.
func checkKinds(in []string, v *shariah.Validation) []string {
	var out []string
	for i, k := range in {
		k = strings.ToLower(strings.TrimSpace(k))
		if !slices.Contains(Kinds, k) {
			v.Add("unknown event kind; valid: "+strings.Join(Kinds, ", "), "value_error.event_kind", "body", "event_kinds", i)
			continue
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// notFound is an endpoint the caller does not have (unknown, or another user's).
func notFound(id string) error {
	return shariah.Errorf(shariah.ENOTFOUND, "Webhook endpoint %s not found.", id)
}

// validID reports an id shaped like an endpoint's (a UUID): malformed ids are 404 without a lookup.
func validID(id string) bool {
	_, err := uuid.Parse(id)
	return err == nil && len(id) == 36
}

// Get reads one endpoint of the user.
func (s *Service) Get(ctx context.Context, userID, plan, id string) (Endpoint, error) {
	if err := s.Allowed(plan); err != nil {
		return Endpoint{}, err
	}
	if !validID(id) {
		return Endpoint{}, notFound(id)
	}
	e, ok, err := s.Store.Endpoint(ctx, userID, id)
	if err != nil {
		return Endpoint{}, err
	}
	if !ok {
		return Endpoint{}, notFound(id)
	}
	return e, nil
}

// List reads the user's endpoints, oldest first.
func (s *Service) List(ctx context.Context, userID, plan string) ([]Endpoint, error) {
	if err := s.Allowed(plan); err != nil {
		return nil, err
	}
	return s.Store.Endpoints(ctx, userID)
}

// Delete removes an endpoint of the user; its queued deliveries find it gone and are cancelled.
func (s *Service) Delete(ctx context.Context, userID, plan, id string) error {
	if _, err := s.Get(ctx, userID, plan, id); err != nil {
		return err
	}
	ok, err := s.Store.DeleteEndpoint(ctx, userID, id)
	if err != nil {
		return err
	}
	if !ok {
		return notFound(id)
	}
	return nil
}

// RotateSecret gives an endpoint a new secret (returned, shown once); the old one stops signing at
// once, so a receiver should accept either while it is being rolled out (Verify takes several v1).
func (s *Service) RotateSecret(ctx context.Context, userID, plan, id string) (Endpoint, error) {
	e, err := s.Get(ctx, userID, plan, id)
	if err != nil {
		return Endpoint{}, err
	}
	e.Secret = NewSecret()
	ok, err := s.Store.SetSecret(ctx, userID, id, e.Secret)
	if err != nil {
		return Endpoint{}, err
	}
	if !ok {
		return Endpoint{}, notFound(id)
	}
	return e, nil
}

// Deliveries lists an endpoint's deliveries of the retention period, newest first.
func (s *Service) Deliveries(ctx context.Context, userID, plan, id string, limit int) ([]Delivery, error) {
	if _, err := s.Get(ctx, userID, plan, id); err != nil {
		return nil, err
	}
	return s.Store.Deliveries(ctx, id, limit)
}
