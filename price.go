package shariah

import (
	"fmt"
	"strconv"
	"strings"
	"time"
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
// trading day. Gaps says which values the source did not give: those hold stand-ins (the close for a
// missing open, the bounds of open and close for missing high and low, 0 for a missing volume) so that
// arithmetic stays defined, and are served as null (Candle, Quote). The zero Gaps is a full OHLCV bar.
type Bar struct {
	Date   time.Time `json:"-"`
	Open   Price     `json:"open"`
	High   Price     `json:"high"`
	Low    Price     `json:"low"`
	Close  Price     `json:"close"`
	Volume int64     `json:"volume"` // 0 when the source has none (Gaps has NoVolume)
	Gaps   BarGaps   `json:"-"`
}

// BarGaps is the set of a bar's values its source did not give.
type BarGaps uint8

const (
	NoOpen    BarGaps = 1 << iota // no open: Open holds the close
	NoHighLow                     // no high and low: High and Low hold the bounds of open and close
	NoVolume                      // no volume: Volume is 0

	// CloseOnly is a bar of a close-only source (the shared constituent matrices).
	CloseOnly = NoOpen | NoHighLow | NoVolume
)

// CloseOnlyBar is the bar of a day whose source gives the close alone.
func CloseOnlyBar(date time.Time, close Price) Bar {
	return Bar{Date: date, Open: close, High: close, Low: close, Close: close, Gaps: CloseOnly}
}

// Candle is a bar as served (REST /api/ohlc, MCP get_price_history): open, high, low and volume are
// null where the source did not give them.
type Candle struct {
	Date   string `json:"date"`
	Open   *Price `json:"open"`
	High   *Price `json:"high"`
	Low    *Price `json:"low"`
	Close  Price  `json:"close"`
	Volume *int64 `json:"volume"`
}

// Candle is the bar as served.
func (b Bar) Candle() Candle {
	c := Candle{Date: b.Date.Format("2006-01-02"), Close: b.Close}
	if b.Gaps&NoOpen == 0 {
		c.Open = &b.Open
	}
	if b.Gaps&NoHighLow == 0 {
		c.High, c.Low = &b.High, &b.Low
	}
	if b.Gaps&NoVolume == 0 {
		c.Volume = &b.Volume
	}
	return c
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
func MonthlyFromDaily(daily []Bar) []Bar { return aggregateBars(daily, sameMonth) }

// WeeklyFromDaily aggregates daily bars into ISO weeks (dated by the week's last trading day).
func WeeklyFromDaily(daily []Bar) []Bar {
	return aggregateBars(daily, func(a, b time.Time) bool {
		y1, w1 := a.ISOWeek()
		y2, w2 := b.ISOWeek()
		return y1 == y2 && w1 == w2
	})
}

// aggregateBars merges consecutive daily bars of one period (same reports whether two dates are in
// it): dated by the period's last day, open of the first, high and low of the period, close of the
// last, volume summed. What a day lacks the period lacks: no open when the first day has none, no
// high and low when any day has none (a high of closes is not a high), no volume when any day has none
// (a partial sum is not the period's volume).
func aggregateBars(daily []Bar, same func(a, b time.Time) bool) []Bar {
	var out []Bar
	for _, b := range daily {
		if n := len(out); n > 0 && same(out[n-1].Date, b.Date) {
			m := &out[n-1]
			m.Date = b.Date
			m.High = max(m.High, b.High)
			m.Low = min(m.Low, b.Low)
			m.Close = b.Close
			m.Volume += b.Volume
			m.Gaps |= b.Gaps &^ NoOpen
			continue
		}
		out = append(out, b)
	}
	for i := range out {
		out[i] = out[i].Normalized()
	}
	return out
}

// Normalized is the bar with the stand-ins of its gaps (Bar): what the candle store reads back.
func (b Bar) Normalized() Bar {
	if b.Gaps&NoOpen != 0 {
		b.Open = b.Close
	}
	if b.Gaps&NoHighLow != 0 {
		b.High, b.Low = max(b.Open, b.Close), min(b.Open, b.Close)
	}
	if b.Gaps&NoVolume != 0 {
		b.Volume = 0
	}
	return b
}

func sameMonth(a, b time.Time) bool { return a.Year() == b.Year() && a.Month() == b.Month() }
