package news

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/filings"
)

// ---------------------------------------------------------------------------------------------------
// helpers

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseFixture(t *testing.T, name string) []filings.Article {
	t.Helper()
	as, err := ParseFeed(fixture(t, name), name)
	if err != nil {
		t.Fatalf("ParseFeed(%s): %v", name, err)
	}
	return as
}

func byTitle(t *testing.T, as []filings.Article, prefix string) filings.Article {
	t.Helper()
	for _, a := range as {
		if strings.HasPrefix(a.Title, prefix) {
			return a
		}
	}
	t.Fatalf("no article titled %q...", prefix)
	return filings.Article{}
}

// testAssets is a small reference database: equities with names that exercise the suffix rules and
// the stoplist, class shares, a foreign listing of a US company, an ETF (cashtag only).
func testAssets() []shariah.Asset {
	eq := func(sym, name string) shariah.Asset {
		return shariah.Asset{Symbol: sym, Name: name, Type: shariah.Equity}
	}
	return []shariah.Asset{
		eq("AAPL", "Apple Inc."),
		eq("AAPL.MX", "Apple Inc."),
		eq("MSFT", "Microsoft Corporation"),
		eq("NVDA", "NVIDIA Corporation"),
		eq("TSLA", "Tesla, Inc."),
		eq("TGT", "Target Corporation"),
		eq("GAP", "The Gap, Inc."),
		eq("XYZ", "Block, Inc."),
		eq("META", "Meta Platforms, Inc. Class A"),
		eq("BRK-A", "Berkshire Hathaway Inc."),
		eq("BRK-B", "Berkshire Hathaway Inc."),
		eq("GOOGL", "Alphabet Inc. Class A"),
		eq("GOOG", "Alphabet Inc. Class C"),
		eq("CSCO", "Cisco Systems, Inc."),
		eq("F", "Ford Motor Company"),
		eq("KO", "Coca-Cola Company (The)"),
		eq("AI", "C3.ai, Inc. Class A"),
		eq("SHOP", "Shopify Inc."),
		eq("SHOP.TO", "Shopify Inc."),
		eq("AMZN", "Amazon.com, Inc."),
		eq("IBM", "International Business Machines Corporation"),
		eq("HPQ", "HP Inc."),
		eq("HP", "Helmerich & Payne, Inc."),
		eq("ACME", "Acme Widgets Holdings plc"),
		eq("ACMEW", "Acme Widgets Holdings plc"),
		{Symbol: "SPY", Name: "SPDR S&P 500 ETF Trust", Type: shariah.ETF},
		{Symbol: "^GSPC", Name: "S&P 500", Type: shariah.Index},
	}
}

// ---------------------------------------------------------------------------------------------------
// feeds

func TestParseFeedRSS(t *testing.T) {
	t.Parallel()
	as := parseFixture(t, "rss.xml")
	if len(as) != 4 {
		t.Fatalf("got %d articles, want 4 (the item without a link is skipped)", len(as))
	}
	for _, a := range as {
		if a.ID != ArticleID(a.URL) || len(a.ID) != 16 {
			t.Errorf("%q: ID %q, want ArticleID(URL)", a.Title, a.ID)
		}
		if a.Source != "rss.xml" || !reflect.DeepEqual(a.Sources, []string{"rss.xml"}) {
			t.Errorf("%q: source %q %v", a.Title, a.Source, a.Sources)
		}
		if strings.ContainsAny(a.Title+a.Summary, "<>") || strings.Contains(a.Summary, "&nbsp;") ||
			strings.Contains(a.Summary, "&lt;") {
			t.Errorf("%q: markup left in %q", a.Title, a.Summary)
		}
		if a.TitleKey != NormalizeTitle(a.Title) {
			t.Errorf("%q: TitleKey %q", a.Title, a.TitleKey)
		}
	}

	apple := byTitle(t, as, "Apple prices")
	if apple.Title != "Apple prices $5 billion of senior notes & plans buyback" {
		t.Errorf("title entities not decoded: %q", apple.Title)
	}
	if want := "Apple Inc. (NASDAQ: AAPL) sold senior notes in four parts, its first bond deal this year. Read more"; apple.Summary != want {
		t.Errorf("summary\n got %q\nwant %q", apple.Summary, want)
	}
	if want := time.Date(2025, 3, 3, 19, 30, 0, 0, time.UTC); !apple.Published.Equal(want) || apple.Published.Location() != time.UTC {
		t.Errorf("published %v, want %v in UTC", apple.Published, want)
	}
	if apple.Category != "markets" {
		t.Errorf("category %q, want markets", apple.Category)
	}
	if !strings.Contains(apple.URL, "utm_source") {
		t.Errorf("URL %q: the link is kept as published; only the ID is normalised", apple.URL)
	}

	tesla := byTitle(t, as, "$TSLA")
	if want := "Tesla, Inc. delivered a record number of vehicles; shares surged 7% in pre-market trading."; tesla.Summary != want {
		t.Errorf("CDATA summary\n got %q\nwant %q (script content and img dropped)", tesla.Summary, want)
	}
	if tesla.Category != "" {
		t.Errorf("category %q, want none", tesla.Category)
	}
	if msft := byTitle(t, as, "Microsoft"); msft.Category != "deals" {
		t.Errorf("category %q, want the first one trimmed and lower-cased", msft.Category)
	}
	if tgt := byTitle(t, as, "Target"); !tgt.Published.IsZero() {
		t.Errorf("item without a date: published %v, want the zero time", tgt.Published)
	}
}

func TestParseFeedAtom(t *testing.T) {
	t.Parallel()
	as := parseFixture(t, "atom.xml")
	if len(as) != 4 {
		t.Fatalf("got %d articles, want 4", len(as))
	}
	nv := byTitle(t, as, "NVIDIA")
	if nv.Title != "NVIDIA raises quarterly dividend & expands buyback" {
		t.Errorf("title %q: double-escaped entity not decoded", nv.Title)
	}
	if nv.Summary != "Nvidia said on Thursday it would raise its dividend." {
		t.Errorf("summary from html content: %q", nv.Summary)
	}
	if want := time.Date(2025, 3, 6, 6, 15, 0, 0, time.UTC); !nv.Published.Equal(want) || nv.Published.Location() != time.UTC {
		t.Errorf("published %v, want the updated time %v in UTC", nv.Published, want)
	}
	msft := byTitle(t, as, "Microsoft")
	if want := time.Date(2025, 3, 5, 12, 5, 0, 0, time.UTC); !msft.Published.Equal(want) {
		t.Errorf("published %v, want the published time %v (before updated)", msft.Published, want)
	}
	if pc := byTitle(t, as, "Party City"); pc.Category != "bankruptcy" || pc.Summary != "The retailer did not find a buyer." {
		t.Errorf("category %q summary %q", pc.Category, pc.Summary)
	}
}

func TestParseFeedRSS1(t *testing.T) {
	t.Parallel()
	doc := `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
  xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://example.com/"><title>RDF wire</title><link>https://example.com/</link>
    <description>x</description></channel>
  <item rdf:about="https://example.com/a"><title>Cisco raises dividend</title><link>https://example.com/a</link>
    <description>Cisco Systems lifts its payout.</description><dc:date>2025-03-07T10:00:00-05:00</dc:date>
    <dc:subject>Dividends</dc:subject></item>
</rdf:RDF>`
	as, err := ParseFeed([]byte(doc), "rdf")
	if err != nil || len(as) != 1 {
		t.Fatalf("%v %d", err, len(as))
	}
	a := as[0]
	if a.Title != "Cisco raises dividend" || a.URL != "https://example.com/a" || a.Summary != "Cisco Systems lifts its payout." ||
		!a.Published.Equal(time.Date(2025, 3, 7, 15, 0, 0, 0, time.UTC)) {
		t.Errorf("%+v", a)
	}
}

func TestDuplicateAcrossFeeds(t *testing.T) {
	t.Parallel()
	rss := byTitle(t, parseFixture(t, "rss.xml"), "Microsoft")
	atom := byTitle(t, parseFixture(t, "atom.xml"), "Microsoft")
	if rss.URL == atom.URL {
		t.Fatal("fixture: the two feeds should carry different URL forms")
	}
	if rss.ID != atom.ID {
		t.Errorf("IDs differ for %q and %q: %s %s", rss.URL, atom.URL, rss.ID, atom.ID)
	}
	if rss.TitleKey != atom.TitleKey || rss.TitleKey != "microsoft to acquire contoso for 2 billion" {
		t.Errorf("title keys %q %q", rss.TitleKey, atom.TitleKey)
	}
}

func TestParseFeedErrors(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		doc  []byte
		want string
	}{
		"truncated RSS":      {fixture(t, "malformed.xml"), "malformed feed"},
		"HTML page":          {[]byte("<!DOCTYPE html><html><body><p>Not found</p></body></html>"), "not an RSS or Atom feed"},
		"empty":              {[]byte("  \n"), "empty feed document"},
		"JSON, not a feed":   {[]byte(`{"error":"rate limited"}`), "not an RSS or Atom feed"},
		"truncated Atom":     {[]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>x</title>`), "malformed feed"},
		"plain text message": {[]byte("Service Unavailable"), "not an RSS or Atom feed"},
	}
	for name, c := range cases {
		as, err := ParseFeed(c.doc, "src")
		if err == nil {
			t.Errorf("%s: no error (%d articles)", name, len(as))
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to say %q", name, err, c.want)
		}
		t.Logf("%s: %v", name, err)
	}
}

func TestParseFeedSummaryLimit(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Revenue growth accelerated across every segment and region ", 40)
	doc := `<?xml version="1.0"?><rss version="2.0"><channel><title>x</title><item><title>Long</title>` +
		`<link>https://example.com/long</link><description>&lt;p&gt;` + long + `&lt;/p&gt;</description></item></channel></rss>`
	as, err := ParseFeed([]byte(doc), "x")
	if err != nil || len(as) != 1 {
		t.Fatalf("%v %d", err, len(as))
	}
	s := as[0].Summary
	if n := utf8.RuneCountInString(s); n > MaxSummary {
		t.Errorf("summary has %d characters, want at most %d", n, MaxSummary)
	}
	body := strings.TrimSuffix(s, "…")
	if body == s {
		t.Errorf("a cut summary ends with an ellipsis: %q", s[len(s)-20:])
	}
	full := strings.TrimSpace(long)
	if !strings.HasPrefix(full, body) || full[len(body)] != ' ' {
		t.Errorf("summary not cut at a word boundary: ...%q", body[len(body)-20:])
	}
	if got := truncateWords("short text", 500); got != "short text" {
		t.Errorf("short text changed: %q", got)
	}
}

func TestCleanText(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"<p>Hello</p><p>world</p>":                    "Hello world",
		"App<b>le</b> &amp; Microsoft":                "Apple & Microsoft",
		"revenue < $5bn &lt; guidance":                "revenue < $5bn < guidance",
		"a<!-- comment -->b":                          "a b",
		"<style>p{color:red}</style>Text<br/>more":    "Text more",
		"&lt;p&gt;Escaped &amp;amp; markup&lt;/p&gt;": "Escaped & markup",
		"no\u00a0break\u200bspace":                    "no breakspace",
	}
	for in, want := range cases {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
	}
}

// ---------------------------------------------------------------------------------------------------
// URLs, titles, IDs

func TestNormalizeURL(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"https://www.example.com/a/b/":                             "https://example.com/a/b",
		"http://example.com/a/b":                                   "https://example.com/a/b",
		"HTTPS://WWW.Example.COM/Path/Case":                        "https://example.com/Path/Case",
		"https://example.com/a#section":                            "https://example.com/a",
		"https://example.com/a?utm_source=x&utm_medium=rss&id=7":   "https://example.com/a?id=7",
		"https://example.com/a?b=2&a=1":                            "https://example.com/a?a=1&b=2",
		"https://example.com/a?fbclid=1&gclid=2&mc_cid=3&mc_eid=4": "https://example.com/a",
		"https://example.com/a?ref=home&cmpid=rss&UTM_Campaign=c":  "https://example.com/a",
		"https://example.com:443/a":                                "https://example.com/a",
		"http://example.com:80/a":                                  "https://example.com/a",
		"https://example.com:8443/a":                               "https://example.com:8443/a",
		"https://example.com/":                                     "https://example.com",
		"www.example.com/a":                                        "https://example.com/a",
		"  https://example.com/a  ":                                "https://example.com/a",
		"https://example.com/a?q=hello%20world":                    "https://example.com/a?q=hello+world",
		"":                                                         "",
	}
	for in, want := range cases {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeTitle(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"Microsoft to acquire Contoso for $2 billion": "microsoft to acquire contoso for 2 billion",
		"  Apple's  iPhone—sales JUMP!  ":             "apples iphone sales jump",
		"AT&amp;T cuts dividend":                      "at t cuts dividend",
		"Nestlé: results":                             "nestlé results",
		"Dunkin' Brands":                              "dunkin brands",
	}
	for in, want := range cases {
		if got := NormalizeTitle(in); got != want {
			t.Errorf("NormalizeTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestArticleID(t *testing.T) {
	t.Parallel()
	hex16 := regexp.MustCompile(`^[0-9a-f]{16}$`)
	same := []string{
		"https://www.example.com/news/apple-notes/?utm_source=rss&id=42#top",
		"http://example.com/news/apple-notes?id=42",
		"HTTPS://EXAMPLE.COM/news/apple-notes?fbclid=zz&id=42",
	}
	id := ArticleID(same[0])
	if !hex16.MatchString(id) {
		t.Fatalf("ID %q is not 16 hex characters", id)
	}
	for _, u := range same[1:] {
		if got := ArticleID(u); got != id {
			t.Errorf("ArticleID(%q) = %s, want %s", u, got, id)
		}
	}
	for _, u := range []string{"https://example.com/news/apple-notes?id=43", "https://example.com/news/Apple-Notes?id=42"} {
		if ArticleID(u) == id {
			t.Errorf("ArticleID(%q) collides with a different article", u)
		}
	}
}

// ---------------------------------------------------------------------------------------------------
// tagging

func TestTaggerSymbols(t *testing.T) {
	t.Parallel()
	tg := NewTagger(testAssets())
	cases := []struct {
		title, summary string
		want           []string
	}{
		// cashtags
		{"$AAPL and $MSFT rally", "", []string{"AAPL", "MSFT"}},
		{"$BRK.B hits a record", "", []string{"BRK-B"}},
		{"Buffett's $BRK/B", "", []string{"BRK-B"}},
		{"$SPY slips", "", []string{"SPY"}},
		{"$FAKE soars; deal worth US$5 billion, $5", "", nil},
		// tickers in parentheses
		{"Apple Inc. (NASDAQ: AAPL) sells notes", "", []string{"AAPL"}},
		{"Target Corporation (NYSE:TGT) cuts outlook", "", []string{"TGT"}},
		{"Results (AAPL)", "", []string{"AAPL"}},
		{"Chipmakers bet on (AI)", "", nil},
		{"C3.ai (NYSE: AI) jumps", "", []string{"AI"}},
		{"Shopify (TSX: SHOP) and (NYSE: SHOP)", "", []string{"SHOP", "SHOP.TO"}},
		{"Alphabet (NASDAQ: GOOG, GOOGL)", "", []string{"GOOG", "GOOGL"}},
		{"Revenue rose (2024) in Q4 (EPS)", "", nil},
		// company names
		{"Apple unveils a new iPhone", "", []string{"AAPL"}},
		{"Apple's services grow", "", []string{"AAPL"}},
		{"apple pie and Pineapple juice", "", nil},
		{"NVIDIA and Microsoft team up", "", []string{"MSFT", "NVDA"}},
		{"Nvidia shares slip", "Tesla, meanwhile, rose.", []string{"NVDA", "TSLA"}},
		{"Alphabet beats", "", []string{"GOOG", "GOOGL"}},
		{"Cisco Systems and Cisco", "", []string{"CSCO"}},
		{"Coca-Cola raises dividend", "", []string{"KO"}},
		{"Amazon expands", "", []string{"AMZN"}},
		{"Berkshire Hathaway annual letter", "", []string{"BRK-A", "BRK-B"}},
		{"Ford recalls trucks", "", []string{"F"}},
		{"IBM and International Business Machines", "", []string{"IBM"}},
		{"Meta Platforms sets capex", "", []string{"META"}},
		{"Acme Widgets wins contract", "", []string{"ACME"}}, // ACMEW (warrants, same name) is left out
		{"HP beats; Helmerich & Payne lags", "", []string{"HP", "HPQ"}},
		{"$HP - Helmerich & Payne: dividend safety", "", []string{"HP"}}, // "$HP" is not the name "HP"
		// the stoplist: common words are not names
		{"Price Target Raised at Block Trade; Gap Up", "", nil},
		{"Meta analysis of Target and Gap", "", nil},
		{"Stocks Gain as Outlook Brightens", "", nil},
	}
	for _, c := range cases {
		got := tg.Symbols(c.title, c.summary)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Symbols(%q, %q) = %v, want %v", c.title, c.summary, got, c.want)
		}
	}
	var nilTagger *Tagger
	if got := nilTagger.Symbols("$AAPL", ""); got != nil {
		t.Errorf("nil tagger: %v", got)
	}
}

func TestShortNames(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"Apple Inc.":                          {"Apple"},
		"Alphabet Inc. Class A":               {"Alphabet"},
		"Amazon.com, Inc.":                    {"Amazon"},
		"Cisco Systems, Inc.":                 {"Cisco Systems", "Cisco"},
		"Coca-Cola Company (The)":             {"Coca-Cola"},
		"The Walt Disney Company":             {"Walt Disney"},
		"Eli Lilly and Company":               {"Eli Lilly"},
		"Procter & Gamble Company (The)":      {"Procter & Gamble"},
		"Goldman Sachs Group, Inc. (The)":     {"Goldman Sachs"},
		"Aalberts N.V.":                       {"Aalberts"},
		"Siemens AG":                          {"Siemens"},
		"Shell plc":                           {"Shell"},
		"Ford Motor Company":                  {"Ford Motor", "Ford"},
		"Artius II Acquisition Inc. - Rights": {"Artius II Acquisition"},
		"Coca-Cola FEMSA, S.A.B. de C.V.":     {"Coca-Cola FEMSA"},
	}
	for in, want := range cases {
		if got := shortNames(in); !reflect.DeepEqual(got, want) {
			t.Errorf("shortNames(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTaggerScale builds a tagger over 10,000 assets and tags a batch of headlines, as the news job
// does on each run; it logs the times.
func TestTaggerScale(t *testing.T) {
	t.Parallel()
	assets := testAssets()
	for i := 0; i < 10000; i++ {
		assets = append(assets, shariah.Asset{
			Symbol: fmt.Sprintf("Z%04d", i),
			Name:   fmt.Sprintf("Zeta%s Quantum%d Holdings Inc.", strings.Repeat("x", i%7), i),
			Type:   shariah.Equity,
		})
	}
	start := time.Now()
	tg := NewTagger(assets)
	built := time.Since(start)
	start = time.Now()
	const n = 1000
	for i := 0; i < n; i++ {
		got := tg.Symbols("Apple (NASDAQ: AAPL) and Zetax Quantum1 report results; $MSFT slips",
			"Microsoft, Nvidia and Tesla led the market while Zeta Quantum2 lagged.")
		if len(got) != 5 {
			t.Fatalf("got %v", got)
		}
	}
	t.Logf("10,000 assets: tagger built in %v; %v per article", built, time.Since(start)/n)
}

func BenchmarkTaggerSymbols(b *testing.B) {
	tg := NewTagger(testAssets())
	for i := 0; i < b.N; i++ {
		tg.Symbols("Apple (NASDAQ: AAPL) prices $5 billion of senior notes; $MSFT slips",
			"Microsoft, Nvidia and Tesla led the market while Target and Gap lagged.")
	}
}

// ---------------------------------------------------------------------------------------------------
// sentiment

func TestSentiment(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text  string
		label string
	}{
		{"Apple beats estimates, shares surge to a record high", Bullish},
		{"Tesla misses estimates; shares plunge", Bearish},
		{"Company reports quarterly results on Thursday", Neutral},
		{"Nvidia upgraded to Outperform at Mizuho, price target raised", Bullish},
		{"Hanesbrands downgraded to Neutral from Outperform", Bearish},
		{"Intelsat cut to Sell at Raymond James", Bearish},
		{"Coverage initiated at Buy", Bullish},
		{"Rival agrees to buy the unit", Neutral},
		{"Fertility rate hits record low", Bearish},
		{"Net loss narrows as sales rebound", Bullish},
		{"$XYZ -4.5% after the bell", Bearish},
		{"$XYZ +3.2% premarket", Bullish},
		{"Shares of the retailer fell after layoffs and a lawsuit", Bearish},
	}
	for _, c := range cases {
		score, label := Sentiment(c.text)
		if label != c.label {
			t.Errorf("Sentiment(%q) = %.2f %s, want %s", c.text, score, label, c.label)
		}
		if score < -1 || score > 1 {
			t.Errorf("Sentiment(%q) = %v out of [-1, 1]", c.text, score)
		}
	}
	if s, l := Sentiment(""); s != 0 || l != Neutral {
		t.Errorf("empty text: %v %s", s, l)
	}
	if s, _ := Sentiment("Apple beats estimates"); s != 1 {
		t.Errorf("one positive word: score %v, want 1", s)
	}
	// pos 2, neg 1: (2-1)/3
	if s, _ := Sentiment("Sales beat, margins surge, costs miss"); fmt.Sprintf("%.4f", s) != "0.3333" {
		t.Errorf("score %v, want 1/3", s)
	}
}

func TestSentimentNegation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		text string
		want string
	}{
		{"Revenue grew", Bullish},
		{"Revenue did not grow", Bearish},
		{"Revenue didn't grow", Bearish},
		{"No growth in sight", Bearish},
		{"The unit was never profitable", Bearish},
		{"Shares did not fall", Bullish},
		{"No slowdown seen", Bullish},
		{"Not a surprise to anyone: shares rise", Bullish}, // "not" is more than two words before "rise"
	}
	for _, c := range cases {
		if s, l := Sentiment(c.text); l != c.want {
			t.Errorf("Sentiment(%q) = %.2f %s, want %s", c.text, s, l, c.want)
		}
	}
}

func TestSentimentWordLists(t *testing.T) {
	t.Parallel()
	if len(positiveWords) < 80 || len(positiveWords) > 160 || len(negativeWords) < 80 || len(negativeWords) > 160 {
		t.Errorf("word lists: %d positive, %d negative; want about 80-150 each", len(positiveWords), len(negativeWords))
	}
	for w := range positiveWords {
		if negativeWords[w] {
			t.Errorf("%q is in both lists", w)
		}
	}
	for _, w := range []string{"beats", "surged", "rallying", "upgraded", "raises", "jumps", "soars", "outperforms"} {
		if wordSign(w) != 1 {
			t.Errorf("%q is not positive", w)
		}
	}
	for _, w := range []string{"misses", "plunged", "slipped", "downgrades", "layoffs", "worries", "cuts", "slashed", "sued"} {
		if wordSign(w) != -1 {
			t.Errorf("%q is not negative", w)
		}
	}
	t.Logf("word lists: %d positive, %d negative", len(positiveWords), len(negativeWords))
}

// dataFile reads a file of the shared data folder (SHARIAH_DATA_DIR, else ../../../shared/data from
// this package), skipping the test when it is absent: the data lives beside the project.
func dataFile(t *testing.T, rel string) []byte {
	t.Helper()
	dir := os.Getenv("SHARIAH_DATA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared data folder %s is absent (set SHARIAH_DATA_DIR to run the sentiment check on real labelled headlines)", dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Skipf("data file %s is absent: %v", rel, err)
	}
	return b
}

// TestSentimentLabelledHeadlines measures Sentiment on the validation split of the Twitter financial
// news sentiment data set (labels 0 bearish, 1 bullish, 2 neutral). The word lists were written for
// market news in general and checked on the training split only.
func TestSentimentLabelledHeadlines(t *testing.T) {
	t.Parallel()
	b := dataFile(t, filepath.Join("news", "twitter-financial-news-sentiment", "sent_valid.csv"))
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 2 || recs[0][0] != "text" || recs[0][1] != "label" {
		t.Fatalf("unexpected header %v", recs[0])
	}
	labels := map[string]string{"0": Bearish, "1": Bullish, "2": Neutral}
	counts := map[string]int{}
	total, correct := 0, 0
	bbTotal, bbCovered, bbAgree := 0, 0, 0
	for _, r := range recs[1:] {
		want, ok := labels[strings.TrimSpace(r[1])]
		if !ok {
			t.Fatalf("unknown label %q", r[1])
		}
		_, got := Sentiment(r[0])
		total++
		counts[want]++
		if got == want {
			correct++
		}
		if want != Neutral {
			bbTotal++
			if got != Neutral {
				bbCovered++
				if got == want {
					bbAgree++
				}
			}
		}
	}
	majority := 0
	for _, n := range counts {
		majority = max(majority, n)
	}
	bbMajority := max(counts[Bullish], counts[Bearish])
	acc := float64(correct) / float64(total)
	agree := float64(bbAgree) / float64(max(1, bbCovered))
	t.Logf("%d headlines (%d bearish, %d bullish, %d neutral)", total, counts[Bearish], counts[Bullish], counts[Neutral])
	t.Logf("3-class accuracy %.1f%% (%d/%d); majority-class baseline %.1f%%", 100*acc, correct, total, 100*float64(majority)/float64(total))
	t.Logf("bullish/bearish headlines: %d of %d given a non-neutral label (%.1f%%); sign agrees on %d (%.1f%%); majority-class baseline %.1f%%",
		bbCovered, bbTotal, 100*float64(bbCovered)/float64(bbTotal), bbAgree, 100*agree, 100*float64(bbMajority)/float64(bbTotal))
	if agree <= 0.70 {
		t.Errorf("sign agreement %.1f%% on the bullish/bearish subset, want more than 70%%", 100*agree)
	}
	if agree <= float64(bbMajority)/float64(bbTotal) {
		t.Errorf("sign agreement %.1f%% does not beat the majority class (%.1f%%)", 100*agree, 100*float64(bbMajority)/float64(bbTotal))
	}
	if float64(bbCovered) < 0.3*float64(bbTotal) {
		t.Errorf("only %d of %d bullish/bearish headlines get a label: the word lists miss too much", bbCovered, bbTotal)
	}
}

// ---------------------------------------------------------------------------------------------------
// relevance

func TestRelevance(t *testing.T) {
	t.Parallel()
	cases := []struct {
		title, summary string
		level, reason  string
	}{
		{"Tesla announces $1.5 billion senior notes offering", "", "high", "debt issuance: 'senior notes offering'"},
		{"Apple prices $5 billion of senior notes", "", "high", "debt issuance: 'prices $5 billion of senior notes'"},
		{"Acme enters into $2 billion revolving credit facility", "", "high", "debt issuance: 'revolving credit facility'"},
		{"Acme signs term loan with banks", "", "high", "debt issuance: 'term loan'"},
		{"Acme borrows $300 million", "", "high", "debt issuance: 'borrows'"},
		{"Acme to issue convertible notes", "", "high", "debt issuance: 'issue convertible notes'"},
		{"Microsoft to acquire Activision for $68.7 billion", "", "high", "mergers and acquisitions: 'acquire'"},
		{"Rivals agree on merger", "", "high", "mergers and acquisitions: 'merger'"},
		{"Private equity buyout of retailer", "", "high", "mergers and acquisitions: 'buyout'"},
		{"Hostile takeover bid", "", "high", "mergers and acquisitions: 'takeover'"},
		{"Party City files for Chapter 11 bankruptcy", "", "high", "material event: 'chapter 11'"},
		{"Auditor raises going concern doubt", "", "high", "material event: 'going concern'"},
		{"Lender defaults on bond payment", "", "high", "material event: 'defaults'"},
		{"Company announces restructuring plan", "", "high", "material event: 'restructuring'"},
		{"Company receives Nasdaq delisting notice", "", "high", "material event: 'delisting notice'"},
		{"Retailer faces SEC investigation", "", "high", "material event: 'sec investigation'"},
		{"Ford cuts quarterly dividend", "", "high", "dividend change: 'cuts quarterly dividend'"},
		{"Board suspends dividend", "", "high", "dividend change: 'suspends dividend'"},
		{"Costco declares special dividend", "", "high", "dividend change: 'special dividend'"},
		{"Utility announces dividend increase", "", "high", "dividend change: 'dividend increase'"},
		{"Apple beats earnings estimates", "", "medium", "earnings: 'earnings'"},
		{"Retailer lowers full-year guidance", "", "medium", "guidance: 'guidance'"},
		{"Quarterly revenue rises 8%", "", "medium", "revenue: 'revenue'"},
		{"Goldman upgrades Nvidia to Buy", "", "medium", "rating change: 'upgrades'"},
		{"Board approves $10 billion share repurchase program", "", "medium", "share buyback: 'share repurchase'"},
		{"CEO steps down after 10 years", "", "medium", "management change: 'ceo steps down'"},
		{"Coca-Cola declares quarterly dividend", "", "medium", "dividend: 'dividend'"},
		{"Stocks rally on Fed hopes", "", "low", ""},
		{"Nothing here", "Plain text about the weather.", "low", ""},
		// the summary counts; several groups at one level are all named
		{"Acme agrees deal", "Acme will acquire Widgets and fund it with a term loan.", "high",
			"debt issuance: 'term loan'; mergers and acquisitions: 'acquire'"},
		// a higher group wins over a medium one
		{"Acme beats earnings, announces senior notes offering", "", "high", "debt issuance: 'senior notes offering'"},
	}
	for _, c := range cases {
		level, reason := Relevance(c.title, c.summary)
		if level != c.level || c.reason != "" && reason != c.reason {
			t.Errorf("Relevance(%q, %q) = %s %q, want %s %q", c.title, c.summary, level, reason, c.level, c.reason)
		}
		if reason == "" {
			t.Errorf("Relevance(%q): empty reason", c.title)
		}
	}
}

func TestRelevanceFor8K(t *testing.T) {
	t.Parallel()
	cases := []struct {
		items         []string
		level, reason string
	}{
		{[]string{"1.01", "9.01"}, "high", "8-K item 1.01 (entry into a material definitive agreement)"},
		{[]string{"Item 1.03"}, "high", "8-K item 1.03 (bankruptcy or receivership)"},
		{[]string{"2.01,9.01"}, "high", "8-K item 2.01 (completion of acquisition or disposition of assets)"},
		{[]string{"2.03", "2.04"}, "high", "8-K items 2.03 (creation of a direct financial obligation), 2.04 (triggering events that accelerate or increase a direct financial obligation)"},
		{[]string{"3.01"}, "high", "8-K item 3.01 (notice of delisting or failure to satisfy a continued listing rule)"},
		{[]string{"4.02", "2.02"}, "high", "8-K item 4.02 (non-reliance on previously issued financial statements)"},
		{[]string{"2.02", "9.01"}, "medium", "8-K item 2.02 (results of operations and financial condition)"},
		{[]string{"5.02"}, "medium", "8-K item 5.02 (departure or appointment of directors or certain officers)"},
		{[]string{"7.01", "8.01"}, "medium", "8-K items 7.01 (regulation FD disclosure), 8.01 (other events)"},
		{[]string{"5.07"}, "low", "8-K item 5.07 (submission of matters to a vote of security holders)"},
		{[]string{"9.01", "5.03"}, "low", "8-K items 5.03 (amendments to articles of incorporation or bylaws; change in fiscal year), 9.01 (financial statements and exhibits)"},
		{nil, "low", "8-K without item codes"},
		{[]string{"bogus"}, "low", "8-K without item codes"},
	}
	for _, c := range cases {
		level, reason := RelevanceFor8K(c.items)
		if level != c.level || reason != c.reason {
			t.Errorf("RelevanceFor8K(%q) = %s %q, want %s %q", c.items, level, reason, c.level, c.reason)
		}
	}
}

// ---------------------------------------------------------------------------------------------------
// enrichment

func TestEnrichFixtures(t *testing.T) {
	t.Parallel()
	tg := NewTagger(testAssets())
	all := append(parseFixture(t, "rss.xml"), parseFixture(t, "atom.xml")...)
	for i := range all {
		Enrich(&all[i], tg)
	}
	type want struct {
		symbols  []string
		label    string
		level    string
		category string
	}
	cases := map[string]want{
		"Apple prices":     {[]string{"AAPL"}, "", "high", "markets"}, // the feed's category is kept
		"$TSLA":            {[]string{"TSLA"}, Bullish, "medium", "earnings"},
		"Target cuts":      {[]string{"TGT"}, Bearish, "medium", "guidance"},
		"NVIDIA raises":    {[]string{"NVDA"}, Bullish, "high", "dividends"},
		"Berkshire adds":   {[]string{"BRK-A", "BRK-B"}, "", "low", ""},
		"Party City files": {nil, Bearish, "high", "bankruptcy"},
	}
	seen := 0
	for _, a := range all {
		for prefix, w := range cases {
			if !strings.HasPrefix(a.Title, prefix) {
				continue
			}
			seen++
			if !reflect.DeepEqual(a.Symbols, w.symbols) {
				t.Errorf("%q: symbols %v, want %v", a.Title, a.Symbols, w.symbols)
			}
			if w.label != "" && a.SentimentLabel != w.label {
				t.Errorf("%q: sentiment %.2f %s, want %s", a.Title, a.Sentiment, a.SentimentLabel, w.label)
			}
			if a.ComplianceRelevance != w.level || a.RelevanceReason == "" {
				t.Errorf("%q: relevance %s (%s), want %s", a.Title, a.ComplianceRelevance, a.RelevanceReason, w.level)
			}
			if a.Category != w.category {
				t.Errorf("%q: category %q, want %q", a.Title, a.Category, w.category)
			}
			t.Logf("%-55.55s %-12v %-7s %+.2f %-6s %s", a.Title, a.Symbols, a.SentimentLabel, a.Sentiment, a.ComplianceRelevance, a.RelevanceReason)
		}
	}
	if seen != len(cases) {
		t.Errorf("matched %d fixture articles, want %d", seen, len(cases))
	}
	// Symbols the article already carries (a per-symbol feed) are kept.
	a := filings.Article{Title: "Microsoft rallies", Symbols: []string{"ZZZ"}}
	Enrich(&a, tg)
	if !reflect.DeepEqual(a.Symbols, []string{"MSFT", "ZZZ"}) || a.TitleKey != "microsoft rallies" {
		t.Errorf("symbols %v title key %q", a.Symbols, a.TitleKey)
	}
	Enrich(nil, tg) // no panic
	b := filings.Article{Title: "Acme borrows"}
	Enrich(&b, nil)
	if b.Symbols != nil || b.ComplianceRelevance != "high" || b.Category != "debt" {
		t.Errorf("nil tagger: %+v", b)
	}
}
