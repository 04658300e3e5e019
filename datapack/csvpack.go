package datapack

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
)

// The files of a data pack (docs/data-pack.md) and the columns each must have. Extra columns are
// ignored; files not listed here are reported.
var packFiles = map[string][]string{
	"companies.csv":    {"symbol", "name", "asset_type"},
	"fundamentals.csv": {"symbol", "period_end", "period", "source"},
	"prices.csv":       {"symbol", "date", "close"},
	"dividends.csv":    {"symbol", "ex_date", "amount", "currency"},
	"indices.csv":      {"index_name", "symbol"},
	"index_info.csv":   {"index_name", "description", "country"},
	"etf_holdings.csv": {"etf_symbol", "holding_symbol", "name", "weight", "as_of"},
	"sukuk.csv":        {"isin"},
}

// csvFile is an open pack file: its header index and a row reader that knows line numbers.
type csvFile struct {
	name string
	r    *csv.Reader
	col  map[string]int
}

func openCSV(fsys fs.FS, name string) (*csvFile, io.Closer, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	r.TrimLeadingSpace = true
	head, err := r.Read()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("no header row: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, dup := col[h]; !dup {
			col[h] = i
		}
	}
	return &csvFile{name: name, r: r, col: col}, f, nil
}

// row is one record with access by column name.
type row struct {
	rec  []string
	col  map[string]int
	line int
}

func (r row) get(name string) string {
	i, ok := r.col[name]
	if !ok || i >= len(r.rec) {
		return ""
	}
	return strings.TrimSpace(r.rec[i])
}

// each calls fn for every data row with its 1-based line; a row that does not parse as CSV is reported
// and skipped.
func (f *csvFile) each(p *Pack, fn func(row) error) {
	for {
		rec, err := f.r.Read()
		if errors.Is(err, io.EOF) {
			return
		}
		line, _ := f.r.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				p.Problemf(f.name, pe.StartLine, "unreadable CSV row: %v", pe.Err)
				continue
			}
			p.Problemf(f.name, line, "read: %v", err)
			return
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if err := fn(row{rec: rec, col: f.col, line: line}); err != nil {
			p.Problemf(f.name, line, "%v", err)
		}
	}
}

// ReadPack reads a data-pack directory. Every bad row is reported with its file and line and skipped;
// the rest is returned. name labels the records' origin (Asset.Source); illustrative marks every number
// of the pack as made up (prices, dividends and holdings are labelled illustrative unless a row's
// source column says otherwise), as in the default universe.
func ReadPack(fsys fs.FS, name string, illustrative bool) *Pack {
	source := name
	if illustrative {
		source = shariah.SourceIllustrative
	}
	p := &Pack{}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		p.Problemf(".", 0, "cannot list the pack: %v", err)
		return p
	}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.EqualFold(path.Ext(e.Name()), ".md") {
			continue
		}
		if _, ok := packFiles[e.Name()]; !ok {
			p.Problemf(e.Name(), 0, "unknown file, ignored (a pack has %s)", strings.Join(sortedKeys(packFiles), ", "))
		}
	}
	if f, err := fsys.Open("sukuk.csv"); err == nil {
		list, problems, err := ReadSukuk(f)
		f.Close()
		if err != nil {
			p.Problemf("sukuk.csv", 0, "%v", err)
		}
		p.Problems = append(p.Problems, problems...)
		for i := range list {
			if illustrative {
				list[i].Illustrative = true
			}
		}
		p.Sukuk = append(p.Sukuk, list...)
	}
	readers := []struct {
		file string
		fn   func(*csvFile, *Pack, string)
	}{
		{"companies.csv", readCompanies},
		{"fundamentals.csv", readFundamentals},
		{"prices.csv", readPrices},
		{"dividends.csv", readDividends},
		{"index_info.csv", readIndexInfo},
		{"indices.csv", readIndexMembers},
		{"etf_holdings.csv", readHoldings},
	}
	for _, rd := range readers {
		f, closer, err := openCSV(fsys, rd.file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			p.Problemf(rd.file, 1, "%v", err)
			continue
		}
		var missing []string
		for _, c := range packFiles[rd.file] {
			if _, ok := f.col[c]; !ok {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			p.Problemf(rd.file, 1, "missing columns: %s; file skipped", strings.Join(missing, ", "))
			closer.Close()
			continue
		}
		before := len(p.Problems)
		src := source
		if rd.file == "companies.csv" {
			src = name
		}
		rd.fn(f, p, src)
		closer.Close()
		p.Notes = append(p.Notes, fmt.Sprintf("%s: read (%d rows skipped)", rd.file, len(p.Problems)-before))
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func symbolField(r row, name string) (string, error) {
	raw := r.get(name)
	s, ok := shariah.NormalizeSymbol(raw)
	if !ok {
		return "", fmt.Errorf("%s %q is not a symbol", name, raw)
	}
	return s, nil
}

func dateField(r row, name string, required bool) (string, error) {
	raw := r.get(name)
	if raw == "" {
		if required {
			return "", fmt.Errorf("%s is required", name)
		}
		return "", nil
	}
	t, err := time.Parse("2006-01-02", raw)
	if err != nil {
		return "", fmt.Errorf("%s %q is not a date (YYYY-MM-DD)", name, raw)
	}
	return t.Format("2006-01-02"), nil
}

// decimalField reads an optional non-negative decimal; empty is (zero, false, nil).
func decimalField(r row, name string) (decimal.Decimal, bool, error) {
	raw := strings.ReplaceAll(r.get(name), "_", "")
	if raw == "" {
		return decimal.Zero, false, nil
	}
	d, err := decimal.NewFromString(raw)
	if err != nil {
		return decimal.Zero, false, fmt.Errorf("%s %q is not a number", name, raw)
	}
	if d.IsNegative() {
		return decimal.Zero, false, fmt.Errorf("%s %s is negative", name, raw)
	}
	return d, true, nil
}

var (
	currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)
	digitsRE   = regexp.MustCompile(`^[0-9]+$`)
	indexRE    = regexp.MustCompile(`^[A-Z0-9]{2,20}$`)
)

func readCompanies(f *csvFile, p *Pack, source string) {
	seen := map[string]int{}
	f.each(p, func(r row) error {
		sym, err := symbolField(r, "symbol")
		if err != nil {
			return err
		}
		if prev, dup := seen[sym]; dup {
			return fmt.Errorf("symbol %s already defined on line %d", sym, prev)
		}
		name := r.get("name")
		if name == "" {
			return fmt.Errorf("name is required")
		}
		typ, ok := shariah.ParseAssetType(r.get("asset_type"))
		if !ok {
			return fmt.Errorf("asset_type %q is not equity, etf, fund or index", r.get("asset_type"))
		}
		a := shariah.Asset{Symbol: sym, Name: name, Type: typ, Exchange: r.get("exchange"), Country: r.get("country"),
			Currency: strings.ToUpper(r.get("currency")), Sector: r.get("sector"), Industry: r.get("industry"),
			SIC: r.get("sic"), SICDescription: r.get("sic_description"), CIK: r.get("cik"), ISIN: strings.ToUpper(r.get("isin")), Source: source}
		if a.SIC != "" {
			a.SICSource = source + " companies.csv"
		}
		if a.Industry != "" || a.Sector != "" {
			a.IndustrySource = source + " companies.csv"
		}
		if a.Currency != "" && !currencyRE.MatchString(a.Currency) {
			return fmt.Errorf("currency %q is not an ISO 4217 code", a.Currency)
		}
		if a.SIC != "" && (!digitsRE.MatchString(a.SIC) || len(a.SIC) > 4) {
			return fmt.Errorf("sic %q is not a 4-digit code", a.SIC)
		}
		if a.CIK != "" {
			if !digitsRE.MatchString(a.CIK) || len(a.CIK) > 10 {
				return fmt.Errorf("cik %q is not up to 10 digits", a.CIK)
			}
			a.CIK = fmt.Sprintf("%010s", a.CIK)
		}
		if a.ISIN != "" && !shariah.ValidISIN(a.ISIN) {
			return fmt.Errorf("isin %q fails its check digit", a.ISIN)
		}
		seen[sym] = r.line
		p.Assets = append(p.Assets, a)
		return nil
	})
}

var periodRE = regexp.MustCompile(`^(Q[1-4]|FY)$`)

func readFundamentals(f *csvFile, p *Pack, source string) {
	idx := map[string]int{} // symbol|period_end|period -> line
	f.each(p, func(r row) error {
		sym, err := symbolField(r, "symbol")
		if err != nil {
			return err
		}
		end, err := dateField(r, "period_end", true)
		if err != nil {
			return err
		}
		period := strings.ToUpper(r.get("period"))
		if !periodRE.MatchString(period) {
			return fmt.Errorf("period %q is not Q1..Q4 or FY", r.get("period"))
		}
		src := strings.ToLower(r.get("source"))
		if src != shariah.SourceFiling && src != shariah.SourceLive && src != shariah.SourceIllustrative {
			return fmt.Errorf("source %q is not filing, live or illustrative", r.get("source"))
		}
		ref := r.get("source_ref")
		if src == shariah.SourceFiling && ref == "" {
			return fmt.Errorf("source_ref is required for filing data (e.g. the SEC accession number)")
		}
		facts := map[shariah.Field]shariah.Fact{}
		for _, field := range shariah.Fields {
			v, ok, err := decimalField(r, string(field))
			if err != nil {
				return err
			}
			if ok {
				facts[field] = shariah.Fact{Value: shariah.NewNumber(v), Source: src, Ref: ref}
			}
		}
		if len(facts) == 0 {
			return fmt.Errorf("no amounts")
		}
		key := sym + "|" + end + "|" + period
		if line, dup := idx[key]; dup {
			return fmt.Errorf("period %s %s of %s already given on line %d", end, period, sym, line)
		}
		idx[key] = r.line
		p.Fundamentals = append(p.Fundamentals, shariah.Fundamentals{Symbol: sym, PeriodEnd: end, Period: period, Facts: facts})
		return nil
	})
}

func priceField(r row, name string, required bool) (shariah.Price, bool, error) {
	raw := r.get(name)
	if raw == "" {
		if required {
			return 0, false, fmt.Errorf("%s is required", name)
		}
		return 0, false, nil
	}
	v, err := shariah.ParsePrice(raw)
	if err != nil || v <= 0 {
		return 0, false, fmt.Errorf("%s %q is not a positive price", name, raw)
	}
	return v, true, nil
}

func readPrices(f *csvFile, p *Pack, source string) {
	type key struct{ sym, interval string }
	series := map[key]*shariah.Series{}
	var order []key
	f.each(p, func(r row) error {
		sym, err := symbolField(r, "symbol")
		if err != nil {
			return err
		}
		bar, err := barOfRow(r)
		if err != nil {
			return err
		}
		interval, src, err := intervalAndSource(r, source)
		if err != nil {
			return err
		}
		k := key{sym, interval}
		s, ok := series[k]
		if !ok {
			s = &shariah.Series{Symbol: sym, Interval: interval, Source: src}
			series[k] = s
			order = append(order, k)
		}
		if s.Source != src {
			s.Source = shariah.SourceIllustrative // a mixed series is only as good as its weakest rows
		}
		s.Bars = append(s.Bars, bar)
		return nil
	})
	for _, k := range order {
		s := series[k]
		s.Bars = SortDedupBars(s.Bars)
		p.Series = append(p.Series, *s)
	}
}

// barOfRow reads a prices row's candle: the close is required; a missing open is the close, a missing
// high or low the bound of open and close; low and high must bound them. What is missing is recorded
// in the bar's gaps (served as null): no open; no high and low when either is missing; no volume.
func barOfRow(r row) (shariah.Bar, error) {
	d, err := dateField(r, "date", true)
	if err != nil {
		return shariah.Bar{}, err
	}
	date, _ := time.Parse("2006-01-02", d)
	c, _, err := priceField(r, "close", true)
	if err != nil {
		return shariah.Bar{}, err
	}
	o, hasO, err := priceField(r, "open", false)
	if err != nil {
		return shariah.Bar{}, err
	}
	h, hasH, err := priceField(r, "high", false)
	if err != nil {
		return shariah.Bar{}, err
	}
	l, hasL, err := priceField(r, "low", false)
	if err != nil {
		return shariah.Bar{}, err
	}
	if !hasO {
		o = c
	}
	if !hasH {
		h = max(o, c)
	}
	if !hasL {
		l = min(o, c)
	}
	if l > min(o, c) || h < max(o, c) {
		return shariah.Bar{}, fmt.Errorf("low %s / high %s do not bound open %s and close %s", l, h, o, c)
	}
	var gaps shariah.BarGaps
	if !hasO {
		gaps |= shariah.NoOpen
	}
	if !hasH || !hasL {
		gaps |= shariah.NoHighLow
	}
	var vol int64
	if raw := r.get("volume"); raw != "" {
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil || v < 0 || v > 1e15 {
			return shariah.Bar{}, fmt.Errorf("volume %q is not a non-negative count", raw)
		}
		vol = int64(v)
	} else {
		gaps |= shariah.NoVolume
	}
	return shariah.Bar{Date: date, Open: o, High: h, Low: l, Close: c, Volume: vol, Gaps: gaps}.Normalized(), nil
}

// intervalAndSource reads a prices row's interval (1d unless given) and source (history, or
// illustrative in an illustrative pack, unless given).
func intervalAndSource(r row, source string) (interval, src string, err error) {
	interval = "1d"
	if iv := r.get("interval"); iv != "" {
		if iv != "1d" && iv != "1mo" {
			return "", "", fmt.Errorf("interval %q is not 1d or 1mo", iv)
		}
		interval = iv
	}
	src = shariah.SourceHistory
	if source == shariah.SourceIllustrative {
		src = shariah.SourceIllustrative
	}
	if s := strings.ToLower(r.get("source")); s != "" {
		if s != shariah.SourceHistory && s != shariah.SourceIllustrative && s != shariah.SourceLive {
			return "", "", fmt.Errorf("source %q is not history, live or illustrative", s)
		}
		src = s
	}
	return interval, src, nil
}

// SortDedupBars sorts bars by date; for a date given twice the later row wins.
func SortDedupBars(bars []shariah.Bar) []shariah.Bar {
	sort.SliceStable(bars, func(i, j int) bool { return bars[i].Date.Before(bars[j].Date) })
	out := bars[:0]
	for _, b := range bars {
		if n := len(out); n > 0 && out[n-1].Date.Equal(b.Date) {
			out[n-1] = b
			continue
		}
		out = append(out, b)
	}
	return out
}

func readDividends(f *csvFile, p *Pack, source string) {
	f.each(p, func(r row) error {
		sym, err := symbolField(r, "symbol")
		if err != nil {
			return err
		}
		ex, err := dateField(r, "ex_date", true)
		if err != nil {
			return err
		}
		pay, err := dateField(r, "pay_date", false)
		if err != nil {
			return err
		}
		amt, ok, err := decimalField(r, "amount")
		if err != nil {
			return err
		}
		if !ok || amt.IsZero() {
			return fmt.Errorf("amount must be a positive number")
		}
		cur := strings.ToUpper(r.get("currency"))
		if !currencyRE.MatchString(cur) {
			return fmt.Errorf("currency %q is not an ISO 4217 code", r.get("currency"))
		}
		p.Dividends = append(p.Dividends, shariah.Dividend{Symbol: sym, ExDate: ex, PayDate: pay,
			Amount: shariah.NewNumber(amt), Currency: cur, Source: source})
		return nil
	})
}

func indexName(r row) (string, error) {
	n := strings.ToUpper(strings.ReplaceAll(r.get("index_name"), " ", ""))
	if !indexRE.MatchString(n) {
		return "", fmt.Errorf("index_name %q is not 2-20 letters or digits", r.get("index_name"))
	}
	return n, nil
}

func readIndexInfo(f *csvFile, p *Pack, source string) {
	f.each(p, func(r row) error {
		n, err := indexName(r)
		if err != nil {
			return err
		}
		desc := r.get("description")
		if desc == "" {
			return fmt.Errorf("description is required")
		}
		p.Indices = append(p.Indices, catalog.IndexInfo{Name: n, Description: desc, Country: r.get("country"), Source: source})
		return nil
	})
}

// readIndexMembers adds constituents to the indices read from index_info.csv (or known ones).
func readIndexMembers(f *csvFile, p *Pack, source string) {
	pos := map[string]int{}
	for i, ix := range p.Indices {
		pos[ix.Name] = i
	}
	f.each(p, func(r row) error {
		n, err := indexName(r)
		if err != nil {
			return err
		}
		sym, err := symbolField(r, "symbol")
		if err != nil {
			return err
		}
		i, ok := pos[n]
		if !ok {
			k, known := catalog.LookupIndex(n)
			if !known {
				return fmt.Errorf("index %s is neither in index_info.csv nor a known index", n)
			}
			p.Indices = append(p.Indices, catalog.IndexInfo{Name: n, Description: k.Description, Country: k.Country, Source: source})
			i = len(p.Indices) - 1
			pos[n] = i
		}
		p.Indices[i].Symbols = append(p.Indices[i].Symbols, sym)
		return nil
	})
}

func readHoldings(f *csvFile, p *Pack, source string) {
	hundred := decimal.NewFromInt(100)
	f.each(p, func(r row) error {
		etf, err := symbolField(r, "etf_symbol")
		if err != nil {
			return err
		}
		h := shariah.Holding{ETF: etf, Name: r.get("name"), Source: source}
		if raw := r.get("holding_symbol"); raw != "" {
			if h.Symbol, err = symbolField(r, "holding_symbol"); err != nil {
				return err
			}
		}
		if h.Name == "" && h.Symbol == "" {
			return fmt.Errorf("a holding needs a holding_symbol or a name")
		}
		raw := r.get("weight")
		pct := strings.HasSuffix(raw, "%")
		w, err := decimal.NewFromString(strings.TrimSuffix(raw, "%"))
		if err != nil || w.IsNegative() {
			return fmt.Errorf("weight %q is not a fraction (0.1333) or a percentage (13.33%%)", raw)
		}
		if pct {
			w = w.Div(hundred)
		}
		if w.GreaterThan(decimal.NewFromInt(1)) {
			return fmt.Errorf("weight %q is above 100%%", raw)
		}
		h.Weight = shariah.NewNumber(w)
		if v, ok, err := decimalField(r, "shares"); err != nil {
			return err
		} else if ok {
			n := shariah.NewNumber(v)
			h.Shares = &n
		}
		if v, ok, err := decimalField(r, "market_value"); err != nil {
			return err
		} else if ok {
			n := shariah.NewNumber(v)
			h.MarketValue = &n
		}
		if h.AsOf, err = dateField(r, "as_of", true); err != nil {
			return err
		}
		p.Holdings = append(p.Holdings, h)
		return nil
	})
}
