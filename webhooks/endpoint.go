package webhooks

import (
	"errors"
	"slices"
	"time"

	"github.com/shariah-screen/shariah/account"
)

// Endpoint is a user's webhook endpoint: where to deliver (URL), which events (Filter, Kinds), the
// signing secret, and whether it is enabled.
type Endpoint struct {
	ID        string    `json:"id"`
	UserID    string    `json:"user_id"`
	URL       string    `json:"url"`
	Filter    Filter    `json:"filter"`
	Kinds     []string  `json:"event_kinds"` // empty: every kind
	Secret    string    `json:"secret"`
	CreatedAt time.Time `json:"created_at"`
	// Disabled is set when the endpoint was disabled (410, or failing too long); nil when enabled. The
	// store keeps it beside the record (a worker disables an endpoint without rewriting its record).
	Disabled *Disabled `json:"-"`
}

// Disabled says why and when an endpoint stopped receiving deliveries.
type Disabled struct {
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// Filter selects the events of an endpoint by symbol: those of a watchlist of the user (its symbols when
// the event is matched), of an index's constituents, or of listed symbols; several are a union. No
// filter: every symbol.
type Filter struct {
	WatchlistID string   `json:"watchlist_id,omitempty"`
	Index       string   `json:"index,omitempty"`
	Symbols     []string `json:"symbols,omitempty"`
}

// Empty reports a filter that selects every symbol.
func (f Filter) Empty() bool { return f.WatchlistID == "" && f.Index == "" && len(f.Symbols) == 0 }

// WantsKinds reports whether the endpoint takes an event of these kinds.
func (e Endpoint) WantsKinds(kinds []string) bool {
	if len(e.Kinds) == 0 {
		return true
	}
	for _, k := range kinds {
		if slices.Contains(e.Kinds, k) {
			return true
		}
	}
	return false
}

// EndpointJSON is an endpoint as served. Secret is present only in the answers of create and
// rotate-secret: the one time the user sees it.
type EndpointJSON struct {
	ID             string     `json:"id"`
	URL            string     `json:"url"`
	Filter         Filter     `json:"filter"`
	Kinds          []string   `json:"event_kinds"`
	Enabled        bool       `json:"enabled"`
	DisabledReason string     `json:"disabled_reason,omitempty"`
	DisabledAt     *time.Time `json:"disabled_at,omitempty"`
	CreatedAt      time.Time  `json:"created_at"`
	Secret         string     `json:"secret,omitempty"`
}

// Served is the endpoint as served; withSecret shows the secret (create, rotate).
func (e Endpoint) Served(withSecret bool) EndpointJSON {
	out := EndpointJSON{ID: e.ID, URL: e.URL, Filter: e.Filter, Kinds: e.Kinds, Enabled: e.Disabled == nil, CreatedAt: e.CreatedAt}
	if out.Kinds == nil {
		out.Kinds = []string{}
	}
	if e.Disabled != nil {
		out.DisabledReason = e.Disabled.Reason
		at := e.Disabled.At
		out.DisabledAt = &at
	}
	if withSecret {
		out.Secret = e.Secret
	}
	return out
}

// Limits are how many endpoints a user of each plan may have. A plan not listed (Free) has none: its
// keys get 403 on every webhook route.
type Limits map[string]int

// DefaultLimits scale with the plans' allowances (account.DefaultPlans): a Starter user wires a
// portfolio tool and a spare, a Pro user a few integrations, an Enterprise user one per team.
func DefaultLimits() Limits {
	return Limits{account.PlanStarter: 3, account.PlanPro: 10, account.PlanEnterprise: 50, account.PlanInternal: 1000}
}

// For is the number of endpoints the plan allows (0: webhooks are not part of the plan).
func (l Limits) For(plan string) int { return l[plan] }

// Errors of a Store.
var (
	ErrLimit      = errors.New("endpoint limit reached")
	ErrNoEndpoint = errors.New("no such endpoint")
)
