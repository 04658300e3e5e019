package shariah

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"time"
)

// API key format: "shr_" then 40 base62 characters from crypto/rand. Only the
// SHA-256 of a key is stored; its first 12 characters are its public prefix, used for revocation and logs.
const (
	KeyPrefix       = "shr_"
	keyRandomLen    = 40
	KeyLen          = len(KeyPrefix) + keyRandomLen
	PublicPrefixLen = 12
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewAPIKey returns a fresh full key. Each character is drawn uniformly (no modulo bias).
func NewAPIKey() (string, error) {
	b := make([]byte, 0, KeyLen)
	b = append(b, KeyPrefix...)
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

// HashKey is the stored form of a key: hex SHA-256.
func HashKey(full string) string {
	sum := sha256.Sum256([]byte(full))
	return hex.EncodeToString(sum[:])
}

// WellFormedKey reports whether s has the shape of a key, so malformed ones are refused without a lookup.
func WellFormedKey(s string) bool {
	if len(s) != KeyLen || s[:len(KeyPrefix)] != KeyPrefix {
		return false
	}
	for i := len(KeyPrefix); i < len(s); i++ {
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

// WellFormedPrefix reports whether s has the shape of a public prefix.
func WellFormedPrefix(s string) bool {
	return len(s) == PublicPrefixLen && WellFormedKey(s+"0000000000000000000000000000000000000000"[:KeyLen-PublicPrefixLen])
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
		return APIKey{}, Errorf(EBADKEY, "Invalid API key.")
	}
	k, err := store.KeyByHash(ctx, HashKey(full))
	if ErrorCode(err) == ENOTFOUND {
		return APIKey{}, Errorf(EBADKEY, "Invalid API key.")
	}
	if err != nil {
		return APIKey{}, err
	}
	if !k.Active {
		return APIKey{}, Errorf(EKEYINACTIVE, "This API key has been deactivated.")
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
