// Package account holds what belongs to a customer's account: API keys (apikey.go, keys.go), plans and
// their rights (plan.go, plan_rights.go), the token cost of each route and its pricing (cost.go), the
// Meter contract (meter.go), billing events (billing.go), usage (usage.go, usage_analytics.go) and
// watchlists (watchlist.go; their statuses, which are screened, are the screening's). It imports the
// kernel only.
package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"time"
	"unsafe"

	"github.com/shariah-screen/shariah"
)

// API key format: a key prefix, then 40 base62 characters from crypto/rand. New keys carry the
// configured prefix (Keys.Prefix; SHARIAH_KEY_PREFIX, default DefaultKeyPrefix "ht_", the form the
// clients check: ^ht_[A-Za-z0-9]+). Keys issued under another prefix (LegacyKeyPrefix "shr_", before
// issue 27) keep working: a key prefix is any 1 to 3 lower-case letters and '_', and the store knows a
// key only by the SHA-256 of the whole text. Only that hash is stored; a key's first 12 characters
// are its public prefix (at least 8 random characters), used for revocation and logs.
const (
	DefaultKeyPrefix = "ht_"
	LegacyKeyPrefix  = "shr_"
	keyRandomLen     = 40
	maxKeyPrefixLen  = 4 // 3 letters and '_': the public prefix keeps 8 random characters
	PublicPrefixLen  = 12
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// ValidKeyPrefix reports whether p can begin a key: 1 to 3 lower-case ASCII letters, then '_'.
func ValidKeyPrefix(p string) bool {
	if len(p) < 2 || len(p) > maxKeyPrefixLen || p[len(p)-1] != '_' {
		return false
	}
	for i := 0; i < len(p)-1; i++ {
		if p[i] < 'a' || p[i] > 'z' {
			return false
		}
	}
	return true
}

// NewAPIKey returns a fresh full key beginning with prefix (DefaultKeyPrefix when empty; the caller
// has checked it with ValidKeyPrefix). Each character is drawn uniformly (no modulo bias).
func NewAPIKey(prefix string) (string, error) {
	if prefix == "" {
		prefix = DefaultKeyPrefix
	}
	if !ValidKeyPrefix(prefix) {
		return "", fmt.Errorf("key prefix %q: not 1 to 3 lower-case letters and '_'", prefix)
	}
	b := make([]byte, 0, len(prefix)+keyRandomLen)
	b = append(b, prefix...)
	max := big.NewInt(int64(len(base62)))
	for range keyRandomLen {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", fmt.Errorf("random key: %w", err)
		}
		b = append(b, base62[n.Int64()])
	}
	return string(b), nil
}

// HashKey is the stored form of a key: hex SHA-256. It runs on every request with a key: one allocation
// (the hex string), none for the key's bytes (read in place) or the hex digits (on the stack).
func HashKey(full string) string {
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(full), len(full)))
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:])
}

// WellFormedKey reports whether s has the shape of a key (a key prefix, ValidKeyPrefix, then 40
// letters or digits), so malformed ones are refused without a lookup. Keys of every prefix ever issued
// ("ht_", "shr_") are well formed.
func WellFormedKey(s string) bool {
	i := strings.IndexByte(s, '_')
	if i < 0 || !ValidKeyPrefix(s[:i+1]) || len(s)-(i+1) != keyRandomLen {
		return false
	}
	return isBase62(s[i+1:])
}

func isBase62(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// PublicPrefix returns the public part of a key (its first 12 characters): safe to log and to show.
func PublicPrefix(full string) string {
	if len(full) < PublicPrefixLen {
		return full
	}
	return full[:PublicPrefixLen]
}

// WellFormedPrefix reports whether s has the shape of a public prefix: the first 12 characters of a
// well-formed key ("ht_" and 9 letters or digits, "shr_" and 8).
func WellFormedPrefix(s string) bool {
	i := strings.IndexByte(s, '_')
	return len(s) == PublicPrefixLen && i >= 0 && ValidKeyPrefix(s[:i+1]) && isBase62(s[i+1:])
}

// APIKey is the stored record of a key. The full key is never part of it.
type APIKey struct {
	ID            string     `json:"id"`      // stable id used in usage history (a UUIDv7)
	Hash          string     `json:"-"`       // hex SHA-256 of the full key
	Prefix        string     `json:"prefix"`  // public prefix
	UserID        string     `json:"user_id"` // keys regenerated from one another share a user
	Email         string     `json:"email"`
	Plan          string     `json:"plan"`
	Active        bool       `json:"active"`
	CreatedAt     time.Time  `json:"created_at"`
	DeactivatedAt *time.Time `json:"deactivated_at,omitempty"`
	ReplacedBy    string     `json:"replaced_by,omitempty"` // prefix of the key that replaced this one
}

// IssuedKey is a new key as returned once to its owner.
type IssuedKey struct {
	Key    string // the full key, shown once
	Record APIKey
}

// ActiveKey resolves a key presented by a client (full text) to its record: INVALID_API_KEY when it is
// malformed or unknown, API_KEY_DEACTIVATED when revoked; any other error is the store's (unavailable).
// The REST edge and the MCP port both authenticate with it.
func ActiveKey(ctx context.Context, store KeyStore, full string) (APIKey, error) {
	if !WellFormedKey(full) {
		return APIKey{}, shariah.Errorf(shariah.EBADKEY, "Invalid API key.")
	}
	k, err := store.KeyByHash(ctx, HashKey(full))
	if shariah.ErrorCode(err) == shariah.ENOTFOUND {
		return APIKey{}, shariah.Errorf(shariah.EBADKEY, "Invalid API key.")
	}
	if err != nil {
		return APIKey{}, err
	}
	if !k.Active {
		return APIKey{}, shariah.Errorf(shariah.EKEYINACTIVE, "This API key has been deactivated.")
	}
	return k, nil
}

// KeyStore holds API key records, indexed by hash, public prefix, user and email.
type KeyStore interface {
	// CreateKey stores a new key. carryFromHash, when set, names the key whose current-period meter
	// is copied to the new key, so that replacing a key never resets a month's allowance.
	CreateKey(ctx context.Context, k APIKey, carryFromHash string, now time.Time) error
	KeyByHash(ctx context.Context, hash string) (APIKey, error)
	KeyByPrefix(ctx context.Context, prefix string) (APIKey, error)
	KeysOfUser(ctx context.Context, userID string) ([]APIKey, error)
	// Deactivate marks the key inactive; it is refused on its next request. Idempotent.
	Deactivate(ctx context.Context, hash string, at time.Time, replacedBy string) error
	SetPlan(ctx context.Context, hash, plan string) error
	// UserForEmail returns the user id of the email, creating it as newID when the email is new.
	UserForEmail(ctx context.Context, email, newID string) (string, error)
	// MeterState reads a key's meter for the period.
	MeterState(ctx context.Context, hash string, p Period) (MeterState, error)
}

// CallerOf is the caller an API key identifies.
func CallerOf(k APIKey) shariah.Caller {
	return shariah.Caller{UserID: k.UserID, Operator: k.Plan == PlanInternal}
}
