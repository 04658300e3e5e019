package market

import (
	"context"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// RefStore holds the reference and market data: the loaders write it (RefWriter), the services read it
// (RefReader). The redis adapter implements the whole; a consumer declares what it uses: the serving
// half (the edge and MCP, which hand it on), or the few methods it calls (QuoteStore, the ingesters'
// Store, datapack.Store, the agent's QuoteReader, the reading services' readers: screening.InputReader,
// finance.ZakatReader, bulk.Reader, etf.Reader, insights.Reader, ...).
type RefStore interface {
	RefReader
	RefWriter
}

// RefWriter is the loaders' half of the reference store. Puts merge with what is stored (loading the
// same data twice changes nothing, and a partial load loses nothing).
type RefWriter interface {
	PutAssets(ctx context.Context, assets []shariah.Asset) error
	// PutSeries merges candles by date (the new ones win on the same date). Daily candles also update
	// the monthly series (last close of each month).
	PutSeries(ctx context.Context, s shariah.Series) error
	// PutFundamentals merges periods by (period end, period) and, within a period, facts by field,
	// for many symbols at once (MergeFundamentals).
	PutFundamentals(ctx context.Context, bySymbol map[string][]shariah.Fundamentals) error
	PutDividends(ctx context.Context, symbol string, ds []shariah.Dividend) error
	// PutIndex replaces an index's description and constituents.
	PutIndex(ctx context.Context, ix catalog.IndexInfo) error
	// PutHoldings replaces an ETF's holdings when they are as recent as the stored ones or newer.
	PutHoldings(ctx context.Context, etf string, hs []shariah.Holding) error
	PutFX(ctx context.Context, rates []FXRate) error
	PutMetals(ctx context.Context, prices []MetalPrice) error
	// PutQuote stores a symbol's latest quote and, when the store was given the quote bodies, the body
	// GET /api/quote serves for it (ServedQuote).
	PutQuote(ctx context.Context, q Quote) error
	PutTrending(ctx context.Context, items []Trending) error
	// BumpVersion marks the reference data changed, so caches of it (the edge's catalog) reload.
	BumpVersion(ctx context.Context) (int64, error)
	// MarkFundamentalsSources records what symbols' stored fundamentals stand on (DataFiled or
	// DataIllustrative) for CompaniesBySource: a load marks the symbols it did not rewrite, so data
	// stored before the counts existed is counted too.
	MarkFundamentalsSources(ctx context.Context, bySymbol map[string]string) error
}

// RefReader is the serving half of the reference store. Reads answer (zero, false, nil) when absent.
type RefReader interface {
	Version(ctx context.Context) (int64, error)
	Asset(ctx context.Context, symbol string) (shariah.Asset, bool, error)
	AllAssets(ctx context.Context) ([]shariah.Asset, error)
	// AssetsMany reads the records of many symbols (absent ones are missing from the map).
	AssetsMany(ctx context.Context, symbols []string) (map[string]shariah.Asset, error)
	Series(ctx context.Context, symbol, interval string) (shariah.Series, bool, error)
	SeriesSymbols(ctx context.Context) ([]string, error)
	Fundamentals(ctx context.Context, symbol string) ([]shariah.Fundamentals, error)
	// FundamentalsMany reads the periods of many symbols (absent ones are missing from the map).
	FundamentalsMany(ctx context.Context, symbols []string) (map[string][]shariah.Fundamentals, error)
	Dividends(ctx context.Context, symbol string) ([]shariah.Dividend, error)
	Indices(ctx context.Context) ([]catalog.IndexInfo, error) // with Symbols filled
	Holdings(ctx context.Context, etf string) ([]shariah.Holding, error)
	ETFsWithHoldings(ctx context.Context) ([]string, error)
	FX(ctx context.Context) ([]FXRate, error)
	Metals(ctx context.Context, metal string) ([]MetalPrice, error) // oldest first
	Quote(ctx context.Context, symbol string) (Quote, bool, error)
	// ServedQuote is the body GET /api/quote serves for a symbol's stored quote, as bodies encodes it:
	// as stored when it was stored with the quote under bodies' variant, else encoded from the quote
	// (and stored beside it for the next read). The body is read only. ok is false without a quote.
	ServedQuote(ctx context.Context, symbol string, bodies QuoteBodies) (shariah.StoredQuote, bool, error)
	Quotes(ctx context.Context, symbols []string) (map[string]Quote, error)
	Trending(ctx context.Context) ([]Trending, error)
	// CompaniesBySource counts the symbols whose stored fundamentals are filed and those whose are only
	// illustrative (FundamentalsSourceOf), kept up to date by PutFundamentals.
	CompaniesBySource(ctx context.Context) (filed, illustrative int64, err error)
}
