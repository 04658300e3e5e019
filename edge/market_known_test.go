package edge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/datapack"
)

// knownFixture is a small market written for these tests, in the shared data's formats: a close-only
// matrix of 25 tickers (as the constituent matrices are) plus one ticker whose closes stop six weeks
// early, and an index file with full OHLCV (as ^GSPC's is), one day longer.
type knownFixture struct {
	days    []time.Time         // the matrix's trading days
	closes  map[string][]string // ticker -> close per day ("" = no trade)
	tickers []string
	index   [][6]string // date, open, high, low, close, volume
}

func newKnownFixture() knownFixture {
	f := knownFixture{closes: map[string][]string{}}
	for d := time.Date(2025, 11, 3, 0, 0, 0, 0, time.UTC); !d.After(time.Date(2025, 12, 30, 0, 0, 0, 0, time.UTC)); d = d.AddDate(0, 0, 1) {
		if d.Weekday() != time.Saturday && d.Weekday() != time.Sunday {
			f.days = append(f.days, d)
		}
	}
	for i := range 25 {
		f.tickers = append(f.tickers, fmt.Sprintf("ZQ%02d", i+1))
	}
	f.tickers = append(f.tickers, "ZQOLD")
	for i, tk := range f.tickers {
		for j, d := range f.days {
			c := ""
			if tk != "ZQOLD" || d.Before(time.Date(2025, 11, 15, 0, 0, 0, 0, time.UTC)) {
				c = fmt.Sprintf("%d.%02d", 50+i*3+(j*7+i*5)%13, (j*11+i)%100)
			}
			f.closes[tk] = append(f.closes[tk], c)
		}
	}
	for j, d := range append(append([]time.Time{}, f.days...), time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)) {
		o := 6800 + (j*37)%90
		c := 6800 + (j*53)%90
		f.index = append(f.index, [6]string{fmt.Sprintf("%d/%d/%d", d.Year(), int(d.Month()), d.Day()),
			fmt.Sprintf("%d.25", o), fmt.Sprintf("%d.5", max(o, c)+20+j%7), fmt.Sprintf("%d.75", min(o, c)-15-j%5),
			fmt.Sprintf("%d.1", c), fmt.Sprintf("%d", 1_500_000_000+j*10_000_000)})
	}
	return f
}

// load writes the fixture through the shared data's readers and datapack.Load, as load --shared does.
func (f knownFixture) load(t *testing.T, e *env) {
	t.Helper()
	var m strings.Builder
	m.WriteString("Date," + strings.Join(f.tickers, ",") + "\n")
	for j, d := range f.days {
		m.WriteString(d.Format("2006-01-02"))
		for _, tk := range f.tickers {
			m.WriteString("," + f.closes[tk][j])
		}
		m.WriteString("\n")
	}
	var ix strings.Builder
	ix.WriteString("date,open,high,low,close,volume\n")
	for _, r := range f.index {
		ix.WriteString(strings.Join(r[:], ",") + "\n")
	}
	fsys := fstest.MapFS{"closes.csv": {Data: []byte(m.String())}, "SP500_daily.csv": {Data: []byte(ix.String())}}
	p, err := datapack.ReadCloseMatrices(fsys, []string{"closes.csv"}, "")
	if err != nil {
		t.Fatal(err)
	}
	ip, err := datapack.ReadIndexDaily(fsys, "SP500_daily.csv", datapack.JanzenIndices["SP500"])
	if err != nil || len(ip.Problems) > 0 || len(p.Problems) > 0 {
		t.Fatalf("fixture: %v %v %v", err, ip.Problems, p.Problems)
	}
	p.Series = append(p.Series, ip.Series...)
	p.Assets = append(p.Assets, ip.Assets...)
	shares := shariah.NewNumber(decimal.NewFromInt(1_000_000))
	for _, tk := range f.tickers {
		p.Assets = append(p.Assets, shariah.Asset{Symbol: tk, Name: tk + " Test Co", Type: shariah.Equity, Country: "United States",
			Currency: "USD", Exchange: "NYSE", Sector: "Industrials", Source: "test"})
		p.Fundamentals = append(p.Fundamentals, shariah.Fundamentals{Symbol: tk, PeriodEnd: "2025-09-30", Period: "Q3",
			Facts: map[shariah.Field]shariah.Fact{shariah.SharesOutstanding: {Value: shares, Source: shariah.SourceIllustrative}}})
	}
	if _, err := datapack.Load(context.Background(), e.ref, p, datapack.Extras{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.awaitData(t)
}

func price(t *testing.T, s string) shariah.Price {
	t.Helper()
	p, err := shariah.ParsePrice(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// num reads a JSON number of an answer as a Price (exact: the answer writes six decimals at most).
func num(t *testing.T, v any) shariah.Price {
	t.Helper()
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	return price(t, decimal.NewFromFloat(f).String())
}

// TestCloseOnlyMarketData: where the source has closes only, the quote's open, day_high, day_low,
// volume and avg_volume and the candles' open, high, low and volume are null (daily, weekly, monthly),
// the 52-week range says it is of closes, and changePercent and marketCap stay numbers; a full OHLCV
// source (^GSPC) keeps its numbers. Every answer is validated against openapi.yaml by do.
func TestCloseOnlyMarketData(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	f := newKnownFixture()
	f.load(t, e)

	// close-only quote
	q := e.do(t, "GET", "/api/quote/ZQ03", nil, k)
	qb := q.json(t)
	if q.StatusCode != 200 {
		t.Fatalf("quote: %d %s", q.StatusCode, q.body)
	}
	for _, field := range []string{"open", "day_high", "day_low", "volume", "avg_volume"} {
		if v, present := qb[field]; !present || v != nil {
			t.Errorf("close-only quote %s = %v (present %v), want null", field, v, present)
		}
	}
	cl := f.closes["ZQ03"]
	hi, lo := price(t, cl[0]), price(t, cl[0])
	for _, c := range cl {
		hi, lo = max(hi, price(t, c)), min(lo, price(t, c))
	}
	if num(t, qb["price"]) != price(t, cl[len(cl)-1]) || qb["as_of"] != "2025-12-30" || qb["source"] != "history" ||
		qb["range_52w_basis"] != "close" || num(t, qb["high_52w"]) != hi || num(t, qb["low_52w"]) != lo {
		t.Fatalf("close-only quote %s", q.body)
	}
	if _, ok := qb["changePercent"].(float64); !ok {
		t.Errorf("changePercent %v is not a number", qb["changePercent"])
	}
	if _, ok := qb["marketCap"].(float64); !ok {
		t.Errorf("marketCap %v is not a number", qb["marketCap"])
	}

	// the same in the batch and the full asset view (re-encoded from the stored quote)
	b := e.do(t, "POST", "/api/quotes/batch", map[string]any{"symbols": []string{"ZQ03", "^GSPC"}}, k).json(t)
	if bq := b["ZQ03"].(map[string]any); bq["open"] != nil || bq["volume"] != nil || bq["range_52w_basis"] != "close" {
		t.Fatalf("batch close-only %v", bq)
	}
	if fq := e.do(t, "GET", "/api/asset/ZQ03/full", nil, k).json(t)["quote"].(map[string]any); fq["day_high"] != nil || fq["avg_volume"] != nil {
		t.Fatalf("full view close-only %v", fq)
	}

	// close-only candles: daily, weekly and monthly carry the close alone
	for _, iv := range []string{"1d", "1wk", "1mo"} {
		pts := e.do(t, "GET", "/api/ohlc/ZQ03?period=1y&interval="+iv, nil, k).json2(t).([]any)
		if len(pts) == 0 {
			t.Fatalf("%s: no candles", iv)
		}
		for _, p := range pts {
			pt := p.(map[string]any)
			for _, field := range []string{"open", "high", "low", "volume"} {
				if v, present := pt[field]; !present || v != nil {
					t.Fatalf("%s candle %v: %s not null", iv, pt, field)
				}
			}
			if _, ok := pt["close"].(float64); !ok {
				t.Fatalf("%s candle %v: no close", iv, pt)
			}
		}
		if last := pts[len(pts)-1].(map[string]any); num(t, last["close"]) != price(t, cl[len(cl)-1]) {
			t.Fatalf("%s: last close %v, want %s", iv, last["close"], cl[len(cl)-1])
		}
	}

	// a full OHLCV index: every number as in its file
	g := e.do(t, "GET", "/api/quote/%5EGSPC", nil, k).json(t)
	last := f.index[len(f.index)-1]
	var vsum, n int64
	ghi, glo := price(t, f.index[0][2]), price(t, f.index[0][3])
	for i, r := range f.index {
		ghi, glo = max(ghi, price(t, r[2])), min(glo, price(t, r[3]))
		if i >= len(f.index)-21 && i < len(f.index)-1 {
			var v int64
			fmt.Sscan(r[5], &v)
			vsum += v
			n++
		}
	}
	var lastVol int64
	fmt.Sscan(last[5], &lastVol)
	if g["source"] != "history" || g["as_of"] != "2025-12-31" || num(t, g["open"]) != price(t, last[1]) || num(t, g["day_high"]) != price(t, last[2]) ||
		num(t, g["day_low"]) != price(t, last[3]) || g["volume"] != float64(lastVol) || g["avg_volume"] != float64(vsum/n) ||
		g["range_52w_basis"] != "high_low" || num(t, g["high_52w"]) != ghi || num(t, g["low_52w"]) != glo {
		t.Fatalf("^GSPC quote %v (want open %s high %s low %s volume %d avg %d 52w %s..%s)", g, last[1], last[2], last[3], lastVol, vsum/n, glo, ghi)
	}
	wk := e.do(t, "GET", "/api/ohlc/%5EGSPC?period=1mo&interval=1wk", nil, k).json2(t).([]any)
	lw := wk[len(wk)-1].(map[string]any) // the week of 2025-12-29: Monday to Wednesday
	var wv int64
	whi := shariah.Price(0)
	for _, r := range f.index[len(f.index)-3:] {
		var v int64
		fmt.Sscan(r[5], &v)
		wv += v
		whi = max(whi, price(t, r[2]))
	}
	if lw["date"] != "2025-12-31" || num(t, lw["open"]) != price(t, f.index[len(f.index)-3][1]) || num(t, lw["high"]) != whi || lw["volume"] != float64(wv) {
		t.Fatalf("^GSPC last week %v (want high %s volume %d)", lw, whi, wv)
	}
}

// TestTrendingKnownAndLimit: with 26 real symbols on recent sessions (25 close-only equities, one
// index), limit=20 answers 20 real items; limit=50 the 25 real equities first, then the default pack's
// illustrative equities, each marked; the index (^GSPC) and a series that stopped six weeks before
// never trend; every item is an equity with its currency; close-only items have a null volume and
// relative volume and rank on their change alone.
func TestTrendingKnownAndLimit(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	k := key(e.newKey(t, account.PlanPro))
	newKnownFixture().load(t, e)
	if tr := e.do(t, "GET", "/api/trending?limit=20", nil, k).json2(t).([]any); len(tr) != 20 || tr[19].(map[string]any)["illustrative"] != false {
		t.Fatalf("limit=20: %d items: %v", len(tr), tr)
	}
	tr := e.do(t, "GET", "/api/trending?limit=50", nil, k).json2(t).([]any)
	if len(tr) <= 25 {
		t.Fatalf("limit=50: %d items, want the 25 real equities and illustrative ones after: %v", len(tr), tr)
	}
	for i, it := range tr {
		m := it.(map[string]any)
		sym := m["symbol"].(string)
		if cur, _ := m["currency"].(string); len(cur) != 3 || m["asset_type"] != "equity" || sym == "^GSPC" || sym == "ZQOLD" {
			t.Errorf("item %d %s: currency %v asset_type %v", i, sym, m["currency"], m["asset_type"])
		}
		if i >= 25 { // after every real item: the illustrative ones, marked
			if m["illustrative"] != true || m["source"] != "illustrative" {
				t.Errorf("item %d %s after the real ones: illustrative %v source %v", i, sym, m["illustrative"], m["source"])
			}
			continue
		}
		pct := decimal.NewFromFloat(m["change_percent"].(float64)).Abs().StringFixed(2)
		if m["source"] != "history" || m["illustrative"] != false || m["currency"] != "USD" || !strings.HasPrefix(sym, "ZQ") {
			t.Errorf("real item %d %s (%s, %s, illustrative %v)", i, sym, m["source"], m["as_of"], m["illustrative"])
		} else if m["volume"] != nil || m["relative_volume"] != nil || m["score"] != pct {
			t.Errorf("close-only item %v: volume and relative volume must be null, score |change| = %s", m, pct)
		}
	}
	// MCP: the same list (its limit is at most 16)
	mt := callTool(t, mcpClient(t, e), "get_trending_stocks", map[string]any{"limit": 16})["trending"].([]any)
	if len(mt) != 16 || mt[0].(map[string]any)["symbol"] != tr[0].(map[string]any)["symbol"] || mt[0].(map[string]any)["currency"] != "USD" {
		t.Fatalf("MCP trending %v", mt)
	}
}

// TestMCPQuoteCloseOnly: the MCP get_quote answer has the same nulls, and its text names them; a full
// OHLCV quote's text does not; get_price_history's candles are null where unknown and its text says
// closes only.
func TestMCPQuoteCloseOnly(t *testing.T) {
	t.Parallel()
	e := setup(t, options{})
	newKnownFixture().load(t, e)
	c := mcpClient(t, e)
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "get_quote", map[string]any{"symbols": []string{"ZQ07", "^GSPC"}}
	res, err := c.CallTool(context.Background(), req)
	if err != nil || res.IsError {
		t.Fatalf("get_quote: %v %+v", err, res)
	}
	var text string
	for _, ct := range res.Content {
		if tc, ok := ct.(mcpgo.TextContent); ok {
			text += tc.Text
		}
	}
	out := callTool(t, c, "get_quote", map[string]any{"symbols": []string{"ZQ07", "^GSPC"}})["quotes"].(map[string]any)
	zq, gq := out["ZQ07"].(map[string]any), out["^GSPC"].(map[string]any)
	for _, field := range []string{"open", "day_high", "day_low", "volume", "avg_volume"} {
		if v, present := zq[field]; !present || v != nil {
			t.Errorf("MCP close-only %s = %v (present %v)", field, v, present)
		}
		if _, ok := gq[field].(float64); !ok {
			t.Errorf("MCP ^GSPC %s = %v", field, gq[field])
		}
	}
	var zline, gline string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "ZQ07:") {
			zline = l
		}
		if strings.HasPrefix(l, "^GSPC:") {
			gline = l
		}
	}
	if !strings.Contains(zline, "not in the source (null): open, day_high, day_low, volume, avg_volume") || !strings.Contains(zline, "52-week range of closes") ||
		gline == "" || strings.Contains(gline, "null") || strings.Contains(gline, "closes") {
		t.Fatalf("MCP text %q", text)
	}
	h := callTool(t, c, "get_price_history", map[string]any{"symbol": "ZQ07", "period": "1mo", "interval": "1wk"})
	for _, cd := range h["candles"].([]any) {
		if m := cd.(map[string]any); m["open"] != nil || m["high"] != nil || m["low"] != nil || m["volume"] != nil || m["close"] == nil {
			t.Fatalf("MCP candle %v", m)
		}
	}
}
