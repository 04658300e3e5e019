package mcp

import (
	"context"
	"fmt"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/finance"
)

func (d Deps) calculatorTools() []tool {
	return []tool{newTool("calculate_zakat", "Zakat on holdings (symbol and market_value) and cash, or dividend purification (symbol and dividend_income); the same calculators and bounds as the REST API (at most 100 holdings; amounts and shares at most 10^15 with at most 18 decimal places).",
		lookup, objectOut(), d.calculateZakat)}
}

type calculatorHolding struct {
	Symbol         string          `json:"symbol" schema:"required"`
	MarketValue    *shariah.Number `json:"market_value" schema:"minimum=0,maximum=1000000000000000"`
	Shares         *shariah.Number `json:"shares" schema:"minimum=0,maximum=1000000000000000"`
	DividendIncome *shariah.Number `json:"dividend_income" schema:"minimum=0,maximum=1000000000000000"`
}

type calculatorArgs struct {
	CalculationType  string              `json:"calculation_type" schema:"enum=zakat|purification,default=zakat"`
	Holdings         []calculatorHolding `json:"holdings" schema:"maxItems=100"`
	Cash             shariah.Number      `json:"cash" schema:"minimum=0,maximum=1000000000000000"`
	Receivables      shariah.Number      `json:"receivables" schema:"minimum=0,maximum=1000000000000000"`
	Debts            shariah.Number      `json:"debts" schema:"minimum=0,maximum=1000000000000000"`
	GoldPricePerGram *shariah.Number     `json:"gold_price_per_gram" schema:"exclusiveMinimum=0,maximum=1000000000000000"`
	NisabMetal       string              `json:"nisab_metal" schema:"enum=gold|silver|lower"`
}

// calculateZakat is zakat, or dividend purification with calculation_type purification.
func (d Deps) calculateZakat(ctx context.Context, in calculatorArgs) (any, string, error) {
	switch in.CalculationType {
	case "purification":
		return d.purify(ctx, in)
	case "", "zakat":
	default:
		var v shariah.Validation
		v.Add("must be zakat or purification", "value_error.enum", "arguments", "calculation_type")
		return nil, "", v.Err()
	}
	req := finance.ZakatRequest{Cash: in.Cash, Receivables: in.Receivables, Debts: in.Debts, GoldPricePerGram: in.GoldPricePerGram, NisabMetal: in.NisabMetal}
	for _, h := range in.Holdings {
		req.Holdings = append(req.Holdings, finance.ZakatHolding{Symbol: h.Symbol, MarketValue: h.MarketValue, Shares: h.Shares})
	}
	res, err := d.Zakat.Calculate(ctx, req)
	if err != nil {
		return nil, "", err
	}
	text := fmt.Sprintf("No zakat due: zakatable wealth %s USD does not exceed the nisab of %s USD (%s).", res.ZakatableWealth.StringFixed(2), res.Nisab.Threshold.StringFixed(2), res.Nisab.Metal)
	if res.ZakatDue {
		text = fmt.Sprintf("Zakat due: %s USD (2.5%% of %s USD; nisab %s USD, %s).", res.AmountOwed.StringFixed(2), res.ZakatableWealth.StringFixed(2), res.Nisab.Threshold.StringFixed(2), res.Nisab.Metal)
	}
	return res, text + " A simplified estimate: " + strings.Join(res.Skipped, "; ") + ".", nil
}

func (d Deps) purify(ctx context.Context, in calculatorArgs) (any, string, error) {
	req := finance.PurificationRequest{}
	for _, h := range in.Holdings {
		req.Holdings = append(req.Holdings, finance.PurificationHolding{Symbol: h.Symbol, DividendIncome: h.DividendIncome, Shares: h.Shares})
	}
	res, err := d.Purifier.Calculate(ctx, req)
	if err != nil {
		return nil, "", err
	}
	return res, fmt.Sprintf("Purify %s USD in total (method %s).", res.TotalAmount.StringFixed(2), res.Method), nil
}
