package account

import (
	"context"
	"net/mail"
	"net/netip"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/shariah-screen/shariah"
)

// Keys issues, replaces and revokes API keys over a KeyStore. The REST API, the MCP server and the
// operator's command line all go through it.
type Keys struct {
	Store KeyStore
	Plans Plans
	Now   func() time.Time
	// Counter and Limits bound free-key generation per client address and per email domain; without a
	// Counter there is no bound (the operator's command line, tests of other rules).
	Counter WindowCounter
	Limits  IssueLimits
	// Prefix begins every key issued from now on (ValidKeyPrefix; empty: DefaultKeyPrefix). Keys issued
	// under an earlier prefix keep working, and are regenerated and revoked like any other.
	Prefix string
}

// IssueLimits bound POST /api/keys/generate: at most PerAddress keys per client address and PerDomain
// per email domain in each Window (0: no bound of that kind).
type IssueLimits struct {
	PerAddress int
	PerDomain  int
	Window     time.Duration
}

// WindowCounter counts hits in fixed windows, shared by every edge (Redis).
type WindowCounter interface {
	// Take counts one hit in every bucket of the group when each is below its limit, atomically; when
	// one is at its limit it counts none and returns that bucket's index and the time until its window
	// ends. refused is -1 when the hit was counted.
	Take(ctx context.Context, group string, window time.Duration, limits ...WindowLimit) (refused int, left time.Duration, err error)
}

// WindowLimit is one bucket of a take and its limit per window (0: none).
type WindowLimit struct {
	Bucket string
	Limit  int
}

// ClientAddress is a request's client address: the peer's, or, when the peer is one of the trusted
// proxies, the right-most X-Forwarded-For entry that is not itself a trusted proxy (entries left of it
// are whatever the client sent and could be forged; a malformed entry stops the walk).
func ClientAddress(peer netip.Addr, forwardedFor string, trusted []netip.Prefix) string {
	isTrusted := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	addr := peer.Unmap()
	if !isTrusted(addr) {
		return addr.String()
	}
	hops := strings.Split(forwardedFor, ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		addr = a.Unmap()
		if !isTrusted(addr) {
			break
		}
	}
	return addr.String()
}

// AddressBucket groups client addresses for per-address limits: an IPv4 address alone, an IPv6 address
// by its /64 (one subscriber's allocation, whose addresses a client can rotate through freely).
func AddressBucket(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	if a = a.Unmap(); a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}

func (k *Keys) now() time.Time {
	if k.Now != nil {
		return k.Now().UTC()
	}
	return time.Now().UTC()
}

// NormalizeEmail validates an email address and returns its canonical (lower-case) form.
func NormalizeEmail(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 254 {
		return "", false
	}
	if strings.ContainsFunc(s, func(r rune) bool { return shariah.ForbiddenInName(r) != "" }) {
		return "", false // control or bidi characters: the same rule as stored names (Validation.Name)
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return "", false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 1 || !strings.Contains(s[at+1:], ".") || strings.HasSuffix(s, ".") {
		return "", false
	}
	return strings.ToLower(s), true
}

// GenerateFree issues a free-trial key for an email (POST /api/keys/generate). An email holds at most
// one active free key: a second request is refused (409), so repeated sign-ups cannot multiply the free
// allowance; after a revoke, the new key carries the month's usage of the user's previous key.
func (k *Keys) GenerateFree(ctx context.Context, email string) (IssuedKey, error) {
	var v shariah.Validation
	norm, ok := NormalizeEmail(email)
	if !ok {
		v.Add("value is not a valid email address", "value_error.email", "body", "email")
		return IssuedKey{}, v.Err()
	}
	userID, err := k.Store.UserForEmail(ctx, norm, uuid.Must(uuid.NewV7()).String())
	if err != nil {
		return IssuedKey{}, err
	}
	existing, err := k.Store.KeysOfUser(ctx, userID)
	if err != nil {
		return IssuedKey{}, err
	}
	for _, e := range existing {
		if e.Active && e.Plan == PlanFree {
			return IssuedKey{}, &shariah.Error{Code: shariah.ECONFLICT,
				Message: "An active free key already exists for this email. Regenerate it with POST /api/auth/me/regenerate, or revoke it first.",
				Detail:  map[string]any{"key_prefix": e.Prefix}}
		}
	}
	return k.issue(ctx, userID, norm, PlanFree, latest(existing))
}

// GenerateFreeFrom is GenerateFree for a client at an address, within the IssueLimits: past either
// bound it answers 429 RATE_LIMITED naming the bound, with the seconds until its window ends
// (detail.retry_after_seconds). Both bounds are checked and counted together: a request one refuses
// counts against neither. IPv6 addresses count by /64 (AddressBucket).
func (k *Keys) GenerateFreeFrom(ctx context.Context, email, address string) (IssuedKey, error) {
	norm, ok := NormalizeEmail(email)
	if ok && k.Counter != nil && k.Limits.Window > 0 {
		domain := norm[strings.LastIndexByte(norm, '@')+1:]
		scopes := []string{"address", "email_domain"}
		limits := []int{k.Limits.PerAddress, k.Limits.PerDomain}
		refused, left, err := k.Counter.Take(ctx, "keygen", k.Limits.Window,
			WindowLimit{Bucket: "address:" + AddressBucket(address), Limit: max(limits[0], 0)},
			WindowLimit{Bucket: "email_domain:" + domain, Limit: max(limits[1], 0)})
		if err != nil {
			return IssuedKey{}, err
		}
		if refused >= 0 {
			return IssuedKey{}, &shariah.Error{Code: shariah.ERATELIMITED,
				Message: "Too many free keys requested from this " + strings.ReplaceAll(scopes[refused], "_", " ") + ". Try again later.",
				Detail: map[string]any{"scope": scopes[refused], "limit": limits[refused], "window_seconds": int64(k.Limits.Window.Seconds()),
					"retry_after_seconds": max(int64(left.Seconds()+0.999), 1)}}
		}
	}
	return k.GenerateFree(ctx, email)
}

// Create issues a key of any plan for an email (operators: `shariah keys create`).
func (k *Keys) Create(ctx context.Context, email, plan string) (IssuedKey, error) {
	var v shariah.Validation
	norm, ok := NormalizeEmail(email)
	if !ok {
		v.Add("value is not a valid email address", "value_error.email", "email")
	}
	if _, ok := k.Plans.Lookup(plan); !ok {
		v.Add("unknown plan", "value_error.plan", "plan")
	}
	if err := v.Err(); err != nil {
		return IssuedKey{}, err
	}
	userID, err := k.Store.UserForEmail(ctx, norm, uuid.Must(uuid.NewV7()).String())
	if err != nil {
		return IssuedKey{}, err
	}
	return k.issue(ctx, userID, norm, plan, "")
}

// Regenerate deactivates the key and issues its replacement for the same user and plan; the
// replacement carries the period's usage.
func (k *Keys) Regenerate(ctx context.Context, old APIKey) (IssuedKey, error) {
	if !old.Active {
		return IssuedKey{}, shariah.Errorf(shariah.EKEYINACTIVE, "This API key has been deactivated.")
	}
	full, err := NewAPIKey(k.Prefix)
	if err != nil {
		return IssuedKey{}, err
	}
	now := k.now()
	// Deactivate first: from here on the old key is refused, so its meter is final when copied.
	if err := k.Store.Deactivate(ctx, old.Hash, now, PublicPrefix(full)); err != nil {
		return IssuedKey{}, err
	}
	return k.store(ctx, full, old.UserID, old.Email, old.Plan, old.Hash, now)
}

// Revoke deactivates the key with the public prefix. caller is the key presented by the client (nil if
// none); the key presented may itself be the one revoked, else it must belong to the same user.
func (k *Keys) Revoke(ctx context.Context, prefix string, caller *APIKey) (APIKey, error) {
	if !WellFormedPrefix(prefix) {
		var v shariah.Validation
		v.Add("key_prefix must be the first 12 characters of a key: its prefix (ht_, or shr_ for a key issued before ht_) and letters or digits", "value_error.key_prefix", "body", "key_prefix")
		return APIKey{}, v.Err()
	}
	target, err := k.Store.KeyByPrefix(ctx, prefix)
	if err != nil {
		return APIKey{}, err
	}
	if caller == nil || caller.UserID != target.UserID {
		// Do not reveal whether another user's prefix exists.
		return APIKey{}, shariah.Errorf(shariah.ENOTFOUND, "No key with this prefix belongs to the caller.")
	}
	now := k.now()
	if err := k.Store.Deactivate(ctx, target.Hash, now, ""); err != nil {
		return APIKey{}, err
	}
	target.Active = false
	target.DeactivatedAt = &now
	return target, nil
}

// SetPlan moves the key with the prefix to another plan (operators, and billing events later).
func (k *Keys) SetPlan(ctx context.Context, prefix, plan string) (APIKey, error) {
	if _, ok := k.Plans.Lookup(plan); !ok {
		return APIKey{}, shariah.Errorf(shariah.EVALIDATION, "unknown plan %q", plan)
	}
	target, err := k.Store.KeyByPrefix(ctx, prefix)
	if err != nil {
		return APIKey{}, err
	}
	if err := k.Store.SetPlan(ctx, target.Hash, plan); err != nil {
		return APIKey{}, err
	}
	target.Plan = plan
	return target, nil
}

func (k *Keys) issue(ctx context.Context, userID, email, plan, carryFrom string) (IssuedKey, error) {
	full, err := NewAPIKey(k.Prefix)
	if err != nil {
		return IssuedKey{}, err
	}
	return k.store(ctx, full, userID, email, plan, carryFrom, k.now())
}

func (k *Keys) store(ctx context.Context, full, userID, email, plan, carryFrom string, now time.Time) (IssuedKey, error) {
	rec := APIKey{
		ID:        uuid.Must(uuid.NewV7()).String(),
		Hash:      HashKey(full),
		Prefix:    PublicPrefix(full),
		UserID:    userID,
		Email:     email,
		Plan:      plan,
		Active:    true,
		CreatedAt: now,
	}
	if err := k.Store.CreateKey(ctx, rec, carryFrom, now); err != nil {
		return IssuedKey{}, err
	}
	return IssuedKey{Key: full, Record: rec}, nil
}

// latest returns the hash of the most recently created key, or "".
func latest(keys []APIKey) string {
	var best APIKey
	for _, k := range keys {
		if k.CreatedAt.After(best.CreatedAt) || best.Hash == "" {
			best = k
		}
	}
	return best.Hash
}

// Quota is the account view of a key's period (GET /api/auth/me).
type Quota struct {
	TokensLimit     int64  `json:"tokens_limit"` // -1 unlimited
	TokensUsed      int64  `json:"tokens_used"`
	TokensRemaining int64  `json:"tokens_remaining"` // -1 unlimited
	OverageTokens   int64  `json:"overage_tokens"`
	OverageCostUSD  string `json:"overage_cost_usd"` // decimal string
	PeriodStart     string `json:"period_start"`
	PeriodEnd       string `json:"period_end"`
}

// QuotaOf builds the account view of a meter state.
func QuotaOf(p Plan, st MeterState, period Period) Quota {
	return Quota{
		TokensLimit:     p.TokensPerMonth,
		TokensUsed:      st.Used,
		TokensRemaining: RemainingOf(p.TokensPerMonth, st.Used),
		OverageTokens:   st.Overage,
		OverageCostUSD:  p.OverageCost(st.Overage).StringFixed(2),
		PeriodStart:     period.Start.Format(time.RFC3339),
		PeriodEnd:       period.End.Format(time.RFC3339),
	}
}
