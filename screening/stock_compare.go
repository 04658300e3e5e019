package screening

import (
	"context"
	"strings"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/market"
)

// StockComparison is one stock of a side-by-side comparison: its screening, latest quote (null without
// price data) and database record. Fields are in the order of the JSON the edge has always served
// (alphabetical).
type StockComparison struct {
	Database shariah.Asset `json:"database"`
	// Marks are the kinds of mark on the screening (MarksOf: illustrative, carried_forward), beside its
	// status so a side-by-side view cannot show one without the other.
	Marks     []string      `json:"marks"`
	Quote     *market.Quote `json:"quote"`
	Screening Result        `json:"screening"`
	Status    string        `json:"status"`
	Symbol    string        `json:"symbol"`
}

// comparisonQuotes reads the latest stored quote of a symbol (false without price data): the
// reference store.
type comparisonQuotes interface {
	Quote(ctx context.Context, symbol string) (market.Quote, bool, error)
}

// CompareStocks screens each input under o (cached results reused) and adds its quote and record, in
// input order. An input that is not a plausible symbol or not in the catalog ends the comparison with
// UnknownSymbol.
func (s *Screener) CompareStocks(ctx context.Context, cat *catalog.Catalog, quotes comparisonQuotes, inputs []string, o ScreenOptions) ([]StockComparison, error) {
	out := make([]StockComparison, 0, len(inputs))
	for _, raw := range inputs {
		r := cat.Canonical(raw)
		if _, ok := shariah.NormalizeSymbol(raw); !ok || r.Symbol == "" {
			return nil, catalog.UnknownSymbol(strings.ToUpper(strings.TrimSpace(raw)))
		}
		a, _ := cat.Lookup(r.Symbol)
		res, _, err := s.Screen(ctx, r.Symbol, o)
		if err != nil {
			return nil, err
		}
		q, ok, err := quotes.Quote(ctx, r.Symbol)
		if err != nil {
			return nil, err
		}
		item := StockComparison{Database: a, Marks: MarksOf(res).Kinds(), Screening: res, Status: res.ComplianceStatus, Symbol: r.Symbol}
		if ok {
			item.Quote = &q
		}
		out = append(out, item)
	}
	return out, nil
}
