package datapack

// Readers of the Janzen-Alpha price files: wide daily close matrices of index constituents (Date x
// ticker, close only) and index-level daily OHLC(V).

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	shariah "github.com/shariah-screen/shariah"
)

// SourceJanzenAlpha is the Asset.Source of the index records made from the index price files.
const SourceJanzenAlpha = "janzen-alpha"

// ReadCloseMatrices reads wide daily close matrices (header Date,ticker1,ticker2,...; one row per
// trading day; an empty cell is no trade that day) into one daily Series per ticker, concatenated over
// the files in date order, plus its monthly Series. The files hold closes only, so every bar is
// shariah.CloseOnlyBar: open, high, low and volume unknown (served as null). suffix is added to tickers without a market suffix (".T" for
// the Nikkei 225's 4-digit codes); S&P 500 tickers are already Yahoo-style (BRK-B) and FTSE 100 ones
// end in ".L". A file that cannot be read is returned as the error, with what was read before it.
//
// Two properties of the Janzen-Alpha matrices the consumer must know (ReadShared notes them): the
// closes are Yahoo's dividend-adjusted closes (AAPL 2023-01-03: 122.98; it traded at 125.07), and
// London closes are in pence (AZN.L about 10,600), as Yahoo quotes London lines.
//
// The matrices are large (2 MB, 125,000 cells a year for the S&P 500): each file is scanned once as a
// string, cells are sliced from it without copying, and bars are appended to per-ticker slices sized
// once from the files' row count.
func ReadCloseMatrices(fsys fs.FS, files []string, suffix string) (*Pack, error) {
	p := &Pack{}
	bySym := map[string]int{} // symbol -> index in series
	var series []shariah.Series
	texts := make([]string, len(files))
	est := 0 // rows of all files: the capacity of every series, so that bars are never copied
	for i, file := range files {
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return p, err
		}
		texts[i] = string(data)
		est += strings.Count(texts[i], "\n") + 1
	}
	rows := 0
	for i, file := range files {
		rows += readCloseMatrix(p, file, texts[i], suffix, est, bySym, &series)
	}
	dups := 0
	for i := range series {
		s := &series[i]
		if !sort.SliceIsSorted(s.Bars, func(a, b int) bool { return s.Bars[a].Date.Before(s.Bars[b].Date) }) {
			sort.SliceStable(s.Bars, func(a, b int) bool { return s.Bars[a].Date.Before(s.Bars[b].Date) })
		}
		// a day present in two files keeps its first close
		out := s.Bars[:0]
		for _, b := range s.Bars {
			if n := len(out); n > 0 && out[n-1].Date.Equal(b.Date) {
				dups++
				continue
			}
			out = append(out, b)
		}
		s.Bars = out
	}
	for _, s := range series {
		if len(s.Bars) == 0 {
			continue
		}
		p.Series = append(p.Series, s)
	}
	n := len(p.Series)
	for i := 0; i < n; i++ {
		d := p.Series[i]
		p.Series = append(p.Series, shariah.Series{Symbol: d.Symbol, Interval: "1mo", Source: d.Source,
			Bars: shariah.MonthlyFromDaily(d.Bars)})
	}
	p.pubNotef("%s: %d symbols, %d trading days of closes (close only: open, high, low and volume unknown)",
		strings.Join(files, ", "), n, rows)
	if dups > 0 {
		p.pubNotef("%d closes of days present in two files skipped (the first file's kept)", dups)
	}
	return p, nil
}

// readCloseMatrix parses one matrix into series, returning its row count. New series get capacity
// for est bars.
func readCloseMatrix(p *Pack, file, text, suffix string, est int, bySym map[string]int, series *[]shariah.Series) int {
	text = strings.TrimPrefix(text, "\ufeff")
	header, rest, _ := strings.Cut(text, "\n")
	header = strings.TrimSuffix(header, "\r")
	if strings.TrimSpace(header) == "" {
		p.Problemf(file, 0, "empty file")
		return 0
	}
	cols := strings.Split(header, ",")
	if !strings.EqualFold(strings.TrimSpace(cols[0]), "date") {
		p.Problemf(file, 1, "first column is %q, want Date", cols[0])
		return 0
	}
	idx := closeMatrixColumns(p, file, cols, suffix, est, bySym, series)
	rows := 0
	line := 1
	for len(rest) > 0 {
		var row string
		row, rest, _ = strings.Cut(rest, "\n")
		line++
		row = strings.TrimSuffix(row, "\r")
		if strings.TrimSpace(row) == "" {
			continue
		}
		if n := strings.Count(row, ",") + 1; n != len(cols) {
			p.Problemf(file, line, "%d column(s), want %d; row skipped", n, len(cols))
			continue
		}
		field, row, _ := strings.Cut(row, ",")
		date, err := pubDate(field)
		if err != nil {
			p.Problemf(file, line, "%v; row skipped", err)
			continue
		}
		rows++
		for c := 1; c < len(cols); c++ {
			field, row, _ = strings.Cut(row, ",")
			if idx[c] < 0 || field == "" {
				continue
			}
			px, err := shariah.ParsePrice(field)
			if err == nil && px <= 0 {
				err = fmt.Errorf("close %s is not positive", field)
			}
			if err != nil {
				p.Problemf(file, line, "%s: %v; cell skipped", (*series)[idx[c]].Symbol, err)
				continue
			}
			s := &(*series)[idx[c]]
			if strings.HasSuffix(s.Symbol, ".L") {
				// London closes are quoted in pence; the service prices London listings in pounds, the
				// currency of their records (GBP), so market caps and FX conversions come out right.
				px = (px + 50) / 100
			}
			s.Bars = append(s.Bars, shariah.CloseOnlyBar(date, px))
		}
	}
	return rows
}

// closeMatrixColumns maps each ticker column of a close matrix to its series (creating it), -1 for a
// column whose ticker is unusable or repeated; suffix is added to tickers without an exchange suffix.
func closeMatrixColumns(p *Pack, file string, cols []string, suffix string, est int, bySym map[string]int, series *[]shariah.Series) []int {
	idx := make([]int, len(cols))
	inFile := make(map[string]bool, len(cols))
	for c := 1; c < len(cols); c++ {
		raw := strings.TrimSpace(cols[c])
		if suffix != "" && raw != "" && !strings.Contains(raw, ".") {
			raw += suffix
		}
		sym, ok := pubSymbol(raw)
		if !ok {
			p.Problemf(file, 1, "column %d: ticker %q is not a valid symbol; column skipped", c+1, cols[c])
			idx[c] = -1
			continue
		}
		if inFile[sym] {
			p.Problemf(file, 1, "column %d: ticker %s appears twice; column skipped", c+1, sym)
			idx[c] = -1
			continue
		}
		inFile[sym] = true
		i, ok := bySym[sym]
		if !ok {
			i = len(*series)
			bySym[sym] = i
			*series = append(*series, shariah.Series{Symbol: sym, Interval: "1d", Source: shariah.SourceHistory,
				Bars: make([]shariah.Bar, 0, est)})
		}
		idx[c] = i
	}
	return idx
}

// IndexSeries describes the index of a Janzen-Alpha index-benchmark file.
type IndexSeries struct {
	Symbol, Name, Country, Currency string
}

// JanzenIndices are the indices of prices/janzen-alpha/index-benchmark-data/<key>_daily.csv. The KOSPI
// file is the KOSPI 200 (223.49 on 2010-01-04, when the KOSPI Composite stood near 1,700), whose Yahoo
// symbol is ^KS200, not the composite's ^KS11.
var JanzenIndices = map[string]IndexSeries{
	"SP500":   {"^GSPC", "S&P 500", "United States", "USD"},
	"N225":    {"^N225", "Nikkei 225", "Japan", "JPY"},
	"FTSE100": {"^FTSE", "FTSE 100", "United Kingdom", "GBP"},
	"CSI300":  {"000300.SS", "CSI 300", "China", "CNY"},
	"KOSPI":   {"^KS200", "KOSPI 200", "South Korea", "KRW"},
}

// ReadIndexDaily reads an index-level daily OHLC(V) file (date like 2010/1/4, open, high, low, close,
// and volume when present) into the daily and monthly Series of ix.Symbol and its index Asset.
func ReadIndexDaily(fsys fs.FS, file string, ix IndexSeries) (*Pack, error) {
	p := &Pack{}
	sym, ok := pubSymbol(ix.Symbol)
	if !ok {
		p.Problemf(file, 0, "index symbol %q is not a valid symbol", ix.Symbol)
		return p, nil
	}
	t, err := pubOpenCSV(fsys, file, p, "date", "open", "high", "low", "close")
	if err != nil || t == nil {
		return p, err
	}
	_, hasVolume := t.col["volume"]
	var bars []shariah.Bar
	t.each(func(line int, rec []string) {
		date, err := pubDate(t.get(rec, "date"))
		if err != nil {
			p.Problemf(file, line, "%v", err)
			return
		}
		var px [4]shariah.Price
		for i, name := range []string{"open", "high", "low", "close"} {
			v, err := shariah.ParsePrice(t.get(rec, name))
			if err == nil && v <= 0 {
				err = fmt.Errorf("%s %s is not positive", name, t.get(rec, name))
			}
			if err != nil {
				p.Problemf(file, line, "%s: %v", name, err)
				return
			}
			px[i] = v
		}
		b := shariah.Bar{Date: date, Open: px[0], High: px[1], Low: px[2], Close: px[3]}
		if b.High < b.Low {
			p.Problemf(file, line, "high %s below low %s", b.High, b.Low)
			return
		}
		if v := t.get(rec, "volume"); hasVolume && v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				f, ferr := strconv.ParseFloat(v, 64)
				if ferr != nil || f < 0 || f > 9e18 {
					p.Problemf(file, line, "volume %q is not a number", v)
					return
				}
				n = int64(f)
			}
			b.Volume = n
		} else {
			b.Gaps |= shariah.NoVolume // the FTSE 100 file has no volume column
		}
		bars = append(bars, b)
	})
	if !sort.SliceIsSorted(bars, func(i, j int) bool { return bars[i].Date.Before(bars[j].Date) }) {
		sort.SliceStable(bars, func(i, j int) bool { return bars[i].Date.Before(bars[j].Date) })
	}
	p.Assets = append(p.Assets, shariah.Asset{Symbol: sym, Name: ix.Name, Type: shariah.Index,
		Country: ix.Country, Currency: ix.Currency, Source: SourceJanzenAlpha})
	if len(bars) > 0 {
		p.Series = append(p.Series,
			shariah.Series{Symbol: sym, Interval: "1d", Source: shariah.SourceHistory, Bars: bars},
			shariah.Series{Symbol: sym, Interval: "1mo", Source: shariah.SourceHistory, Bars: shariah.MonthlyFromDaily(bars)})
	}
	vol := ""
	if !hasVolume {
		vol = " (no volume column: volume unknown)"
	}
	p.pubNotef("%s: %s %d daily bars%s", file, sym, len(bars), vol)
	return p, nil
}
