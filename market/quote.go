// Package market holds market data: quotes and their served bodies (quote.go), trending, price history
// and freshness, FX and cross rates, metal prices, policy rates, popularity and split detection. It
// also holds, for now, the reference store contract (refstore.go: RefStore, RefReader, RefWriter),
// which spans contexts and is to be dissolved into what each consumer reads (issue 28 item 2). It
// imports the kernel and the catalog.
package market

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// QuoteSource is what building a quote reads of the reference store: a symbol's candles, its record and
// its fundamentals (the shares on file).
type QuoteSource interface {
	Series(ctx context.Context, symbol, interval string) (shariah.Series, bool, error)
	Asset(ctx context.Context, symbol string) (shariah.Asset, bool, error)
	Fundamentals(ctx context.Context, symbol string) ([]shariah.Fundamentals, error)
}

// QuoteStore is what refreshing quotes reads and writes: what a quote is built from, and the quote.
type QuoteStore interface {
	QuoteSource
	PutQuote(ctx context.Context, q Quote) error
}

// QuoteFromStore builds a symbol's quote from its stored candles (daily, else monthly).
func QuoteFromStore(ctx context.Context, st QuoteSource, sym string) (Quote, bool, error) {
	s, ok, err := st.Series(ctx, sym, "1d")
	if err != nil {
		return Quote{}, false, err
	}
	if !ok {
		if s, ok, err = st.Series(ctx, sym, "1mo"); err != nil || !ok {
			return Quote{}, false, err
		}
	}
	q, ok := QuoteFromBars(sym, s.Bars, s.Source)
	if !ok {
		return q, false, nil
	}
	if s.Interval == "1mo" {
		q.Description = "from monthly closes: change is month over month"
	}
	return q, true, nil
}

// FinishQuote adds the record's name and currency, and the market cap from the latest shares
// outstanding on file.
func FinishQuote(ctx context.Context, st QuoteSource, q *Quote) error {
	a, ok, err := st.Asset(ctx, q.Symbol)
	if err != nil {
		return err
	}
	if ok {
		q.Name, q.Currency = a.Name, a.Currency
	}
	fs, err := st.Fundamentals(ctx, q.Symbol)
	if err != nil {
		return err
	}
	for i := len(fs) - 1; i >= 0; i-- {
		if f, ok := fs[i].Facts[shariah.SharesOutstanding]; ok {
			shares := f.Value.Decimal.IntPart()
			mc := shariah.NewNumber(f.Value.Decimal.Mul(decimal.New(int64(q.Price), -6)).Round(0))
			q.SharesOut, q.MarketCap = &shares, &mc
			q.MarketCapSource = f.Source
			if strings.Contains(f.Note, "split") {
				q.MarketCapNote = "shares_outstanding " + f.Note
			}
			break
		}
	}
	return holdBackSuspectCap(ctx, st, q, fs)
}

// holdBackSuspectCap nulls a quote's market cap that SuspectMarketCap holds back, saying why.
func holdBackSuspectCap(ctx context.Context, st QuoteSource, q *Quote, fs []shariah.Fundamentals) error {
	with := 0 // periods with shares, or holding them back
	for _, f := range fs {
		if _, ok := f.Facts[shariah.SharesOutstanding]; ok || strings.HasPrefix(f.Missing[shariah.SharesOutstanding], SplitUnplaced) {
			with++
		}
	}
	if with < 2 && (with == 0 || q.MarketCap != nil) {
		return nil // one count, served: nothing to compare it with
	}
	s, _, err := st.Series(ctx, q.Symbol, "1mo")
	if err != nil {
		return err
	}
	if why := SuspectMarketCap(fs, s.Bars); why != "" {
		q.MarketCap, q.MarketCapNote = nil, why
	}
	return nil
}

// RefreshQuotes rebuilds and stores the quotes of symbols from their stored candles (after a load or a
// price ingest); symbols without candles are skipped. It returns how many quotes were written.
func RefreshQuotes(ctx context.Context, st QuoteStore, symbols []string) (int, error) {
	n := 0
	for _, sym := range symbols {
		q, ok, err := QuoteFromStore(ctx, st, sym)
		if err != nil {
			return n, err
		}
		if !ok {
			continue
		}
		if err := FinishQuote(ctx, st, &q); err != nil {
			return n, err
		}
		if err := st.PutQuote(ctx, q); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// QuotesReader is what BatchQuotes reads: the stored quotes of many symbols.
type QuotesReader interface {
	Quotes(ctx context.Context, symbols []string) (map[string]Quote, error)
}

// BatchQuotes answers several symbols at once: each input (upper-cased as given) maps to its quote, or
// to nil when it is malformed, unknown or has no price data. count, when set, sees each known symbol
// (the quote-request counter). Each quote carries disclaimers (the market_data disclaimer, as a single
// quote does).
func BatchQuotes(ctx context.Context, cats *catalog.Cache, st QuotesReader, syms []string, count func(sym string), disclaimers []shariah.Disclaimer) (map[string]*Quote, error) {
	out := make(map[string]*Quote, len(syms))
	canon := map[string]string{}
	var want []string
	for _, raw := range syms {
		key := strings.ToUpper(strings.TrimSpace(raw))
		out[key] = nil
		sym, err := cats.Resolve(ctx, raw)
		if err != nil {
			return nil, err
		}
		if sym == "" {
			continue
		}
		canon[key] = sym
		want = append(want, sym)
		if count != nil {
			count(sym)
		}
	}
	qs, err := st.Quotes(ctx, want)
	if err != nil {
		return nil, err
	}
	for key, sym := range canon {
		if q, ok := qs[sym]; ok {
			q.Disclaimers = disclaimers
			out[key] = &q
		}
	}
	return out, nil
}

// Quote is the latest price of a symbol and its key metrics, derived from its latest candles.
type Quote struct {
	Symbol        string          `json:"symbol"`
	Name          string          `json:"name"`
	Currency      string          `json:"currency"`
	Price         shariah.Price   `json:"price"`
	PreviousClose *shariah.Price  `json:"previous_close"`
	Change        *shariah.Price  `json:"change"`
	ChangePercent *shariah.Number `json:"change_percent"` // percent, 2 places (older stored quotes hold a numeric string)
	// Open, DayHigh, DayLow and Volume are the last session's, null where the source does not give
	// them (a close-only source).
	Open    *shariah.Price `json:"open"`
	DayHigh *shariah.Price `json:"day_high"`
	DayLow  *shariah.Price `json:"day_low"`
	Volume  *int64         `json:"volume"`
	// AvgVolume is the mean volume of the 20 sessions before the last, over those with a volume (null
	// when none has one).
	AvgVolume *int64          `json:"avg_volume"`
	High52W   shariah.Price   `json:"high_52w"`
	Low52W    shariah.Price   `json:"low_52w"`
	MarketCap *shariah.Number `json:"market_cap"` // price x shares outstanding; null when shares are unknown
	// MarketCapSource is the provenance of the shares outstanding behind MarketCap (filing, illustrative).
	MarketCapSource string `json:"market_cap_source,omitempty"`
	SharesOut       *int64 `json:"shares_outstanding"`
	AsOf            string `json:"as_of"`  // date of the last candle (YYYY-MM-DD)
	Source          string `json:"source"` // history, live or illustrative
	Delayed         bool   `json:"delayed"`
	Description     string `json:"note,omitempty"`
	// Disclaimers is the market_data disclaimer, set where a quote is served on its own.
	Disclaimers []shariah.Disclaimer `json:"disclaimers,omitempty"`

	// Range52WBasis says what High52W and Low52W are the range of, over the year to the last session:
	// "high_low" (daily highs and lows) or "close" (closes: some session of the year has no high and
	// low, as with a close-only source).
	Range52WBasis string `json:"range_52w_basis,omitempty"`
	// MarketCapNote says how the shares were put on the closes' basis (a split), or why the market cap
	// is held back as suspect (then MarketCap is null).
	MarketCapNote string `json:"market_cap_note,omitempty"`
}

// Unknown names the quote's fields its source does not give (null in the JSON): open, day_high,
// day_low, volume, avg_volume, in that order; none for a full OHLCV source.
func (q Quote) Unknown() []string {
	var out []string
	for _, f := range []struct {
		name string
		null bool
	}{{"open", q.Open == nil}, {"day_high", q.DayHigh == nil}, {"day_low", q.DayLow == nil},
		{"volume", q.Volume == nil}, {"avg_volume", q.AvgVolume == nil}} {
		if f.null {
			out = append(out, f.name)
		}
	}
	return out
}

// MarshalJSON writes the quote with changePercent and marketCap beside change_percent and market_cap:
// the names the ecosystem's JavaScript clients read.
func (q Quote) MarshalJSON() ([]byte, error) {
	type plain Quote
	return json.Marshal(struct {
		plain
		ChangePercentCamel *shariah.Number `json:"changePercent"`
		MarketCapCamel     *shariah.Number `json:"marketCap"`
	}{plain(q), q.ChangePercent, q.MarketCap})
}

// SignedPercent writes a percent change with its sign and two decimals: "+1.23%", "-0.50%", "0.00%".
func SignedPercent(pct decimal.Decimal) string {
	s := pct.StringFixed(2) + "%"
	if pct.Round(2).IsPositive() {
		s = "+" + s
	}
	return s
}

// QuoteFromBars builds a quote from daily bars (oldest first). It needs at least one bar. What the
// last bar lacks (Bar.Gaps) is null in the quote.
func QuoteFromBars(symbol string, bars []shariah.Bar, source string) (Quote, bool) {
	if len(bars) == 0 {
		return Quote{}, false
	}
	last := bars[len(bars)-1]
	q := Quote{Symbol: symbol, Price: last.Close, AsOf: last.Date.Format("2006-01-02"), Source: source, Delayed: true}
	c := last.Candle()
	q.Open, q.DayHigh, q.DayLow, q.Volume = c.Open, c.High, c.Low, c.Volume
	if len(bars) > 1 {
		prev := bars[len(bars)-2].Close
		ch := last.Close - prev
		q.PreviousClose, q.Change = &prev, &ch
		if prev != 0 {
			pct := shariah.NewNumber(decimal.RequireFromString(RatioPercent(int64(ch), int64(prev))))
			q.ChangePercent = &pct
		}
		// average volume of up to 20 sessions before the last, of those with a volume
		var sum, n int64
		for i := len(bars) - 2; i >= 0 && i >= len(bars)-21; i-- {
			if bars[i].Gaps&shariah.NoVolume == 0 {
				sum += bars[i].Volume
				n++
			}
		}
		if n > 0 {
			avg := sum / n
			q.AvgVolume = &avg
		}
	}
	cut := last.Date.AddDate(-1, 0, 0)
	from := len(bars) - 1
	for from > 0 && bars[from-1].Date.After(cut) {
		from--
	}
	year := bars[from:]
	q.Range52WBasis = "high_low"
	for _, b := range year {
		if b.Gaps&shariah.NoHighLow != 0 {
			q.Range52WBasis = "close"
			break
		}
	}
	q.High52W, q.Low52W = last.Close, last.Close
	for _, b := range year {
		if q.Range52WBasis == "close" {
			q.High52W, q.Low52W = max(q.High52W, b.Close), min(q.Low52W, b.Close)
		} else {
			q.High52W, q.Low52W = max(q.High52W, b.High), min(q.Low52W, b.Low)
		}
	}
	return q, true
}

// PercentNumber is RatioPercent as a JSON number (2 decimals); 0 when den is 0 (no ratio).
func PercentNumber(num, den int64) shariah.Number {
	if den == 0 {
		return shariah.NewNumber(decimal.Zero)
	}
	return shariah.NewNumber(decimal.RequireFromString(RatioPercent(num, den)))
}

// RatioPercent formats num/den as a percentage with two decimals, rounded half away from zero, in
// integer arithmetic.
func RatioPercent(num, den int64) string {
	if den < 0 {
		num, den = -num, -den
	}
	// hundredths of a percent: num*10000/den, rounded
	neg := num < 0
	if neg {
		num = -num
	}
	v := (num*10000*2 + den) / (2 * den)
	s := fmt.Sprintf("%d.%02d", v/100, v%100)
	if neg && v != 0 {
		s = "-" + s
	}
	return s
}

// QuoteBodies encodes the body of GET /api/quote/{symbol}: the stored quote with the disclaimers a quote
// is served with (the market_data one). Variant names the encoding (format, the Quote type's shape, the
// disclaimers' text): a body stored under another variant (by a binary with other disclaimers or
// another Quote) is not served.
type QuoteBodies struct {
	disclaimers []shariah.Disclaimer
	variant     string
}

// NewQuoteBodies encodes quotes with these disclaimers.
func NewQuoteBodies(disclaimers []shariah.Disclaimer) QuoteBodies {
	h := fnv.New64a()
	b, _ := json.Marshal(disclaimers) // plain strings: cannot fail
	h.Write(b)
	return QuoteBodies{disclaimers: disclaimers,
		variant: "q" + strconv.Itoa(shariah.ServedFormat) + "-" + quoteShape + "-" + strconv.FormatUint(h.Sum64(), 36)}
}

// Disclaimers are the disclaimers a served quote carries (a batch of quotes carries them on each).
func (b QuoteBodies) Disclaimers() []shariah.Disclaimer { return b.disclaimers }

// Variant names the encoding (see QuoteBodies).
func (b QuoteBodies) Variant() string { return b.variant }

// Serve is the body GET /api/quote serves for a stored quote.
func (b QuoteBodies) Serve(q Quote) (shariah.Served, error) {
	q.Disclaimers = b.disclaimers
	body, err := json.Marshal(q)
	if err != nil {
		return shariah.Served{}, err
	}
	return shariah.NewServed(body), nil
}

var quoteShape = shariah.ShapeHash(reflect.TypeOf(Quote{}))
