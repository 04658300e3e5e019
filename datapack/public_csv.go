package datapack

// Helpers shared by the readers of the real public data formats (public_*.go). Unexported names start
// with "pub" so they never clash with the data-pack reader's helpers.

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// pubTable is a CSV file being read row by row, with its header mapped to column positions.
type pubTable struct {
	file string
	r    *csv.Reader
	col  map[string]int // lower-cased, trimmed header name -> position
	need int            // fields a row must have: 1 + the largest required column position
	pack *Pack
}

// pubOpenCSV reads the header of a CSV file. A missing required column is a whole-file problem (line
// 1): the table is nil and the error nil. The error is set only when the file cannot be read at all.
func pubOpenCSV(fsys fs.FS, path string, p *Pack, required ...string) (*pubTable, error) {
	data, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // UTF-8 byte-order mark
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if err == io.EOF {
		p.Problemf(path, 0, "empty file")
		return nil, nil
	}
	if err != nil {
		p.Problemf(path, 1, "header: %v", err)
		return nil, nil
	}
	t := &pubTable{file: path, r: r, col: make(map[string]int, len(header)), pack: p}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		if _, dup := t.col[h]; !dup {
			t.col[h] = i
		}
	}
	var missing []string
	for _, name := range required {
		i, ok := t.col[strings.ToLower(name)]
		if !ok {
			missing = append(missing, name)
			continue
		}
		t.need = max(t.need, i+1)
	}
	if len(missing) > 0 {
		p.Problemf(path, 1, "missing column(s) %s", strings.Join(missing, ", "))
		return nil, nil
	}
	return t, nil
}

// each calls fn for every data row with its 1-based line. Unparseable rows and rows with fewer fields
// than the required columns need are problems; blank rows are skipped silently.
func (t *pubTable) each(fn func(line int, rec []string)) {
	for {
		rec, err := t.r.Read()
		if err == io.EOF {
			return
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				t.pack.Problemf(t.file, pe.StartLine, "%v", pe.Err)
				continue
			}
			t.pack.Problemf(t.file, 0, "%v", err)
			return
		}
		line, _ := t.r.FieldPos(0)
		if pubBlank(rec) {
			continue
		}
		if len(rec) < t.need {
			t.pack.Problemf(t.file, line, "%d column(s), want at least %d", len(rec), t.need)
			continue
		}
		fn(line, rec)
	}
}

// get returns the trimmed value of a column ("" when the file has no such column or the row is short).
func (t *pubTable) get(rec []string, name string) string {
	i, ok := t.col[strings.ToLower(name)]
	if !ok || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

func pubBlank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// pubUSSymbol canonicalizes a US ticker Yahoo-style: share classes and units use '-' ("BRK.B", "BRK/B"
// -> "BRK-B"). It reports false for anything that is not a plausible symbol.
func pubUSSymbol(s string) (string, bool) {
	s = strings.TrimSpace(s)
	s = strings.NewReplacer(".", "-", "/", "-").Replace(s)
	return shariah.NormalizeSymbol(s)
}

// pubSymbol canonicalizes a symbol that already carries its market suffix ("0700.HK", "AAF.L").
func pubSymbol(s string) (string, bool) { return shariah.NormalizeSymbol(s) }

// pubCIK zero-pads a SEC Central Index Key to 10 digits.
func pubCIK(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if len(s) > 10 {
		return "", fmt.Errorf("CIK %q longer than 10 digits", s)
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return "", fmt.Errorf("CIK %q is not a number", s)
		}
	}
	return strings.Repeat("0", 10-len(s)) + s, nil
}

// pubISIN keeps an ISIN only when its shape and check digit are right.
func pubISIN(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if shariah.ValidISIN(s) {
		return s
	}
	return ""
}

// pubDecimal parses a plain decimal ("1851709", "384044446.6", "9.2e10"), rejecting empty input and
// absurd magnitudes ("1e999999999" would print as a billion digits).
func pubDecimal(s string) (decimal.Decimal, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return decimal.Decimal{}, fmt.Errorf("empty number")
	}
	if len(s) > 40 {
		return decimal.Decimal{}, fmt.Errorf("number %.40q... too long", s)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("number %q", s)
	}
	if e := d.Exponent(); e < -30 || e > 30 {
		return decimal.Decimal{}, fmt.Errorf("number %q out of range", s)
	}
	return d, nil
}

// pubDate parses the date layouts of the public files: 2023-01-03, 2010/1/4 and 07/17/2026 (US order).
// It allocates nothing on success, as the close matrices call it once per row.
func pubDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	var parts, width [3]int
	var sep byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			if width[n] == 4 {
				return time.Time{}, fmt.Errorf("date %q", s)
			}
			parts[n] = parts[n]*10 + int(c-'0')
			width[n]++
			continue
		}
		if (c == '-' || c == '/') && width[n] > 0 && n < 2 && (sep == 0 || sep == c) {
			sep = c
			n++
			continue
		}
		return time.Time{}, fmt.Errorf("date %q", s)
	}
	if n != 2 || width[2] == 0 {
		return time.Time{}, fmt.Errorf("date %q", s)
	}
	var y, m, d int
	switch {
	case width[0] == 4 && width[1] <= 2 && width[2] <= 2:
		y, m, d = parts[0], parts[1], parts[2]
	case sep == '/' && width[2] == 4 && width[0] <= 2 && width[1] <= 2: // MM/DD/YYYY
		y, m, d = parts[2], parts[0], parts[1]
	default:
		return time.Time{}, fmt.Errorf("date %q", s)
	}
	if y < 1800 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31 {
		return time.Time{}, fmt.Errorf("date %q", s)
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, fmt.Errorf("date %q: no such day", s)
	}
	return t, nil
}

// pubIndex builds the IndexInfo of a known index from a source's constituents (deduplicated, in order).
func pubIndex(name, source string, symbols []string) catalog.IndexInfo {
	info := catalog.IndexInfo{Name: name, Source: source}
	if k, ok := catalog.LookupIndex(name); ok {
		info.Description, info.Country = k.Description, k.Country
	}
	seen := make(map[string]bool, len(symbols))
	for _, s := range symbols {
		if !seen[s] {
			seen[s] = true
			info.Symbols = append(info.Symbols, s)
		}
	}
	return info
}

// pubNotef records a note about what was read.
func (p *Pack) pubNotef(format string, args ...any) {
	p.Notes = append(p.Notes, fmt.Sprintf(format, args...))
}
