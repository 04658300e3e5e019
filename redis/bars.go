package redis

import (
	"encoding/binary"
	"errors"
	"time"

	shariah "github.com/shariah-screen/shariah"
)

// Candles are stored compactly: one byte string per symbol and interval, a format version byte, then
// per bar the day delta (uvarint), open, high, low and close as zigzag deltas from the previous close
// (varint, in Price units) and the volume (uvarint). Three years of daily bars take about 12 KB.
const barsFormat = 1

func encodeBars(bars []shariah.Bar) []byte {
	buf := make([]byte, 0, 1+len(bars)*14)
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
		buf = binary.AppendVarint(buf, int64(b.Open)-prevClose)
		buf = binary.AppendVarint(buf, int64(b.High)-int64(b.Open))
		buf = binary.AppendVarint(buf, int64(b.Low)-int64(b.Open))
		buf = binary.AppendVarint(buf, int64(b.Close)-int64(b.Open))
		buf = binary.AppendUvarint(buf, uint64(b.Volume))
		prevDay, prevClose = day, int64(b.Close)
	}
	return buf
}

var errBars = errors.New("corrupt candle data")

func decodeBars(buf []byte) ([]shariah.Bar, error) {
	if len(buf) == 0 {
		return nil, nil
	}
	if buf[0] != barsFormat {
		return nil, errBars
	}
	buf = buf[1:]
	var out []shariah.Bar
	var day, prevClose int64
	readV := func() (int64, bool) {
		v, n := binary.Varint(buf)
		if n <= 0 {
			return 0, false
		}
		buf = buf[n:]
		return v, true
	}
	readU := func() (uint64, bool) {
		v, n := binary.Uvarint(buf)
		if n <= 0 {
			return 0, false
		}
		buf = buf[n:]
		return v, true
	}
	for len(buf) > 0 {
		if len(out) == 0 {
			d, ok := readV()
			if !ok {
				return nil, errBars
			}
			day = d
		} else {
			d, ok := readU()
			if !ok {
				return nil, errBars
			}
			day += int64(d)
		}
		o, ok1 := readV()
		h, ok2 := readV()
		l, ok3 := readV()
		c, ok4 := readV()
		v, ok5 := readU()
		if !(ok1 && ok2 && ok3 && ok4 && ok5) {
			return nil, errBars
		}
		open := prevClose + o
		b := shariah.Bar{Date: time.Unix(day*86400, 0).UTC(), Open: shariah.Price(open), High: shariah.Price(open + h),
			Low: shariah.Price(open + l), Close: shariah.Price(open + c), Volume: int64(v)}
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
