package shariah

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Price is an amount in a currency's units with six decimal places, held as an integer: candles are
// stored compactly and every sum and average is exact decimal arithmetic (no float drift).
type Price int64

// PriceScale is the number of Price units in one currency unit.
const PriceScale = 1_000_000

// ParsePrice reads a decimal string ("207.4", "1892.7554931640625", "1e3") rounding half away from
// zero to six decimals.
func ParsePrice(s string) (Price, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty price")
	}
	neg := false
	if s[0] == '-' || s[0] == '+' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("price %q: %w", s, err)
		}
		p := Price(f*PriceScale + 0.5)
		if neg {
			p = -p
		}
		return p, nil
	}
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" && frac == "" {
		return 0, fmt.Errorf("price %q", s)
	}
	var n int64
	for _, c := range intPart {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("price %q", s)
		}
		n = n*10 + int64(c-'0')
		if n > 9_000_000_000_000 {
			return 0, fmt.Errorf("price %q too large", s)
		}
	}
	n *= PriceScale
	scale := int64(PriceScale / 10)
	for i, c := range frac {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("price %q", s)
		}
		if i < 6 {
			n += int64(c-'0') * scale
			scale /= 10
		} else if i == 6 {
			if c >= '5' {
				n++
			}
		}
	}
	if neg {
		n = -n
	}
	return Price(n), nil
}

// String renders the price with the decimals it needs (at least two).
func (p Price) String() string {
	neg := p < 0
	if neg {
		p = -p
	}
	s := fmt.Sprintf("%d.%06d", int64(p)/PriceScale, int64(p)%PriceScale)
	s = strings.TrimRight(s, "0")
	if i := strings.IndexByte(s, '.'); len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	if neg {
		return "-" + s
	}
	return s
}

// MarshalJSON writes the price as a JSON number with exact decimals.
func (p Price) MarshalJSON() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalJSON reads a JSON number (or a numeric string) exactly.
func (p *Price) UnmarshalJSON(b []byte) error {
	v, err := ParsePrice(strings.Trim(string(b), `"`))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Float is the price as a float64, for ratios shown to clients (never for sums).
func (p Price) Float() float64 { return float64(p) / PriceScale }

// Bar is one OHLCV candle. Date is the trading day (UTC) or, for monthly bars, the month's last
// trading day.
type Bar struct {
	Date   time.Time `json:"-"`
	Open   Price     `json:"open"`
	High   Price     `json:"high"`
	Low    Price     `json:"low"`
	Close  Price     `json:"close"`
	Volume int64     `json:"volume"` // 0 when the source has none
}

// Price data provenance.
const (
	SourceHistory      = "history"      // end-of-day history from a public data set or feed
	SourceIllustrative = "illustrative" // made up for the offline demo; never real
	SourceFiling       = "filing"       // from a regulatory filing (SEC XBRL)
	SourceLive         = "live"         // from a live feed
)

// Series is a symbol's candles of one interval, oldest first.
type Series struct {
	Symbol   string
	Interval string // "1d" or "1mo"
	Source   string // history or illustrative
	Bars     []Bar
}

// MonthlyFromDaily returns the monthly bars of daily ones: open of the first day, high and low of the
// month, close of the last day (the monthly close of the trailing market-cap averages), volume summed.
func MonthlyFromDaily(daily []Bar) []Bar {
	var out []Bar
	for _, b := range daily {
		if n := len(out); n > 0 && sameMonth(out[n-1].Date, b.Date) {
			m := &out[n-1]
			m.Date = b.Date
			m.High = max(m.High, b.High)
			m.Low = min(m.Low, b.Low)
			m.Close = b.Close
			m.Volume += b.Volume
			continue
		}
		out = append(out, b)
	}
	return out
}

// WeeklyFromDaily aggregates daily bars into ISO weeks (dated by the week's last trading day).
func WeeklyFromDaily(daily []Bar) []Bar {
	var out []Bar
	for _, b := range daily {
		if n := len(out); n > 0 {
			y1, w1 := out[n-1].Date.ISOWeek()
			y2, w2 := b.Date.ISOWeek()
			if y1 == y2 && w1 == w2 {
				m := &out[n-1]
				m.Date = b.Date
				m.High = max(m.High, b.High)
				m.Low = min(m.Low, b.Low)
				m.Close = b.Close
				m.Volume += b.Volume
				continue
			}
		}
		out = append(out, b)
	}
	return out
}

func sameMonth(a, b time.Time) bool { return a.Year() == b.Year() && a.Month() == b.Month() }

// Quote is the latest price of a symbol and its key metrics, derived from its latest candles.
type Quote struct {
	Symbol        string  `json:"symbol"`
	Name          string  `json:"name"`
	Currency      string  `json:"currency"`
	Price         Price   `json:"price"`
	PreviousClose *Price  `json:"previous_close"`
	Change        *Price  `json:"change"`
	ChangePercent *Number `json:"change_percent"` // percent, 2 places (older stored quotes hold a numeric string)
	Open          Price   `json:"open"`
	DayHigh       Price   `json:"day_high"`
	DayLow        Price   `json:"day_low"`
	Volume        int64   `json:"volume"`
	// AvgVolume is the mean volume of the 20 sessions before the last (0 when unknown).
	AvgVolume int64   `json:"avg_volume"`
	High52W   Price   `json:"high_52w"`
	Low52W    Price   `json:"low_52w"`
	MarketCap *Number `json:"market_cap"` // price x shares outstanding; null when shares are unknown
	// MarketCapSource is the provenance of the shares outstanding behind MarketCap (filing, illustrative).
	MarketCapSource string `json:"market_cap_source,omitempty"`
	SharesOut       *int64 `json:"shares_outstanding"`
	AsOf            string `json:"as_of"`  // date of the last candle (YYYY-MM-DD)
	Source          string `json:"source"` // history, live or illustrative
	Delayed         bool   `json:"delayed"`
	Description     string `json:"note,omitempty"`
	// Disclaimers is the market_data disclaimer, set where a quote is served on its own.
	Disclaimers []Disclaimer `json:"disclaimers,omitempty"`
}

// MarshalJSON writes the quote with changePercent and marketCap beside change_percent and market_cap:
// the names the ecosystem's JavaScript clients read.
func (q Quote) MarshalJSON() ([]byte, error) {
	type plain Quote
	return json.Marshal(struct {
		plain
		ChangePercentCamel *Number `json:"changePercent"`
		MarketCapCamel     *Number `json:"marketCap"`
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

// QuoteFromBars builds a quote from daily bars (oldest first). It needs at least one bar.
func QuoteFromBars(symbol string, bars []Bar, source string) (Quote, bool) {
	if len(bars) == 0 {
		return Quote{}, false
	}
	last := bars[len(bars)-1]
	q := Quote{Symbol: symbol, Price: last.Close, Open: last.Open, DayHigh: last.High, DayLow: last.Low,
		Volume: last.Volume, AsOf: last.Date.Format("2006-01-02"), Source: source, Delayed: true}
	if len(bars) > 1 {
		prev := bars[len(bars)-2].Close
		ch := last.Close - prev
		q.PreviousClose, q.Change = &prev, &ch
		if prev != 0 {
			pct := NewNumber(decimal.RequireFromString(RatioPercent(int64(ch), int64(prev))))
			q.ChangePercent = &pct
		}
		// average volume of up to 20 sessions before the last
		var sum, n int64
		for i := len(bars) - 2; i >= 0 && n < 20; i-- {
			sum += bars[i].Volume
			n++
		}
		if n > 0 {
			q.AvgVolume = sum / n
		}
	}
	cut := last.Date.AddDate(-1, 0, 0)
	q.High52W, q.Low52W = last.High, last.Low
	for i := len(bars) - 1; i >= 0 && bars[i].Date.After(cut); i-- {
		q.High52W = max(q.High52W, bars[i].High)
		q.Low52W = min(q.Low52W, bars[i].Low)
	}
	return q, true
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
