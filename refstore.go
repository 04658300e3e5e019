package shariah

import (
	"context"
	"time"
)

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

// MeterState is what a key has consumed in a period.
type MeterState struct {
	Used    int64 // tokens charged, overage included
	Overage int64 // tokens charged beyond the allowance
}

// Charge is the outcome of metering one request.
type Charge struct {
	Key       APIKey // ID, Hash, Prefix, UserID and Plan are filled
	Period    Period
	Limit     int64 // the plan's allowance; -1 unlimited
	Used      int64 // tokens used in the period after this charge
	Tokens    int   // tokens charged by this request
	Overage   int   // of which beyond the allowance
	Remaining int64 // tokens left; -1 unlimited
	Rate      RateState
}

// RateState is where a key stands against its plan's request rate after a request (the X-RateLimit-*
// headers). Burst is 0 when the plan has no rate limit.
type RateState struct {
	Burst      int   // X-RateLimit-Limit: requests a key may make at once
	Remaining  int   // X-RateLimit-Remaining: requests it may make now
	ResetMS    int64 // X-RateLimit-Reset (rounded up to seconds): until the burst is whole again
	RetryAfter int64 // ms until the next request is allowed (a refused request only)
}

// Meter checks and charges a request against its key's allowance in one atomic step.
type Meter interface {
	// Charge resolves the key hash to its record, refuses an unknown (EBADKEY) or deactivated
	// (EKEYINACTIVE) key, checks the plan's allowance and charges cost. On a hard-block plan past its
	// allowance it returns EQUOTA with the Charge filled (Tokens 0) so the caller can report usage.
	Charge(ctx context.Context, keyHash string, cost int, now time.Time) (Charge, error)
	// Refund gives back what a charge took (a request that did not succeed keeps no charge).
	Refund(ctx context.Context, c Charge) error
}

// RemainingOf is the X-Tokens-Remaining figure: -1 when unlimited, never below 0.
func RemainingOf(limit, used int64) int64 {
	if limit < 0 {
		return -1
	}
	if used >= limit {
		return 0
	}
	return limit - used
}

// RefStore holds the reference and market data. Puts merge with what is stored (loading the same data
// twice changes nothing, and a partial load loses nothing); reads answer (zero, false, nil) when absent.
type RefStore interface {
	PutAssets(ctx context.Context, assets []Asset) error
	// PutSeries merges candles by date (the new ones win on the same date). Daily candles also update
	// the monthly series (last close of each month).
	PutSeries(ctx context.Context, s Series) error
	// PutFundamentals merges periods by (period end, period) and, within a period, facts by field,
	// for many symbols at once.
	PutFundamentals(ctx context.Context, bySymbol map[string][]Fundamentals) error
	PutDividends(ctx context.Context, symbol string, ds []Dividend) error
	// PutIndex replaces an index's description and constituents.
	PutIndex(ctx context.Context, ix IndexInfo) error
	// PutHoldings replaces an ETF's holdings when they are as recent as the stored ones or newer.
	PutHoldings(ctx context.Context, etf string, hs []Holding) error
	PutFX(ctx context.Context, rates []FXRate) error
	PutMetals(ctx context.Context, prices []MetalPrice) error
	PutQuote(ctx context.Context, q Quote) error
	PutTrending(ctx context.Context, items []Trending) error
	// BumpVersion marks the reference data changed, so caches of it (the edge's catalog) reload.
	BumpVersion(ctx context.Context) (int64, error)

	Version(ctx context.Context) (int64, error)
	Asset(ctx context.Context, symbol string) (Asset, bool, error)
	AllAssets(ctx context.Context) ([]Asset, error)
	// AssetsMany reads the records of many symbols (absent ones are missing from the map).
	AssetsMany(ctx context.Context, symbols []string) (map[string]Asset, error)
	Series(ctx context.Context, symbol, interval string) (Series, bool, error)
	SeriesSymbols(ctx context.Context) ([]string, error)
	Fundamentals(ctx context.Context, symbol string) ([]Fundamentals, error)
	// FundamentalsMany reads the periods of many symbols (absent ones are missing from the map).
	FundamentalsMany(ctx context.Context, symbols []string) (map[string][]Fundamentals, error)
	Dividends(ctx context.Context, symbol string) ([]Dividend, error)
	Indices(ctx context.Context) ([]IndexInfo, error) // with Symbols filled
	Holdings(ctx context.Context, etf string) ([]Holding, error)
	ETFsWithHoldings(ctx context.Context) ([]string, error)
	FX(ctx context.Context) ([]FXRate, error)
	Metals(ctx context.Context, metal string) ([]MetalPrice, error) // oldest first
	Quote(ctx context.Context, symbol string) (Quote, bool, error)
	// QuoteJSON is the stored quote as JSON (the hot path serves it without decoding).
	QuoteJSON(ctx context.Context, symbol string) ([]byte, bool, error)
	Quotes(ctx context.Context, symbols []string) (map[string]Quote, error)
	Trending(ctx context.Context) ([]Trending, error)
	// ScreeningResultCount is the number of cached screening results (for the database stats).
	ScreeningResultCount(ctx context.Context) (int64, error)
	// ScreeningResultsBySource counts the cached screening results by DataSourceOf.
	ScreeningResultsBySource(ctx context.Context) (SourceCounts, error)
	// CompaniesBySource counts the symbols whose stored fundamentals are filed and those whose are only
	// illustrative (FundamentalsSourceOf), kept up to date by PutFundamentals.
	CompaniesBySource(ctx context.Context) (filed, illustrative int64, err error)
	// MarkFundamentalsSources records what symbols' stored fundamentals stand on (DataFiled or
	// DataIllustrative) for CompaniesBySource: a load marks the symbols it did not rewrite, so data
	// stored before the counts existed is counted too.
	MarkFundamentalsSources(ctx context.Context, bySymbol map[string]string) error
}

// Trending is an asset ranked by trading activity and price movement on its latest session.
type Trending struct {
	Symbol        string  `json:"symbol"`
	Name          string  `json:"name"`
	Price         Price   `json:"price"`
	ChangePercent Number  `json:"change_percent"` // percent, 2 places (a JSON number; older stored items hold a numeric string)
	Change        string  `json:"change"`         // the same, signed with a percent sign: "+1.23%"
	Volume        int64   `json:"volume"`
	RelVolume     *string `json:"relative_volume"` // volume / 20-session average, null when unknown
	Score         string  `json:"score"`
	AsOf          string  `json:"as_of"`
	Source        string  `json:"source"`
}
