package redis

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/market"
)

// srcField is the bars hash field naming the source of an interval's candles.
func srcField(interval string) string { return "src:" + interval }

// dataSources are the sources a screening result is counted under (shariah.DataSourceOf).
var dataSources = []string{shariah.DataFiled, shariah.DataIllustrative, shariah.DataNoFundamentals}

// RefStore implements market.RefStore.
type RefStore struct {
	c rueidis.Client
	// cacheTTL, when set, serves hot reads (records, quotes, candles) from rueidis's client-side cache
	// for at most that long; Redis invalidates an entry when its key changes, but the invalidation
	// arrives asynchronously, so writers (the loader, ingesters) use an uncached store to read their
	// own writes.
	cacheTTL time.Duration
	// quotes, when set, makes PutQuote store each quote as the body GET /api/quote serves (served.go).
	quotes *market.QuoteBodies
	// memo, in a cached store, remembers the quotes served from the cache's values (quote_memo.go).
	memo *quoteMemo
	// version, in a cached store, is the last version read and when (Version).
	version *atomic.Pointer[versionRead]
}

// versionRead is a version as read at a time.
type versionRead struct {
	v  int64
	at time.Time // with its monotonic reading
}

// versionRecheck is how long a cached store's version read answers Version before the next read: every
// request of the edge reads the version (the catalog's and the screenings' freshness), and under load a
// thousand reads a second stand for tens of thousands of lookups. A change reaches the edge when its
// invalidation arrives, and at most this much later.
const versionRecheck = time.Millisecond

var _ market.RefStore = (*RefStore)(nil)

// NewRefStore returns an uncached reference store over the client (for writers).
func NewRefStore(c rueidis.Client) *RefStore { return &RefStore{c: c} }

// Cached returns a copy of the store that serves reads from the client-side cache (for the edge).
func (s *RefStore) Cached(ttl time.Duration) *RefStore {
	c := *s
	c.cacheTTL = ttl
	c.memo, c.version = nil, nil
	if ttl > 0 {
		c.memo, c.version = newQuoteMemo(), new(atomic.Pointer[versionRead])
	}
	return &c
}

// WithQuoteBodies returns a copy of the store whose PutQuote stores each quote as the body GET
// /api/quote serves, encoded by bodies (the writers get the service's market_data disclaimer). Without
// it the quote is stored alone, and the edge encodes its body on the first read.
func (s *RefStore) WithQuoteBodies(bodies market.QuoteBodies) *RefStore {
	c := *s
	c.quotes = &bodies
	return &c
}

// chunk is the number of commands sent in one pipeline by bulk operations.
const chunk = 2000

func (s *RefStore) doAll(ctx context.Context, cmds rueidis.Commands) error {
	for len(cmds) > 0 {
		n := min(chunk, len(cmds))
		for _, r := range s.c.DoMulti(ctx, cmds[:n]...) {
			if err := r.Error(); err != nil {
				return err
			}
		}
		cmds = cmds[n:]
	}
	return nil
}

func (s *RefStore) getJSONMany(ctx context.Context, keys []string, each func(i int, b []byte) error) error {
	for start := 0; start < len(keys); start += chunk {
		end := min(start+chunk, len(keys))
		cmds := make(rueidis.Commands, 0, end-start)
		for _, k := range keys[start:end] {
			cmds = append(cmds, s.c.B().Get().Key(k).Build())
		}
		for i, r := range s.c.DoMulti(ctx, cmds...) {
			b, err := r.AsBytes()
			if rueidis.IsRedisNil(err) {
				continue
			}
			if err != nil {
				return err
			}
			if err := each(start+i, b); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *RefStore) setJSON(key string, v any) (rueidis.Completed, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return rueidis.Completed{}, err
	}
	return s.c.B().Set().Key(key).Value(rueidis.BinaryString(b)).Build(), nil
}

func (s *RefStore) getJSON(ctx context.Context, key string, v any, cached bool) (bool, error) {
	ttl := s.cacheTTL
	if !cached {
		ttl = 0
	}
	b, ok, err := getValue(ctx, s.c, key, ttl)
	if !ok || err != nil {
		return false, err
	}
	return true, json.Unmarshal(b, v)
}

// PutAssets merges each record over the stored one (new non-empty fields win).
func (s *RefStore) PutAssets(ctx context.Context, assets []shariah.Asset) error {
	keys := make([]string, len(assets))
	for i, a := range assets {
		keys[i] = assetKey(a.Symbol)
	}
	merged := append([]shariah.Asset(nil), assets...)
	if err := s.getJSONMany(ctx, keys, func(i int, b []byte) error {
		var old shariah.Asset
		if err := json.Unmarshal(b, &old); err != nil {
			return fmt.Errorf("asset %s: %w", assets[i].Symbol, err)
		}
		merged[i] = merged[i].Merge(old)
		return nil
	}); err != nil {
		return err
	}
	cmds := make(rueidis.Commands, 0, len(merged)+1)
	syms := make([]string, 0, len(merged))
	for _, a := range merged {
		c, err := s.setJSON(assetKey(a.Symbol), a)
		if err != nil {
			return err
		}
		cmds = append(cmds, c)
		syms = append(syms, a.Symbol)
	}
	if len(syms) > 0 {
		cmds = append(cmds, s.c.B().Sadd().Key(assetSetKey()).Member(syms...).Build())
	}
	return s.doAll(ctx, cmds)
}

// Asset reads one record.
func (s *RefStore) Asset(ctx context.Context, symbol string) (shariah.Asset, bool, error) {
	var a shariah.Asset
	ok, err := s.getJSON(ctx, assetKey(symbol), &a, true)
	return a, ok, err
}

// AllAssets reads every record (the edge's catalog loads from it).
func (s *RefStore) AllAssets(ctx context.Context) ([]shariah.Asset, error) {
	syms, err := s.c.Do(ctx, s.c.B().Smembers().Key(assetSetKey()).Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	sort.Strings(syms)
	keys := make([]string, len(syms))
	for i, sym := range syms {
		keys[i] = assetKey(sym)
	}
	out := make([]shariah.Asset, 0, len(syms))
	err = s.getJSONMany(ctx, keys, func(_ int, b []byte) error {
		var a shariah.Asset
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		out = append(out, a)
		return nil
	})
	return out, err
}

// AssetsMany reads many records, pipelined.
func (s *RefStore) AssetsMany(ctx context.Context, symbols []string) (map[string]shariah.Asset, error) {
	keys := make([]string, len(symbols))
	for i, sym := range symbols {
		keys[i] = assetKey(sym)
	}
	out := make(map[string]shariah.Asset, len(symbols))
	err := s.getJSONMany(ctx, keys, func(i int, b []byte) error {
		var a shariah.Asset
		if err := json.Unmarshal(b, &a); err != nil {
			return err
		}
		out[symbols[i]] = a
		return nil
	})
	return out, err
}

// PutSeries merges candles; daily candles also refresh the monthly series. Real candles replace an
// illustrative series.
func (s *RefStore) PutSeries(ctx context.Context, se shariah.Series) error {
	if se.Interval != "1d" && se.Interval != "1mo" {
		return fmt.Errorf("series interval %q", se.Interval)
	}
	key := barsKey(se.Symbol)
	vals, err := s.c.Do(ctx, s.c.B().Hmget().Key(key).Field("1d", "1mo", srcField("1d"), srcField("1mo")).Build()).ToArray()
	if err != nil {
		return err
	}
	field := func(i int) []byte {
		b, _ := vals[i].AsBytes()
		return b
	}
	src := func(i int) string {
		v, _ := vals[i].ToString()
		return v
	}
	daily, err := decodeBars(field(0))
	if err != nil {
		return fmt.Errorf("%s daily: %w", se.Symbol, err)
	}
	monthly, err := decodeBars(field(1))
	if err != nil {
		return fmt.Errorf("%s monthly: %w", se.Symbol, err)
	}
	dSrc, mSrc := src(2), src(3)
	weaker := func(a, b string) string {
		if a == "" {
			return b
		}
		if a == shariah.SourceIllustrative || b == shariah.SourceIllustrative {
			return shariah.SourceIllustrative
		}
		return b
	}
	// Illustrative candles only stand in until real ones arrive: real (history, live) candles replace an
	// illustrative series instead of merging into it, and illustrative candles are not merged into a
	// real series.
	if se.Source == shariah.SourceIllustrative && ((se.Interval == "1d" && dSrc != "" && dSrc != shariah.SourceIllustrative) ||
		(se.Interval == "1mo" && mSrc != "" && mSrc != shariah.SourceIllustrative)) {
		return nil
	}
	if se.Source != shariah.SourceIllustrative {
		if dSrc == shariah.SourceIllustrative {
			daily, dSrc = nil, ""
		}
		if mSrc == shariah.SourceIllustrative {
			monthly, mSrc = nil, ""
		}
	}
	cmd := s.c.B().Hset().Key(key).FieldValue()
	if se.Interval == "1d" {
		daily = mergeBars(daily, se.Bars)
		dSrc = weaker(dSrc, se.Source)
		monthly = mergeBars(monthly, shariah.MonthlyFromDaily(daily))
		mSrc = weaker(mSrc, se.Source)
		cmd = cmd.FieldValue("1d", rueidis.BinaryString(encodeBars(daily))).FieldValue(srcField("1d"), dSrc)
	} else {
		monthly = mergeBars(monthly, se.Bars)
		mSrc = weaker(mSrc, se.Source)
	}
	cmd = cmd.FieldValue("1mo", rueidis.BinaryString(encodeBars(monthly))).FieldValue(srcField("1mo"), mSrc)
	return s.doAll(ctx, rueidis.Commands{cmd.Build(), s.c.B().Sadd().Key(seriesSetKey()).Member(se.Symbol).Build()})
}

// Series reads a symbol's candles of an interval ("1d" or "1mo").
func (s *RefStore) Series(ctx context.Context, symbol, interval string) (shariah.Series, bool, error) {
	var vals []rueidis.RedisMessage
	var err error
	if s.cacheTTL > 0 {
		vals, err = s.c.DoCache(ctx, s.c.B().Hmget().Key(barsKey(symbol)).Field(interval, srcField(interval)).Cache(), s.cacheTTL).ToArray()
	} else {
		vals, err = s.c.Do(ctx, s.c.B().Hmget().Key(barsKey(symbol)).Field(interval, srcField(interval)).Build()).ToArray()
	}
	if err != nil {
		return shariah.Series{}, false, err
	}
	raw, err := vals[0].AsBytes()
	if rueidis.IsRedisNil(err) || len(raw) == 0 {
		return shariah.Series{}, false, nil
	}
	if err != nil {
		return shariah.Series{}, false, err
	}
	bars, err := decodeBars(raw)
	if err != nil {
		return shariah.Series{}, false, fmt.Errorf("%s %s: %w", symbol, interval, err)
	}
	src, _ := vals[1].ToString()
	return shariah.Series{Symbol: symbol, Interval: interval, Source: src, Bars: bars}, true, nil
}

// SeriesSymbols lists the symbols that have candles.
func (s *RefStore) SeriesSymbols(ctx context.Context) ([]string, error) {
	syms, err := s.c.Do(ctx, s.c.B().Smembers().Key(seriesSetKey()).Build()).AsStrSlice()
	sort.Strings(syms)
	return syms, err
}

// PutFundamentals merges periods and facts, pipelined over many symbols.
func (s *RefStore) PutFundamentals(ctx context.Context, bySymbol map[string][]shariah.Fundamentals) error {
	syms := make([]string, 0, len(bySymbol))
	for sym := range bySymbol {
		syms = append(syms, sym)
	}
	sort.Strings(syms)
	keys := make([]string, len(syms))
	for i, sym := range syms {
		keys[i] = fundKey(sym)
	}
	old := make([][]shariah.Fundamentals, len(syms))
	if err := s.getJSONMany(ctx, keys, func(i int, b []byte) error {
		return json.Unmarshal(b, &old[i])
	}); err != nil {
		return err
	}
	cmds := make(rueidis.Commands, 0, 3*len(syms))
	for i, sym := range syms {
		merged := shariah.MergeFundamentals(old[i], bySymbol[sym])
		c, err := s.setJSON(keys[i], merged)
		if err != nil {
			return err
		}
		cmds = append(cmds, c)
		cmds = append(cmds, s.markSource(sym, shariah.FundamentalsSourceOf(merged))...)
	}
	return s.doAll(ctx, cmds)
}

// markSource puts a symbol in the set of its fundamentals' source and out of the other, for the
// database stats' filed / illustrative counts.
func (s *RefStore) markSource(sym, source string) rueidis.Commands {
	in, out := shariah.DataFiled, shariah.DataIllustrative
	switch source {
	case shariah.DataIllustrative:
		in, out = shariah.DataIllustrative, shariah.DataFiled
	case shariah.DataFiled:
	default:
		return nil
	}
	return rueidis.Commands{s.c.B().Sadd().Key(fundSourceKey(in)).Member(sym).Build(),
		s.c.B().Srem().Key(fundSourceKey(out)).Member(sym).Build()}
}

// MarkFundamentalsSources records the sources of many symbols' fundamentals, pipelined.
func (s *RefStore) MarkFundamentalsSources(ctx context.Context, bySymbol map[string]string) error {
	cmds := make(rueidis.Commands, 0, 2*len(bySymbol))
	for sym, src := range bySymbol {
		cmds = append(cmds, s.markSource(sym, src)...)
	}
	return s.doAll(ctx, cmds)
}

// CompaniesBySource counts the symbols with filed fundamentals and those with illustrative ones only.
func (s *RefStore) CompaniesBySource(ctx context.Context) (filed, illustrative int64, err error) {
	res := s.c.DoMulti(ctx, s.c.B().Scard().Key(fundSourceKey(shariah.DataFiled)).Build(),
		s.c.B().Scard().Key(fundSourceKey(shariah.DataIllustrative)).Build())
	if filed, err = res[0].AsInt64(); err != nil {
		return 0, 0, err
	}
	illustrative, err = res[1].AsInt64()
	return filed, illustrative, err
}

// Fundamentals reads a symbol's periods, oldest first.
func (s *RefStore) Fundamentals(ctx context.Context, symbol string) ([]shariah.Fundamentals, error) {
	var out []shariah.Fundamentals
	_, err := s.getJSON(ctx, fundKey(symbol), &out, true)
	return out, err
}

// FundamentalsMany reads the periods of many symbols, pipelined.
func (s *RefStore) FundamentalsMany(ctx context.Context, symbols []string) (map[string][]shariah.Fundamentals, error) {
	keys := make([]string, len(symbols))
	for i, sym := range symbols {
		keys[i] = fundKey(sym)
	}
	out := map[string][]shariah.Fundamentals{}
	err := s.getJSONMany(ctx, keys, func(i int, b []byte) error {
		var fs []shariah.Fundamentals
		if err := json.Unmarshal(b, &fs); err != nil {
			return err
		}
		out[symbols[i]] = fs
		return nil
	})
	return out, err
}

// PutDividends merges by ex-date.
func (s *RefStore) PutDividends(ctx context.Context, symbol string, ds []shariah.Dividend) error {
	var old []shariah.Dividend
	if _, err := s.getJSON(ctx, divKey(symbol), &old, false); err != nil {
		return err
	}
	key := func(d shariah.Dividend) string {
		if d.ExDate != "" {
			return d.ExDate
		}
		return "period:" + d.PeriodEnd
	}
	byDate := map[string]shariah.Dividend{}
	for _, d := range old {
		byDate[key(d)] = d
	}
	for _, d := range ds {
		byDate[key(d)] = d
	}
	out := make([]shariah.Dividend, 0, len(byDate))
	for _, d := range byDate {
		out = append(out, d)
	}
	date := func(d shariah.Dividend) string {
		if d.ExDate != "" {
			return d.ExDate
		}
		return d.PeriodEnd
	}
	sort.Slice(out, func(i, j int) bool { return date(out[i]) < date(out[j]) })
	c, err := s.setJSON(divKey(symbol), out)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, c).Error()
}

// Dividends reads a symbol's dividends, oldest first.
func (s *RefStore) Dividends(ctx context.Context, symbol string) ([]shariah.Dividend, error) {
	var out []shariah.Dividend
	_, err := s.getJSON(ctx, divKey(symbol), &out, true)
	return out, err
}

// indexRecord is an index as stored (IndexInfo hides its symbols from JSON).
type indexRecord struct {
	Info    catalog.IndexInfo `json:"info"`
	Symbols []string          `json:"symbols"`
}

// PutIndex replaces an index, except that an illustrative list never replaces a real one.
func (s *RefStore) PutIndex(ctx context.Context, ix catalog.IndexInfo) error {
	if ix.Source == shariah.SourceIllustrative {
		var old indexRecord
		if ok, err := s.getJSON(ctx, indexKey(ix.Name), &old, false); err != nil {
			return err
		} else if ok && old.Info.Source != shariah.SourceIllustrative && len(old.Symbols) > 0 {
			return nil
		}
	}
	c, err := s.setJSON(indexKey(ix.Name), indexRecord{Info: ix, Symbols: ix.Symbols})
	if err != nil {
		return err
	}
	return s.doAll(ctx, rueidis.Commands{c, s.c.B().Sadd().Key(indexSetKey()).Member(ix.Name).Build()})
}

// Indices reads every index with its constituents, by name.
func (s *RefStore) Indices(ctx context.Context) ([]catalog.IndexInfo, error) {
	names, err := s.c.Do(ctx, s.c.B().Smembers().Key(indexSetKey()).Build()).AsStrSlice()
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = indexKey(n)
	}
	var out []catalog.IndexInfo
	err = s.getJSONMany(ctx, keys, func(_ int, b []byte) error {
		var r indexRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		r.Info.Symbols = r.Symbols
		out = append(out, r.Info)
		return nil
	})
	return out, err
}

// PutHoldings replaces an ETF's holdings unless the stored ones are more recent, or real where the
// new ones are illustrative.
func (s *RefStore) PutHoldings(ctx context.Context, etf string, hs []shariah.Holding) error {
	var old []shariah.Holding
	if _, err := s.getJSON(ctx, holdingsKey(etf), &old, false); err != nil {
		return err
	}
	if len(old) > 0 && len(hs) > 0 {
		oldReal, newReal := old[0].Source != shariah.SourceIllustrative, hs[0].Source != shariah.SourceIllustrative
		if (oldReal && !newReal) || (oldReal == newReal && old[0].AsOf > hs[0].AsOf) {
			return nil // older holdings, or illustrative ones over real ones, do not replace what is stored
		}
	}
	c, err := s.setJSON(holdingsKey(etf), hs)
	if err != nil {
		return err
	}
	return s.doAll(ctx, rueidis.Commands{c, s.c.B().Sadd().Key(holdingsSetKey()).Member(etf).Build()})
}

// ETFsWithHoldings lists the ETFs whose holdings are loaded.
func (s *RefStore) ETFsWithHoldings(ctx context.Context) ([]string, error) {
	out, err := s.c.Do(ctx, s.c.B().Smembers().Key(holdingsSetKey()).Build()).AsStrSlice()
	sort.Strings(out)
	return out, err
}

// Holdings reads an ETF's holdings.
func (s *RefStore) Holdings(ctx context.Context, etf string) ([]shariah.Holding, error) {
	var out []shariah.Holding
	_, err := s.getJSON(ctx, holdingsKey(etf), &out, true)
	return out, err
}

// PutFX merges rates by currency (a newer date wins).
func (s *RefStore) PutFX(ctx context.Context, rates []market.FXRate) error {
	old, err := s.FX(ctx)
	if err != nil {
		return err
	}
	by := map[string]market.FXRate{}
	for _, r := range old {
		by[r.Currency] = r
	}
	for _, r := range rates {
		if o, ok := by[r.Currency]; !ok || r.AsOf >= o.AsOf {
			by[r.Currency] = r
		}
	}
	out := make([]market.FXRate, 0, len(by))
	for _, r := range by {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	c, err := s.setJSON(fxKey(), out)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, c).Error()
}

// FX reads every rate, by currency.
func (s *RefStore) FX(ctx context.Context) ([]market.FXRate, error) {
	var out []market.FXRate
	_, err := s.getJSON(ctx, fxKey(), &out, true)
	return out, err
}

// PutMetals merges prices by metal and date.
func (s *RefStore) PutMetals(ctx context.Context, prices []market.MetalPrice) error {
	by := map[string][]market.MetalPrice{}
	for _, p := range prices {
		by[p.Metal] = append(by[p.Metal], p)
	}
	for metal, ps := range by {
		old, err := s.Metals(ctx, metal)
		if err != nil {
			return err
		}
		dated := map[string]market.MetalPrice{}
		for _, p := range old {
			dated[p.AsOf] = p
		}
		for _, p := range ps {
			dated[p.AsOf] = p
		}
		out := make([]market.MetalPrice, 0, len(dated))
		for _, p := range dated {
			out = append(out, p)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].AsOf < out[j].AsOf })
		c, err := s.setJSON(metalKey(metal), out)
		if err != nil {
			return err
		}
		if err := s.c.Do(ctx, c).Error(); err != nil {
			return err
		}
	}
	return nil
}

// Metals reads a metal's prices, oldest first.
func (s *RefStore) Metals(ctx context.Context, metal string) ([]market.MetalPrice, error) {
	var out []market.MetalPrice
	_, err := s.getJSON(ctx, metalKey(metal), &out, true)
	return out, err
}

// PutQuote stores a symbol's latest quote: as its served body when the store has the quote bodies.
func (s *RefStore) PutQuote(ctx context.Context, q market.Quote) error {
	var b []byte
	if s.quotes != nil {
		sv, err := s.quotes.Serve(q)
		if err != nil {
			return err
		}
		b = quoteValue(s.quotes.Variant(), sv, q.AsOf)
	}
	if b == nil {
		var err error
		if b, err = json.Marshal(q); err != nil {
			return err
		}
	}
	return s.c.Do(ctx, s.c.B().Set().Key(quoteKey(q.Symbol)).Value(rueidis.BinaryString(b)).Build()).Error()
}

// quoteValue is a quote stored as its served body: the header, then the body's members (the body less
// its opening brace), so the value still decodes as the quote. It is nil for a quote whose as-of date
// cannot stand in the header as it is (the quote is then stored alone).
func quoteValue(variant string, sv shariah.Served, asOf string) []byte {
	if !plainString(asOf) || len(sv.Body) < 3 || sv.Body[0] != '{' {
		return nil
	}
	b := framed(variant, sv.ETag, `"`+asOf+`"`, len(sv.Body))
	return append(b, sv.Body[1:]...)
}

// decodeQuote reads a stored quote, served body or not: the disclaimers of a served body are the
// route's, not the quote's.
func decodeQuote(b []byte) (market.Quote, error) {
	var q market.Quote
	err := json.Unmarshal(b, &q)
	q.Disclaimers = nil
	return q, err
}

// Quote reads a symbol's latest quote (client-side cached; Redis invalidates on change).
func (s *RefStore) Quote(ctx context.Context, symbol string) (market.Quote, bool, error) {
	b, ok, err := getValue(ctx, s.c, quoteKey(symbol), s.cacheTTL)
	if err != nil || !ok {
		return market.Quote{}, false, err
	}
	q, err := decodeQuote(b)
	return q, err == nil, err
}

// ServedQuote reads a symbol's quote as the body GET /api/quote serves (client-side cached on a cached
// store): the stored body when its variant is bodies', else the body encoded from the stored quote,
// which then replaces the value read (if it is still the stored one).
func (s *RefStore) ServedQuote(ctx context.Context, symbol string, bodies market.QuoteBodies) (shariah.StoredQuote, bool, error) {
	key := quoteKey(symbol)
	b, ok, err := getValue(ctx, s.c, key, s.cacheTTL)
	if err != nil || !ok {
		return shariah.StoredQuote{}, false, err
	}
	if q, ok := s.memo.get(key, bodies.Variant(), b); ok {
		return q, true, nil
	}
	variant, etag, at, rest, headed := parseServed(b)
	if headed && string(variant) == bodies.Variant() && len(at) >= 2 && at[0] == '"' {
		body := make([]byte, 1+len(rest))
		body[0] = '{'
		copy(body[1:], rest)
		q := shariah.StoredQuote{Served: shariah.Served{Body: body, ETag: string(etag)}, AsOf: string(at[1 : len(at)-1])}
		s.memo.put(key, bodies.Variant(), b, q)
		return q, true, nil
	}
	q, err := decodeQuote(b)
	if err != nil {
		return shariah.StoredQuote{}, false, err
	}
	sv, err := bodies.Serve(q)
	if err != nil {
		return shariah.StoredQuote{}, false, err
	}
	// Backfilled only when written by an older binary (no body at all): a body of another variant is
	// another running binary's, and two binaries would otherwise overwrite each other on every read.
	if v := quoteValue(bodies.Variant(), sv, q.AsOf); v != nil && !headed {
		backfill(ctx, s.c, key, b, v)
	}
	sq := shariah.StoredQuote{Served: sv, AsOf: q.AsOf}
	s.memo.put(key, bodies.Variant(), b, sq)
	return sq, true, nil
}

// Quotes reads several quotes; absent ones are missing from the map.
func (s *RefStore) Quotes(ctx context.Context, symbols []string) (map[string]market.Quote, error) {
	out := make(map[string]market.Quote, len(symbols))
	var res []rueidis.RedisResult
	if s.cacheTTL > 0 {
		cmds := make([]rueidis.CacheableTTL, len(symbols))
		for i, sym := range symbols {
			cmds[i] = rueidis.CT(s.c.B().Get().Key(quoteKey(sym)).Cache(), s.cacheTTL)
		}
		res = s.c.DoMultiCache(ctx, cmds...)
	} else {
		cmds := make(rueidis.Commands, len(symbols))
		for i, sym := range symbols {
			cmds[i] = s.c.B().Get().Key(quoteKey(sym)).Build()
		}
		res = s.c.DoMulti(ctx, cmds...)
	}
	for i, r := range res {
		b, err := r.AsBytes()
		if rueidis.IsRedisNil(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		q, err := decodeQuote(b)
		if err != nil {
			return nil, err
		}
		out[symbols[i]] = q
	}
	return out, nil
}

// PutTrending replaces the trending list.
func (s *RefStore) PutTrending(ctx context.Context, items []market.Trending) error {
	c, err := s.setJSON(trendingKey(), items)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, c).Error()
}

// Trending reads the trending list.
func (s *RefStore) Trending(ctx context.Context) ([]market.Trending, error) {
	var out []market.Trending
	_, err := s.getJSON(ctx, trendingKey(), &out, true)
	return out, err
}

// BumpVersion increments the reference-data version.
func (s *RefStore) BumpVersion(ctx context.Context) (int64, error) {
	return s.c.Do(ctx, s.c.B().Incr().Key(refVersionKey()).Build()).AsInt64()
}

// Version reads the reference-data version. A cached store reads it through the client-side cache, and
// a read answers for versionRecheck: cheap per request.
func (s *RefStore) Version(ctx context.Context) (int64, error) {
	if s.cacheTTL <= 0 {
		return versionOf(s.c.Do(ctx, s.c.B().Get().Key(refVersionKey()).Build()))
	}
	if r := s.version.Load(); r != nil && time.Since(r.at) < versionRecheck {
		return r.v, nil
	}
	at := time.Now()
	v, err := versionOf(s.c.DoCache(ctx, s.c.B().Get().Key(refVersionKey()).Cache(), min(s.cacheTTL, time.Second)))
	if err == nil {
		s.version.Store(&versionRead{v: v, at: at})
	}
	return v, err
}

// versionOf reads the version key's value (0 while there is none).
func versionOf(res rueidis.RedisResult) (int64, error) {
	v, err := res.AsInt64()
	if rueidis.IsRedisNil(err) {
		return 0, nil
	}
	return v, err
}

// ScreeningResultCount counts the cached screening results.
func (s *RefStore) ScreeningResultCount(ctx context.Context) (int64, error) {
	return s.c.Do(ctx, s.c.B().Scard().Key(resultSetKey()).Build()).AsInt64()
}

// ScreeningResultsBySource counts the cached screening results by what their fundamentals stand on
// (results written before the counts existed are in none of the sets until they are rescreened).
func (s *RefStore) ScreeningResultsBySource(ctx context.Context) (shariah.SourceCounts, error) {
	cmds := make(rueidis.Commands, len(dataSources))
	for i, src := range dataSources {
		cmds[i] = s.c.B().Scard().Key(resultSourceKey(src)).Build()
	}
	var out shariah.SourceCounts
	for i, res := range s.c.DoMulti(ctx, cmds...) {
		n, err := res.AsInt64()
		if err != nil {
			return out, err
		}
		out.AddN(dataSources[i], int(n))
	}
	return out, nil
}
