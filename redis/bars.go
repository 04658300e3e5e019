package redis

import (
	"encoding/binary"
	"errors"
	"time"

	shariah "github.com/shariah-screen/shariah"
)

// Candles are stored compactly: one byte string per symbol and interval, a format version byte, then
// per bar the day delta (uvarint; the first bar's day as a varint), the bar's gaps (one byte,
// shariah.BarGaps), the close as a zigzag delta from the previous close (varint, in Price units), then
// only what the source gave: the open, the high and the low as deltas from the close (varint) and the
// volume (uvarint). Three years of daily OHLCV bars take about 13 KB; a close-only bar takes about 4
// bytes.
//
// Format 1 (before the gaps byte) stored every bar as day, open, high, low, close, volume: it is still
// read, with what it could not say made explicit: a volume of 0 was "the source has none", and open =
// high = low = close was what the close-only readers wrote (a load rewrites the series in format 2).
const (
	barsFormatV1 = 1
	barsFormat   = 2
)

func encodeBars(bars []shariah.Bar) []byte {
	buf := make([]byte, 0, 1+len(bars)*12)
	buf = append(buf, barsFormat)
	var prevDay int64
	var prevClose int64
	for i, b := range bars {
		day := b.Date.Unix() / 86400
		if i == 0 {
			buf = binary.AppendVarint(buf, day)
		} else {
			buf = binary.AppendUvarint(buf, uint64(day-prevDay))
		}
		buf = append(buf, byte(b.Gaps))
		c := int64(b.Close)
		buf = binary.AppendVarint(buf, c-prevClose)
		if b.Gaps&shariah.NoOpen == 0 {
			buf = binary.AppendVarint(buf, int64(b.Open)-c)
		}
		if b.Gaps&shariah.NoHighLow == 0 {
			buf = binary.AppendVarint(buf, int64(b.High)-c)
			buf = binary.AppendVarint(buf, int64(b.Low)-c)
		}
		if b.Gaps&shariah.NoVolume == 0 {
			buf = binary.AppendUvarint(buf, uint64(b.Volume))
		}
		prevDay, prevClose = day, c
	}
	return buf
}

var errBars = errors.New("corrupt candle data")

// barReader reads the varints of an encoded candle string; a short read sets bad.
type barReader struct {
	buf []byte
	bad bool
}

func (r *barReader) v() int64 {
	v, n := binary.Varint(r.buf)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

func (r *barReader) u() uint64 {
	v, n := binary.Uvarint(r.buf)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

func (r *barReader) byte() byte {
	if len(r.buf) == 0 {
		r.bad = true
		return 0
	}
	b := r.buf[0]
	r.buf = r.buf[1:]
	return b
}

func decodeBars(buf []byte) ([]shariah.Bar, error) {
	if len(buf) == 0 {
		return nil, nil
	}
	if buf[0] != barsFormat && buf[0] != barsFormatV1 {
		return nil, errBars
	}
	v1 := buf[0] == barsFormatV1
	r := &barReader{buf: buf[1:]}
	var out []shariah.Bar
	var day, prevClose int64
	for len(r.buf) > 0 {
		if len(out) == 0 {
			day = r.v()
		} else {
			day += int64(r.u())
		}
		var b shariah.Bar
		if v1 {
			open := prevClose + r.v()
			h, l, c, vol := r.v(), r.v(), r.v(), r.u()
			b = shariah.Bar{Open: shariah.Price(open), High: shariah.Price(open + h), Low: shariah.Price(open + l),
				Close: shariah.Price(open + c), Volume: int64(vol)}
			if vol == 0 {
				b.Gaps |= shariah.NoVolume
			}
			if h == 0 && l == 0 && c == 0 {
				b.Gaps |= shariah.NoOpen | shariah.NoHighLow
			}
		} else {
			gaps := shariah.BarGaps(r.byte())
			if gaps&^shariah.CloseOnly != 0 {
				return nil, errBars
			}
			c := prevClose + r.v()
			b = shariah.Bar{Close: shariah.Price(c), Open: shariah.Price(c), Gaps: gaps}
			if gaps&shariah.NoOpen == 0 {
				b.Open = shariah.Price(c + r.v())
			}
			if gaps&shariah.NoHighLow == 0 {
				b.High, b.Low = shariah.Price(c+r.v()), shariah.Price(c+r.v())
			} else {
				b.High, b.Low = max(b.Open, b.Close), min(b.Open, b.Close)
			}
			if gaps&shariah.NoVolume == 0 {
				b.Volume = int64(r.u())
			}
		}
		if r.bad {
			return nil, errBars
		}
		b.Date = time.Unix(day*86400, 0).UTC()
		out = append(out, b)
		prevClose = int64(b.Close)
	}
	return out, nil
}

// mergeBars merges two date-sorted bar lists; on the same date the newer list wins.
func mergeBars(old, newer []shariah.Bar) []shariah.Bar {
	out := make([]shariah.Bar, 0, len(old)+len(newer))
	i, j := 0, 0
	for i < len(old) || j < len(newer) {
		switch {
		case j == len(newer) || (i < len(old) && old[i].Date.Before(newer[j].Date)):
			out = append(out, old[i])
			i++
		case i == len(old) || newer[j].Date.Before(old[i].Date):
			out = append(out, newer[j])
			j++
		default: // same date
			out = append(out, newer[j])
			i++
			j++
		}
	}
	return out
}
