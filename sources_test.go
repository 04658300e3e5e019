package shariah_test

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/bulk"
	"github.com/shariah-screen/shariah/catalog"
	"github.com/shariah-screen/shariah/etf"
	"github.com/shariah-screen/shariah/screening"
)

// TestDataSources: a result is filed, illustrative or without fundamentals by its data quality; a
// company's stored periods likewise; portfolio and bulk summaries count them.
func TestDataSources(t *testing.T) {
	t.Parallel()
	res := func(illus bool, sources ...string) screening.Result {
		return screening.Result{DataQuality: screening.DataQuality{Illustrative: illus, Sources: sources}}
	}
	filed, illus, none := res(false, "filing", "history"), res(true, "filing", "illustrative"), res(false, "history")
	for _, c := range []struct {
		r    screening.Result
		want string
	}{{filed, shariah.DataFiled}, {illus, shariah.DataIllustrative}, {none, shariah.DataNoFundamentals}, {res(false, "live"), shariah.DataFiled}} {
		if got := screening.DataSourceOf(c.r); got != c.want {
			t.Errorf("DataSourceOf(%+v) = %s, want %s", c.r.DataQuality, got, c.want)
		}
	}
	fund := func(src string) []shariah.Fundamentals {
		return []shariah.Fundamentals{{Facts: map[shariah.Field]shariah.Fact{shariah.TotalAssets: {Source: src}}}}
	}
	if shariah.FundamentalsSourceOf(fund(shariah.SourceFiling)) != shariah.DataFiled ||
		shariah.FundamentalsSourceOf(fund(shariah.SourceIllustrative)) != shariah.DataIllustrative ||
		shariah.FundamentalsSourceOf(nil) != shariah.DataNoFundamentals {
		t.Error("FundamentalsSourceOf")
	}

	items := []screening.PortfolioItem{{Status: "COMPLIANT", DataSource: shariah.DataFiled}, {Status: "NON_COMPLIANT", DataSource: shariah.DataIllustrative},
		{Status: "QUESTIONABLE", DataSource: shariah.DataIllustrative}, {Status: "NOT_FOUND"}}
	if s := screening.SummarizePortfolio(items).DataSources; s != (shariah.SourceCounts{Filed: 1, Illustrative: 2}) {
		t.Errorf("portfolio sources %+v", s)
	}
	run := []bulk.Item{{Symbol: "A", Status: "COMPLIANT", Result: &filed}, {Symbol: "B", Status: "COMPLIANT", Result: &filed},
		{Symbol: "C", Status: "INSUFFICIENT_DATA", Result: &none}, {Symbol: "D", Status: "NON_COMPLIANT", Result: &illus},
		{Symbol: "E", Status: "ERROR", HasError: true}}
	if s := bulk.Summarize(run, nil).DataSources; s != (shariah.SourceCounts{Filed: 2, Illustrative: 1, NoFundamentals: 1}) {
		t.Errorf("run sources %+v", s)
	}
}

// TestCompanySources: share classes of one CIK (written with or without leading zeros) count once; a
// company counts as filed only when every listing is, as illustrative when any is; a symbol outside the
// catalog is its own company.
func TestCompanySources(t *testing.T) {
	t.Parallel()
	cat := catalog.New([]shariah.Asset{
		{Symbol: "GOOG", Type: shariah.Equity, CIK: "0001652044"}, {Symbol: "GOOGL", Type: shariah.Equity, CIK: "1652044"},
		{Symbol: "BRK-A", Type: shariah.Equity, CIK: "1067983"}, {Symbol: "BRK-B", Type: shariah.Equity, CIK: "0001067983"},
		{Symbol: "SAP.DE", Type: shariah.Equity}, {Symbol: "AAPL", Type: shariah.Equity, CIK: "320193"}})
	res := func(illus bool, sources ...string) *screening.Result {
		return &screening.Result{DataQuality: screening.DataQuality{Illustrative: illus, Sources: sources}}
	}
	filed, illus, none := res(false, "filing"), res(true, "illustrative"), res(false)
	run := []bulk.Item{{Symbol: "GOOG", Result: filed}, {Symbol: "GOOGL", Result: filed}, {Symbol: "BRK-A", Result: filed},
		{Symbol: "BRK-B", Result: illus}, {Symbol: "SAP.DE", Result: illus}, {Symbol: "AAPL", Result: filed}, {Symbol: "NEW", Result: none},
		{Symbol: "ERR", HasError: true}}
	s := bulk.Summarize(run, cat)
	if s.DataSources != (shariah.SourceCounts{Filed: 4, Illustrative: 2, NoFundamentals: 1}) {
		t.Errorf("results %+v", s.DataSources)
	}
	if s.CompanyDataSources != (shariah.SourceCounts{Filed: 2, Illustrative: 2, NoFundamentals: 1}) {
		t.Errorf("companies %+v", s.CompanyDataSources)
	}
	// Without a catalog every symbol is a company.
	if s := bulk.Summarize(run, nil); s.CompanyDataSources != s.DataSources {
		t.Errorf("no catalog: %+v vs %+v", s.CompanyDataSources, s.DataSources)
	}
	if got := s.DataSources.String(); got != "4 filed, 2 illustrative, 1 without fundamentals" {
		t.Errorf("String: %s", got)
	}
}

// TestETFDisposition: the disposition by verdict and weights. QUESTIONABLE is mostly_compliant only
// with more than half the weight compliant: HLAL's 25.3% compliant beside 48.7% unknown is questionable.
func TestETFDisposition(t *testing.T) {
	t.Parallel()
	pos, zero := shariah.NewNumber(decimal.RequireFromString("0.012")), shariah.NewNumber(decimal.Zero)
	for _, c := range []struct {
		status, compliant string
		rate              *shariah.Number
		want              string
	}{
		{"COMPLIANT", "96.00", &pos, "compliant_with_purification"}, {"COMPLIANT", "96.00", &zero, "compliant"}, {"COMPLIANT", "100.00", nil, "compliant"},
		{"QUESTIONABLE", "25.30", &pos, "questionable"}, // HLAL: 48.70 unknown, 26.00 non-compliant and questionable
		{"QUESTIONABLE", "50.00", &pos, "questionable"}, {"QUESTIONABLE", "50.01", &pos, "mostly_compliant"},
		{"QUESTIONABLE", "80.00", nil, "mostly_compliant"}, {"QUESTIONABLE", "", nil, "questionable"},
		{"NON_COMPLIANT", "60.00", &pos, "non_compliant"}, {"INSUFFICIENT_DATA", "40.00", nil, "insufficient_data"},
	} {
		r := etf.Result{ComplianceStatus: c.status, CompliantWeightPct: c.compliant, PurificationFraction: c.rate}
		if got := etf.Disposition(r); got != c.want {
			t.Errorf("ETFDisposition(%s, %s%% compliant, rate %v) = %s, want %s", c.status, c.compliant, c.rate, got, c.want)
		}
	}
	if !strings.Contains(etf.VerdictRule, "mostly_compliant when QUESTIONABLE and more than half the weight is compliant") {
		t.Errorf("verdict_rule does not say what mostly_compliant means: %s", etf.VerdictRule)
	}
}
