package screening

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/shariah-screen/shariah"
)

// sectorProfile holds rough sector medians used to make illustrative fundamentals: balance sheet and
// revenue as multiples of market capitalisation and of total assets. They are demo values, not research.
type sectorProfile struct {
	assetsToCap, debt, cash, receivables, revenue, interestOfRevenue, inventory float64
}

var sectorProfiles = map[string]sectorProfile{
	"information technology": {0.30, 0.15, 0.25, 0.12, 0.60, 0.020, 0.04},
	"technology":             {0.30, 0.15, 0.25, 0.12, 0.60, 0.020, 0.04},
	"communication services": {0.50, 0.30, 0.12, 0.08, 0.50, 0.010, 0.01},
	"health care":            {0.50, 0.25, 0.12, 0.10, 0.60, 0.010, 0.06},
	"consumer discretionary": {0.60, 0.30, 0.10, 0.06, 0.90, 0.005, 0.12},
	"consumer staples":       {0.60, 0.30, 0.06, 0.08, 1.00, 0.003, 0.12},
	"energy":                 {1.00, 0.20, 0.07, 0.08, 0.70, 0.005, 0.04},
	"industrials":            {0.70, 0.28, 0.08, 0.15, 0.70, 0.005, 0.10},
	"materials":              {0.90, 0.22, 0.08, 0.10, 0.60, 0.005, 0.10},
	"real estate":            {1.50, 0.45, 0.03, 0.02, 0.12, 0.005, 0.00},
	"utilities":              {2.50, 0.38, 0.02, 0.05, 0.25, 0.002, 0.02},
	"financials":             {5.00, 0.20, 0.15, 0.05, 0.06, 0.500, 0.00},
}

var defaultProfile = sectorProfile{0.70, 0.25, 0.10, 0.10, 0.60, 0.010, 0.06}

// islamicBankProfile: financing income is profit, not interest; deposits are not interest-bearing debt.
var islamicBankProfile = sectorProfile{5.00, 0.05, 0.10, 0.05, 0.05, 0.000, 0.00}

// CapClassUSD are representative market capitalisations (USD) of the size classes data sets use.
var CapClassUSD = map[string]int64{
	"mega cap": 500_000_000_000, "large cap": 50_000_000_000, "mid cap": 5_000_000_000,
	"small cap": 1_000_000_000, "micro cap": 150_000_000, "nano cap": 30_000_000,
}

// IllustrativeFundamentals makes a fundamentals period for a company that has no filed data, from its
// sector and an estimate of its market capitalisation (in its trading currency), so every listed
// equity can be screened offline. Every fact is labelled illustrative with how it was derived; shares
// outstanding are given only when a last close is known (cap / close).
func IllustrativeFundamentals(a shariah.Asset, marketCap decimal.Decimal, capBasis string, lastClose shariah.Price, asOf time.Time) shariah.Fundamentals {
	p, ok := sectorProfiles[strings.ToLower(a.Sector)]
	profile := a.Sector
	if !ok {
		p, profile = defaultProfile, "cross-sector default"
	}
	if strings.Contains(strings.ToLower(a.Industry), "islamic") {
		p, profile = islamicBankProfile, "Islamic bank"
	}
	year := asOf.Year() - 1
	f := shariah.Fundamentals{Symbol: a.Symbol, PeriodEnd: fmt.Sprintf("%d-12-31", year), Period: "FY", FiscalYear: year,
		Currency: a.Currency, Facts: map[shariah.Field]shariah.Fact{}}
	ref := fmt.Sprintf("illustrative: %s sector profile x market cap %s %s (%s)", profile, marketCap.Round(0).String(), a.Currency, capBasis)
	put := func(field shariah.Field, v decimal.Decimal, note string) {
		f.Facts[field] = shariah.Fact{Value: shariah.NewNumber(v.Round(0)), Source: shariah.SourceIllustrative, Ref: ref, Note: note}
	}
	assets := marketCap.Mul(decimal.NewFromFloat(p.assetsToCap))
	put(shariah.TotalAssets, assets, fmt.Sprintf("market cap x %.2f", p.assetsToCap))
	put(shariah.TotalDebt, assets.Mul(decimal.NewFromFloat(p.debt)), fmt.Sprintf("total assets x %.2f", p.debt))
	put(shariah.CashAndSecurities, assets.Mul(decimal.NewFromFloat(p.cash)), fmt.Sprintf("total assets x %.2f", p.cash))
	put(shariah.Receivables, assets.Mul(decimal.NewFromFloat(p.receivables)), fmt.Sprintf("total assets x %.2f", p.receivables))
	revenue := assets.Mul(decimal.NewFromFloat(p.revenue))
	put(shariah.TotalRevenue, revenue, fmt.Sprintf("total assets x %.2f", p.revenue))
	put(shariah.InterestIncome, revenue.Mul(decimal.NewFromFloat(p.interestOfRevenue)), fmt.Sprintf("revenue x %.3f", p.interestOfRevenue))
	put(shariah.ImpureRevenue, decimal.Zero, "no segment data: assumed none beyond the business-activity screen")
	put(shariah.Inventory, assets.Mul(decimal.NewFromFloat(p.inventory)), fmt.Sprintf("total assets x %.2f", p.inventory))
	if lastClose > 0 {
		close := decimal.New(int64(lastClose), -6)
		put(shariah.SharesOutstanding, marketCap.Div(close), "market cap / last close "+lastClose.String())
	}
	return f
}
