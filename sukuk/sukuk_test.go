package sukuk_test

import (
	"encoding/json"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/rules"
	"github.com/shariah-screen/shariah/sukuk"
)

func TestISINCheckDigits(t *testing.T) {
	t.Parallel()
	// real ISINs (Apple, BAE Systems, a Treasury note, the ISO example with letters in the body, a
	// Eurobond-market XS code): each check digit verifies
	for _, s := range []string{"US0378331005", "GB0002634946", "US912828R366", "AU0000XVGZA3", "XS2010030133"} {
		if !shariah.ValidISIN(s) {
			t.Errorf("%s should be valid", s)
		}
		if got, ok := sukuk.NormalizeISIN("  " + strings.ToLower(s) + " "); !ok || got != s {
			t.Errorf("normalize %s: %q %v", s, got, ok)
		}
	}
	for _, s := range []string{"US0378331006", "US0378331015", "GB0002634947", "XS2010030134", "AU0000XVGZA4",
		"US037833100", "US03783310055", "1S0378331005", "US03783310O5", "us0378331005", ""} {
		if shariah.ValidISIN(s) {
			t.Errorf("%s should be invalid", s)
		}
	}
}

func TestLEICheckDigits(t *testing.T) {
	t.Parallel()
	// Bloomberg Finance L.P. and Apple Inc.
	for _, s := range []string{"5493001KJTIIGC8Y1R12", "HWUPKR0MPOU8FGXBT394"} {
		if !sukuk.ValidLEI(s) {
			t.Errorf("%s should be valid", s)
		}
		if got, ok := sukuk.NormalizeLEI(" " + strings.ToLower(s)); !ok || got != s {
			t.Errorf("normalize %s: %q %v", s, got, ok)
		}
	}
	for _, s := range []string{"5493001KJTIIGC8Y1R13", "5493001KJTIIGC8Y1R21", "HWUPKR0MPOU8FGXBT349", "HWUPKR0MPOU8FGXBU394",
		"HWUPKR0MPOU8FGXBT39", "HWUPKR0MPOU8FGXBT3944", "HWUPKR0MPOU8FGXBT3A4", "5493001KJTIIGC8Y1R1-", ""} {
		if sukuk.ValidLEI(s) {
			t.Errorf("%s should be invalid", s)
		}
	}
}

func sukukRules(t *testing.T) *sukuk.Rules {
	t.Helper()
	r, err := rules.Sukuk()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func bp(b bool) *bool { return &b }

func ratio(s string) *shariah.Number { n := shariah.NewNumber(dec(s)); return &n }

// sk builds an instrument: structure, title, undertaking, guarantee ("" unknown, "y", "n"), return type,
// tangible ratio ("" unknown).
func sk(structure, title, undertaking, guarantee, ret, tangible string) sukuk.Sukuk {
	s := sukuk.Sukuk{ISIN: "US0378331005", Structure: structure, TitleType: title, PurchaseUndertaking: undertaking, ReturnType: ret}
	switch guarantee {
	case "y":
		s.Guarantee = bp(true)
	case "n":
		s.Guarantee = bp(false)
	}
	if tangible != "" {
		s.TangibleAssetRatio = ratio(tangible)
	}
	return s
}

func TestSukukDispositions(t *testing.T) {
	t.Parallel()
	r := sukukRules(t)
	const (
		C = sukuk.Compliant
		Q = sukuk.Questionable
		N = sukuk.NonCompliant
		I = sukuk.InsufficientData
	)
	cases := []struct {
		name              string
		s                 sukuk.Sukuk
		pre, post         string
		preRule, postRule string
		missingPre        []string
		missingPost       []string
	}{
		// the disposition table of rules/sukuk, row by row
		{"asset-backed (true sale, legal title)", sk("asset-backed", "legal", "", "", "", ""), C, C, "ss17-asset-backed", "ss62-asset-backed", nil, nil},
		{"ijarah asset-based, undertaking at par", sk("ijarah", "beneficial", "par", "", "", ""), C, Q, "ss17-ijarah", "ss62-ijarah-par-undertaking", nil, nil},
		{"ijarah legal title, undertaking at par", sk("ijarah", "legal", "par", "n", "", ""), C, Q, "ss17-ijarah", "ss62-ijarah-par-undertaking", nil, nil},
		{"ijarah legal title, undertaking at market", sk("ijarah", "legal", "market", "", "", ""), C, C, "ss17-ijarah", "ss62-ijarah-legal-title", nil, nil},
		{"murabaha", sk("murabaha", "", "", "", "", ""), C, C, "ss17-murabaha", "ss62-murabaha", nil, nil},
		{"wakala, undertaking at par, tangible above threshold", sk("wakala", "", "par", "n", "", "0.6"), C, Q, "ss17-wakala-hybrid", "ss62-wakala-par-undertaking", nil, nil},
		{"wakala, guarantee, no par undertaking", sk("wakala", "", "market", "y", "", "0.6"), C, Q, "ss17-wakala-hybrid", "ss62-wakala-guarantee", nil, nil},
		{"wakala without par undertaking and guarantee", sk("wakala", "", "none", "n", "", "0.6"), C, C, "ss17-wakala-hybrid", "ss62-wakala-hybrid", nil, nil},
		{"wakala at the 51% threshold", sk("wakala", "", "market", "n", "", "0.51"), C, C, "ss17-wakala-hybrid", "ss62-wakala-hybrid", nil, nil},
		{"wakala just below the threshold", sk("wakala", "", "market", "n", "", "0.5099"), N, N, "ss17-tangible-below-threshold", "ss62-tangible-below-threshold", nil, nil},
		{"wakala below the threshold with par undertaking", sk("wakala", "", "par", "y", "", "0.3"), N, N, "ss17-tangible-below-threshold", "ss62-tangible-below-threshold", nil, nil},
		{"mudarabah fixed return", sk("mudarabah", "", "par", "y", "fixed", ""), C, N, "ss17-mudarabah-musharakah", "ss62-profit-sharing-fixed-return", nil, nil},
		{"musharakah fixed return", sk("musharakah", "legal", "market", "n", "fixed", ""), C, N, "ss17-mudarabah-musharakah", "ss62-profit-sharing-fixed-return", nil, nil},
		{"mudarabah variable return", sk("mudarabah", "", "market", "n", "variable", ""), C, C, "ss17-mudarabah-musharakah", "ss62-profit-sharing", nil, nil},
		// choices documented in the files' notes
		{"ijarah legal title, no undertaking", sk("ijarah", "legal", "none", "", "", ""), C, C, "ss17-ijarah", "ss62-ijarah-legal-title", nil, nil},
		{"ijarah beneficial title, undertaking at market", sk("ijarah", "beneficial", "market", "", "", ""), C, Q, "ss17-ijarah", "ss62-ijarah-beneficial-title", nil, nil},
		{"musharakah profit-sharing, undertaking at par", sk("musharakah", "", "par", "n", "profit-sharing", ""), C, Q, "ss17-mudarabah-musharakah", "ss62-profit-sharing-par-undertaking", nil, nil},
		{"mudarabah variable, guarantee", sk("mudarabah", "", "none", "y", "variable", ""), C, Q, "ss17-mudarabah-musharakah", "ss62-profit-sharing-guarantee", nil, nil},
		{"hybrid above threshold, clean", sk("hybrid", "", "none", "n", "", "0.7"), C, C, "ss17-wakala-hybrid", "ss62-wakala-hybrid", nil, nil},
		{"hybrid above threshold, par undertaking", sk("hybrid", "", "par", "n", "", "0.7"), C, Q, "ss17-wakala-hybrid", "ss62-wakala-par-undertaking", nil, nil},
		{"hybrid below threshold", sk("hybrid", "", "none", "n", "", "0.4"), N, N, "ss17-tangible-below-threshold", "ss62-tangible-below-threshold", nil, nil},
		// missing attributes: insufficient data naming them, nothing guessed
		{"nothing known", sukuk.Sukuk{}, I, I, "ss17-asset-backed", "ss62-asset-backed", []string{"structure"}, []string{"structure"}},
		{"ijarah, undertaking unknown", sk("ijarah", "legal", "", "", "", ""), C, I, "ss17-ijarah", "ss62-ijarah-par-undertaking", nil, []string{"purchase_undertaking"}},
		{"ijarah at market, title unknown", sk("ijarah", "", "market", "", "", ""), C, I, "ss17-ijarah", "ss62-ijarah-legal-title", nil, []string{"title_type"}},
		{"wakala, tangible ratio unknown", sk("wakala", "", "par", "n", "", ""), I, I, "ss17-tangible-below-threshold", "ss62-tangible-below-threshold", []string{"tangible_asset_ratio"}, []string{"tangible_asset_ratio"}},
		{"wakala, guarantee unknown", sk("wakala", "", "market", "", "", "0.8"), C, I, "ss17-wakala-hybrid", "ss62-wakala-guarantee", nil, []string{"guarantee"}},
		{"mudarabah, return unknown", sk("mudarabah", "", "none", "n", "", ""), C, I, "ss17-mudarabah-musharakah", "ss62-profit-sharing-fixed-return", nil, []string{"return_type"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pre, post, grid := r.Dispose(c.s)
			check := func(what string, d sukuk.Disposition, std, status, rule string, missing []string) {
				t.Helper()
				if missing == nil {
					missing = []string{}
				}
				if d.Standard != std || d.Status != status || d.RuleID != rule || !reflect.DeepEqual(d.Missing, missing) || len(d.Reasons) == 0 {
					t.Errorf("%s: got %+v, want %s %s %v", what, d, status, rule, missing)
				}
			}
			check("pre", pre, "aaoifi-ss17-era", c.pre, c.preRule, c.missingPre)
			check("post", post, "aaoifi-ss62-draft", c.post, c.postRule, c.missingPost)
			if len(grid) != 6 || grid[0].Methodology != "aaoifi" || grid[0].Status != pre.Status || grid[0].Standard != "aaoifi-ss17-era" {
				t.Errorf("grid %+v", grid)
			}
			for _, g := range grid[1:] {
				if g.Status != sukuk.NotCovered || g.Basis == "" {
					t.Errorf("grid %+v", g)
				}
			}
		})
	}
	// the reason cites the standard and the methodology table
	pre, post, _ := r.Dispose(sk("ijarah", "beneficial", "par", "", "", ""))
	if !strings.Contains(pre.Reasons[0], "SS17") || !strings.Contains(post.Reasons[0], "Standard 62") ||
		!strings.Contains(post.Reasons[0], "methodology.md") {
		t.Errorf("reasons %q %q", pre.Reasons, post.Reasons)
	}
	if b, _ := json.Marshal(post); !strings.Contains(string(b), `"missing_attributes":[]`) || !strings.Contains(string(b), `"rule_id":"ss62-ijarah-par-undertaking"`) {
		t.Errorf("%s", b)
	}
}

func TestSukukRulesValidation(t *testing.T) {
	t.Parallel()
	base := fstest.MapFS{}
	names, _ := fs.Glob(rules.SukukFS, "*.json")
	for _, n := range names {
		b, _ := fs.ReadFile(rules.SukukFS, n)
		base[n] = &fstest.MapFile{Data: b}
	}
	if _, err := sukuk.LoadRules(base); err != nil {
		t.Fatalf("the embedded files: %v", err)
	}
	edit := func(file, old, new string) fstest.MapFS {
		out := fstest.MapFS{}
		for n, f := range base {
			out[n] = f
		}
		s := string(base[file].Data)
		if !strings.Contains(s, old) {
			t.Fatalf("%s has no %q", file, old)
		}
		out[file] = &fstest.MapFile{Data: []byte(strings.Replace(s, old, new, 1))}
		return out
	}
	cases := map[string]fstest.MapFS{
		"unknown structure":          edit("aaoifi-ss17-era.json", `{"structure": ["murabaha"]}`, `{"structure": ["murabahah"]}`),
		"unknown condition":          edit("aaoifi-ss17-era.json", `{"structure": ["murabaha"]}`, `{"structure": ["murabaha"], "colour": "green"}`),
		"unknown required attribute": edit("aaoifi-ss17-era.json", `"requires": ["structure"]`, `"requires": ["structure", "rating"]`),
		"unknown disposition":        edit("aaoifi-ss17-era.json", `"disposition": "compliant"`, `"disposition": "halal"`),
		"condition not required":     edit("aaoifi-ss62-draft.json", `"requires": ["structure", "guarantee"]`, `"requires": ["structure"]`),
		"a structure left undecided": edit("aaoifi-ss17-era.json", `{"structure": ["murabaha"]}`, `{"structure": ["ijarah"]}`),
		"unknown grid standard":      edit("grid.json", `"standard": "aaoifi-ss17-era"`, `"standard": "aaoifi-ss99"`),
		"unknown grid treatment":     edit("grid.json", `"treatment": "not_covered"`, `"treatment": "maybe"`),
		"two pre-62 standards":       edit("aaoifi-ss62-draft.json", `"scenario": "post-62"`, `"scenario": "pre-62"`),
	}
	for name, fsys := range cases {
		if _, err := sukuk.LoadRules(fsys); err == nil {
			t.Errorf("%s: loaded", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

func TestSukukRecordValidate(t *testing.T) {
	t.Parallel()
	good := sukuk.Sukuk{ISIN: " xs2010030133 ", IssuerLEI: "hwupkr0mpou8fgxbt394", Structure: "Ijarah", TitleType: "LEGAL",
		PurchaseUndertaking: "market", ReturnType: "fixed", Currency: "usd", IssueDate: "2019-07-01", MaturityDate: "2029-07-01",
		CouponRate: ratio("3.5"), TangibleAssetRatio: ratio("1"), Guarantee: bp(false)}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	if good.ISIN != "XS2010030133" || good.IssuerLEI != "HWUPKR0MPOU8FGXBT394" || good.Structure != "ijarah" || good.TitleType != "legal" || good.Currency != "USD" {
		t.Errorf("normalized %+v", good)
	}
	bad := sukuk.Sukuk{ISIN: "XS2010030134", IssuerLEI: "HWUPKR0MPOU8FGXBT349", Structure: "bond", ReturnType: "floating",
		TitleType: "equitable", PurchaseUndertaking: "face", IssueDate: "2019-13-01", MaturityDate: "2029-07-01",
		TangibleAssetRatio: ratio("1.5"), CouponRate: ratio("-1")}
	err := bad.Validate()
	if err == nil {
		t.Fatal("bad record validated")
	}
	for _, want := range []string{"isin", "issuer_lei", "structure", "return_type", "title_type", "purchase_undertaking", "issue_date", "tangible_asset_ratio", "coupon_rate"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	early := sukuk.Sukuk{ISIN: "XS2010030133", IssueDate: "2020-01-01", MaturityDate: "2019-01-01"}
	if err := early.Validate(); err == nil {
		t.Error("maturity before issue validated")
	}
	// JSON: snake_case, numbers as numbers, unknown pointers omitted
	var back sukuk.Sukuk
	b, _ := json.Marshal(good)
	if err := json.Unmarshal(b, &back); err != nil || !strings.Contains(string(b), `"coupon_rate":3.5`) ||
		!strings.Contains(string(b), `"purchase_undertaking":"market"`) || !strings.Contains(string(b), `"guarantee":false`) ||
		strings.Contains(string(b), `"amount"`) {
		t.Errorf("%s %v", b, err)
	}
}

func TestSukukSearch(t *testing.T) {
	t.Parallel()
	all := []sukuk.Sukuk{
		{ISIN: "XS0000000005", Issuer: "Sharjah Sukuk Programme", Country: "AE", Structure: "wakala", DocumentationBasis: "AAOIFI", Currency: "USD", MaturityDate: "2031-03-01"},
		{ISIN: "XS0000000004", Issuer: "Saudi Electricity Sukuk", Country: "SA", Structure: "ijarah", DocumentationBasis: "AAOIFI", Currency: "USD", MaturityDate: "2028-06-01"},
		{ISIN: "XS0000000003", Issuer: "Perusahaan Penerbit SBSN", Country: "ID", Structure: "wakala", DocumentationBasis: "local", Currency: "USD", MaturityDate: "2028-06-01"},
		{ISIN: "XS0000000002", Issuer: "Sharjah Islamic Bank", Country: "AE", Structure: "mudarabah", DocumentationBasis: "IIFM", Currency: "AED", MaturityDate: "2026-01-15"},
		{ISIN: "XS0000000001", Issuer: "Unknown maturity sukuk", Country: "AE", Structure: "wakala", Currency: "USD"},
	}
	isins := func(ss []sukuk.Sukuk) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.ISIN[10:])
		}
		return strings.Join(out, ",")
	}
	cases := []struct {
		q     sukuk.Query
		want  string
		total int
	}{
		{sukuk.Query{}, "02,03,04,05,01", 5}, // maturity then ISIN; unknown maturity last
		{sukuk.Query{Issuer: "sharjah"}, "02,05", 2},
		{sukuk.Query{Country: "ae", Structure: "WAKALA"}, "05,01", 2},
		{sukuk.Query{DocumentationBasis: "aaoifi"}, "04,05", 2},
		{sukuk.Query{DocumentationBasis: "aaoi"}, "", 0}, // exact, not substring
		{sukuk.Query{Currency: "usd", MaturityFrom: "2028-06-01", MaturityTo: "2031-03-01"}, "03,04,05", 3},
		{sukuk.Query{MaturityTo: "2028-05-31"}, "02", 1},
		{sukuk.Query{Limit: 2}, "02,03", 5},
		{sukuk.Query{Limit: 2, Offset: 2}, "04,05", 5},
		{sukuk.Query{Limit: 2, Offset: 4}, "01", 5},
		{sukuk.Query{Offset: 9}, "", 5},
	}
	for _, c := range cases {
		got, total := sukuk.Search(all, c.q)
		if isins(got) != c.want || total != c.total || got == nil {
			t.Errorf("%+v: got %s (%d), want %s (%d)", c.q, isins(got), total, c.want, c.total)
		}
	}
}

func TestSukukQueryValidation(t *testing.T) {
	t.Parallel()
	q := sukuk.Query{Structure: " Wakala "}
	if err := q.Validate(); err != nil || q.Limit != 100 || q.Structure != "wakala" {
		t.Errorf("defaults: %v %+v", err, q)
	}
	q = sukuk.Query{Limit: 500, MaturityFrom: "2026-01-01", MaturityTo: "2026-01-01"}
	if err := q.Validate(); err != nil {
		t.Error(err)
	}
	cases := []struct {
		q   sukuk.Query
		typ string
		loc []any
	}{
		{sukuk.Query{Limit: 501}, "value_error.number.not_le", []any{"query", "limit"}},
		{sukuk.Query{Limit: -1}, "value_error.number.not_ge", []any{"query", "limit"}},
		{sukuk.Query{Offset: -1}, "value_error.number.not_ge", []any{"query", "offset"}},
		{sukuk.Query{Structure: "bond"}, "value_error.enum", []any{"query", "structure"}},
		{sukuk.Query{MaturityFrom: "2026-02-30"}, "value_error.date", []any{"query", "maturity_from"}},
		{sukuk.Query{MaturityTo: "01/01/2030"}, "value_error.date", []any{"query", "maturity_to"}},
		{sukuk.Query{MaturityFrom: "2030-01-01", MaturityTo: "2029-01-01"}, "value_error.date_range", []any{"query", "maturity_to"}},
	}
	for _, c := range cases {
		if errs := fieldErrors(t, c.q.Validate()); !hasFieldError(errs, c.typ, c.loc...) {
			t.Errorf("%+v: want %s at %v, got %+v", c.q, c.typ, c.loc, errs)
		}
	}
}

func TestSukukImpactValidation(t *testing.T) {
	t.Parallel()
	many := make([]sukuk.Holding, sukuk.MaxHoldings+1)
	for i := range many {
		many[i] = sukuk.Holding{ISIN: "US0378331005", Nominal: decp("1")}
	}
	cases := []struct {
		name string
		req  sukuk.ImpactRequest
		typ  string
		loc  []any
	}{
		{"no holdings", sukuk.ImpactRequest{}, "value_error.list.min_items", []any{"body", "holdings"}},
		{"too many holdings", sukuk.ImpactRequest{Holdings: many}, "value_error.list.max_items", []any{"body", "holdings"}},
		{"check digit", sukuk.ImpactRequest{Holdings: []sukuk.Holding{{ISIN: "US0378331005", Nominal: decp("1")}, {ISIN: "US0378331006", Nominal: decp("1")}}},
			"value_error.isin", []any{"body", "holdings", 1, "isin"}},
		{"negative nominal", sukuk.ImpactRequest{Holdings: []sukuk.Holding{{ISIN: "US0378331005", Nominal: decp("-1")}}},
			"value_error.number.not_ge", []any{"body", "holdings", 0, "nominal"}},
		{"negative market value", sukuk.ImpactRequest{Holdings: []sukuk.Holding{{ISIN: "US0378331005", MarketValue: decp("-0.01")}}},
			"value_error.number.not_ge", []any{"body", "holdings", 0, "market_value"}},
		{"neither value", sukuk.ImpactRequest{Holdings: []sukuk.Holding{{ISIN: "US0378331005"}}},
			"value_error.missing", []any{"body", "holdings", 0}},
		{"both values", sukuk.ImpactRequest{Holdings: []sukuk.Holding{{ISIN: "US0378331005", Nominal: decp("1"), MarketValue: decp("1")}}},
			"value_error.exclusive", []any{"body", "holdings", 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if errs := fieldErrors(t, c.req.Validate()); !hasFieldError(errs, c.typ, c.loc...) {
				t.Errorf("want %s at %v, got %+v", c.typ, c.loc, errs)
			}
		})
	}
	var req sukuk.ImpactRequest
	if err := json.Unmarshal([]byte(`{"holdings":[{"isin":" us0378331005 ","market_value":"12.5"}]}`), &req); err != nil {
		t.Fatal(err)
	}
	if err := req.Validate(); err != nil || req.Holdings[0].ISIN != "US0378331005" || !req.Holdings[0].Value().Equal(dec("12.5")) {
		t.Errorf("%v %+v", err, req)
	}
}

func TestSukukPortfolioImpact(t *testing.T) {
	t.Parallel()
	r := sukukRules(t)
	lookup := map[string]sukuk.Sukuk{}
	add := func(isin, name string, s sukuk.Sukuk) {
		s.ISIN, s.Name = isin, name
		lookup[isin] = s
	}
	add("US0378331005", "Ijarah at par", sk("ijarah", "beneficial", "par", "", "", ""))   // C -> Q
	add("GB0002634946", "Murabaha", sk("murabaha", "", "", "", "", ""))                   // C -> C
	add("XS2010030133", "Mudarabah fixed", sk("mudarabah", "", "none", "n", "fixed", "")) // C -> N
	add("US912828R366", "Wakala, ratio unknown", sk("wakala", "", "none", "n", "", ""))   // I -> I

	// sleeve of 100 + 200 + 700 = 1000, and an ISIN with no record
	im := r.PortfolioImpact([]sukuk.Holding{
		{ISIN: "US0378331005", MarketValue: decp("100")},
		{ISIN: "GB0002634946", Nominal: decp("200")},
		{ISIN: "AU0000XVGZA3", Nominal: decp("5000")},
		{ISIN: "XS2010030133", MarketValue: decp("700.00")},
	}, lookup)
	if !reflect.DeepEqual(im.NotFound, []string{"AU0000XVGZA3"}) || len(im.Instruments) != 3 || im.Changes != 2 {
		t.Fatalf("%+v", im)
	}
	it := im.Instruments[0]
	if it.ISIN != "US0378331005" || it.Name != "Ijarah at par" || it.Pre != "compliant" || it.Post != "questionable" || !it.Changes {
		t.Errorf("%+v", it)
	}
	if im.Instruments[1].Changes || im.Instruments[2].Post != "non_compliant" {
		t.Errorf("%+v", im.Instruments)
	}
	wantDec(t, "value at stake", im.ValueAtStake, "800") // 100 + 700: compliant before, not after
	wantDec(t, "pre total", im.Pre.TotalValue, "1000")
	wantDec(t, "post total", im.Post.TotalValue, "1000")
	bucket := func(what string, b sukuk.Bucket, count int, value, share, percent string) {
		t.Helper()
		if b.Count != count {
			t.Errorf("%s count %d, want %d", what, b.Count, count)
		}
		wantDec(t, what+" value", b.Value, value)
		wantDec(t, what+" share", b.Share, share)
		wantDec(t, what+" percent", b.Percent, percent)
	}
	bucket("pre compliant", im.Pre.Compliant, 3, "1000", "1", "100")
	bucket("pre questionable", im.Pre.Questionable, 0, "0", "0", "0")
	bucket("post compliant", im.Post.Compliant, 1, "200", "0.2", "20")
	bucket("post questionable", im.Post.Questionable, 1, "100", "0.1", "10")
	bucket("post non-compliant", im.Post.NonCompliant, 1, "700", "0.7", "70")
	bucket("post insufficient", im.Post.InsufficientData, 0, "0", "0", "0")
	if im.Pre.Standard != "aaoifi-ss17-era" || im.Post.Standard != "aaoifi-ss62-draft" {
		t.Errorf("%s %s", im.Pre.Standard, im.Post.Standard)
	}

	// rounding at the end: 100 compliant + 200 insufficient = 1/3 and 2/3
	im = r.PortfolioImpact([]sukuk.Holding{
		{ISIN: "GB0002634946", Nominal: decp("100")},
		{ISIN: "US912828R366", MarketValue: decp("200")},
	}, lookup)
	bucket("1/3 compliant", im.Post.Compliant, 1, "100", "0.3333", "33.33")
	bucket("2/3 insufficient", im.Pre.InsufficientData, 1, "200", "0.6667", "66.67")
	wantDec(t, "no value at stake", im.ValueAtStake, "0")
	if im.Changes != 0 {
		t.Errorf("changes %d", im.Changes)
	}
	b, _ := json.Marshal(im)
	for _, want := range []string{`"not_found":[]`, `"value_at_stake":0`, `"share":0.3333`, `"percent":33.33`, `"insufficient_data":{"count":1`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}

	// all zero values: shares zero, no division by zero
	im = r.PortfolioImpact([]sukuk.Holding{{ISIN: "GB0002634946", Nominal: decp("0")}}, lookup)
	bucket("zero", im.Pre.Compliant, 1, "0", "0", "0")
}
