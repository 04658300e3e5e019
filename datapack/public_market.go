package datapack

// Readers of the public market files: SP Funds ETF holdings, monthly gold prices, Federal Reserve
// exchange rates and the S&P 500 price/market-cap snapshot.

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/market"
)

// Sources of the market records.
const (
	SourceSPFunds    = "sp-funds"
	SourceGoldPrices = "gold-prices"
	SourceFedH10     = "fed-h10"
)

var pubHundred = decimal.NewFromInt(100)

// ReadSPFundsHoldings reads an SP Funds daily holdings file (Date, Account, StockTicker, CUSIP,
// SecurityName, Shares, Price, MarketValue, Weightings, NetAssets, ...) into Holdings: ETF = Account,
// Weight a fraction ("13.33%" -> 0.1333, exact), AsOf the Date (MM/DD/YYYY) as YYYY-MM-DD. Cash and
// items without a listed ticker (Cash&Other, the placeholder 2602335D, the CVR 003654100CVR whose
// ticker is its CUSIP) keep Symbol "" and their name.
func ReadSPFundsHoldings(fsys fs.FS, file string) (*Pack, error) {
	p := &Pack{}
	t, err := pubOpenCSV(fsys, file, p, "Date", "Account", "StockTicker", "SecurityName", "Weightings")
	if err != nil || t == nil {
		return p, err
	}
	unlisted := 0
	t.each(func(line int, rec []string) {
		date, err := pubDate(t.get(rec, "Date"))
		if err != nil {
			p.Problemf(file, line, "%v", err)
			return
		}
		etf, ok := pubUSSymbol(t.get(rec, "Account"))
		if !ok {
			p.Problemf(file, line, "account %q is not an ETF symbol", t.get(rec, "Account"))
			return
		}
		w := strings.TrimSuffix(strings.TrimSpace(t.get(rec, "Weightings")), "%")
		weight, err := pubDecimal(w)
		if err != nil {
			p.Problemf(file, line, "weighting %q: %v", t.get(rec, "Weightings"), err)
			return
		}
		h := shariah.Holding{ETF: etf, Name: t.get(rec, "SecurityName"),
			Weight: shariah.NewNumber(weight.Div(pubHundred)), AsOf: date.Format("2006-01-02"), Source: SourceSPFunds}
		for _, f := range []struct {
			col string
			dst **shariah.Number
		}{{"Shares", &h.Shares}, {"MarketValue", &h.MarketValue}} {
			v := t.get(rec, f.col)
			if v == "" {
				continue
			}
			d, err := pubDecimal(v)
			if err != nil {
				p.Problemf(file, line, "%s: %v", f.col, err)
				return
			}
			n := shariah.NewNumber(d)
			*f.dst = &n
		}
		h.Symbol = pubHoldingSymbol(t.get(rec, "StockTicker"), t.get(rec, "CUSIP"))
		if h.Symbol == "" {
			unlisted++
		}
		p.Holdings = append(p.Holdings, h)
	})
	p.pubNotef("%s: %d holdings, %d of them cash or unlisted (no symbol)", file, len(p.Holdings), unlisted)
	return p, nil
}

// pubHoldingSymbol is the canonical symbol of a holding's ticker, or "" for cash and items that are not a
// listed US ticker: the issuer writes internal codes (2602335D) and CUSIPs (003654100CVR) there.
func pubHoldingSymbol(ticker, cusip string) string {
	ticker = strings.TrimSpace(ticker)
	if ticker == "" || strings.EqualFold(ticker, cusip) || strings.ContainsAny(ticker, "&$ ") ||
		strings.HasPrefix(strings.ToUpper(ticker), "CASH") || ticker[0] >= '0' && ticker[0] <= '9' {
		return ""
	}
	sym, ok := pubUSSymbol(ticker)
	if !ok {
		return ""
	}
	return sym
}

// ReadGoldMonthly reads the monthly gold prices (Date YYYY-MM, Price in USD per troy ounce) into
// MetalPrices dated the first day of their month (YYYY-MM-01, as the publisher's processed file and
// the exchange rates are). Rows of 1833-1959 repeat each year's average for every month.
func ReadGoldMonthly(fsys fs.FS, file string) (*Pack, error) {
	p := &Pack{}
	t, err := pubOpenCSV(fsys, file, p, "Date", "Price")
	if err != nil || t == nil {
		return p, err
	}
	t.each(func(line int, rec []string) {
		d := t.get(rec, "Date")
		if len(d) == 7 {
			d += "-01"
		}
		date, err := pubDate(d)
		if err != nil {
			p.Problemf(file, line, "%v", err)
			return
		}
		v, err := pubDecimal(t.get(rec, "Price"))
		if err == nil && !v.IsPositive() {
			err = fmt.Errorf("price %s is not positive", v)
		}
		if err != nil {
			p.Problemf(file, line, "%v", err)
			return
		}
		p.Metals = append(p.Metals, market.MetalPrice{Metal: "gold", USDPerOunce: shariah.NewNumber(v),
			AsOf: date.AddDate(0, 0, 1-date.Day()).Format("2006-01-02"), Source: SourceGoldPrices})
	})
	if n := len(p.Metals); n > 0 {
		p.pubNotef("%s: %d monthly gold prices, %s to %s", file, n, p.Metals[0].AsOf, p.Metals[n-1].AsOf)
	}
	return p, nil
}

// FedFXCurrencies maps the Country column of the Federal Reserve H.10/G.5 rates to ISO 4217 codes.
var FedFXCurrencies = map[string]string{
	"Australia": "AUD", "Austria": "ATS", "Belgium": "BEF", "Brazil": "BRL", "Canada": "CAD",
	"China": "CNY", "Denmark": "DKK", "Euro": "EUR", "Finland": "FIM", "France": "FRF", "Germany": "DEM",
	"Greece": "GRD", "Hong Kong": "HKD", "India": "INR", "Ireland": "IEP", "Italy": "ITL", "Japan": "JPY",
	"Malaysia": "MYR", "Mexico": "MXN", "Netherlands": "NLG", "New Zealand": "NZD", "Norway": "NOK",
	"Portugal": "PTE", "Singapore": "SGD", "South Africa": "ZAR", "South Korea": "KRW", "Spain": "ESP",
	"Sri Lanka": "LKR", "Sweden": "SEK", "Switzerland": "CHF", "Taiwan": "TWD", "Thailand": "THB",
	"United Kingdom": "GBP", "Venezuela": "VES",
}

// fedUSDQuoted are the series the Federal Reserve quotes as US dollars per unit of the currency.
var fedUSDQuoted = map[string]bool{
	"Australia": true, "Euro": true, "Ireland": true, "New Zealand": true, "United Kingdom": true,
}

// ReadFedFXMonthly reads the Federal Reserve monthly exchange rates (Date, Country, Exchange rate) into
// one FXRate per currency: its latest rate, as units of the currency per US dollar, dated by its month.
//
// Orientation: the Fed quotes Australia, Euro, Ireland, New Zealand and United Kingdom as USD per unit
// and the datapackage.json says the file keeps that, but the staged file's values say otherwise:
// United Kingdom is 0.4157 in 1971-01 (when one pound bought 2.40 dollars) and 0.7497 in 2026-06, so
// the publisher already inverted them and every rate is units per USD. The reader decides from the
// data: the pound has never been worth less than a dollar, so a latest United Kingdom rate above 1 means
// those five series are USD per unit and they are inverted (1/x, 8 decimals); below 1 they are kept.
// Without a United Kingdom series the rates are taken as units per USD. Currencies whose last rate is
// more than a year older than the file's latest (the eleven replaced by the euro, last quoted 2001) are
// left out and named in a Note. USD itself is not listed.
func ReadFedFXMonthly(fsys fs.FS, file string) (*Pack, error) {
	p := &Pack{}
	t, err := pubOpenCSV(fsys, file, p, "Date", "Country", "Exchange rate")
	if err != nil || t == nil {
		return p, err
	}
	latest := map[string]fedObs{} // country -> latest observation
	unknown := map[string]bool{}
	missing := 0
	t.each(func(line int, rec []string) {
		country := t.get(rec, "Country")
		if _, ok := FedFXCurrencies[country]; !ok {
			if !unknown[country] {
				unknown[country] = true
				p.Problemf(file, line, "country %q has no known currency; its rows skipped", country)
			}
			return
		}
		date, err := pubDate(t.get(rec, "Date"))
		if err != nil {
			p.Problemf(file, line, "%v", err)
			return
		}
		raw := t.get(rec, "Exchange rate")
		if raw == "" { // the datapackage's missing value
			missing++
			return
		}
		v, err := pubDecimal(raw)
		if err == nil && !v.IsPositive() {
			err = fmt.Errorf("rate %s is not positive", raw)
		}
		if err != nil {
			p.Problemf(file, line, "%v", err)
			return
		}
		d := date.Format("2006-01-02")
		if o, ok := latest[country]; !ok || d >= o.date {
			latest[country] = fedObs{d, v}
		}
	})
	if len(latest) == 0 {
		return p, nil
	}
	invert := fedInverted(p, file, latest)
	newest := ""
	for _, o := range latest {
		newest = max(newest, o.date)
	}
	cutoff := newest
	if d, err := pubDate(newest); err == nil {
		cutoff = d.AddDate(-1, 0, 0).Format("2006-01-02")
	}
	var stale []string
	one := decimal.NewFromInt(1)
	for country, o := range latest {
		cur := FedFXCurrencies[country]
		if o.date < cutoff {
			stale = append(stale, fmt.Sprintf("%s (%s, last %s)", cur, country, o.date))
			continue
		}
		v := o.value
		if invert && fedUSDQuoted[country] {
			v = one.DivRound(v, 8)
		}
		p.FX = append(p.FX, market.FXRate{Currency: cur, PerUSD: shariah.NewNumber(v), AsOf: o.date, Source: SourceFedH10})
	}
	sort.Slice(p.FX, func(i, j int) bool { return p.FX[i].Currency < p.FX[j].Currency })
	sort.Strings(stale)
	p.pubNotef("%s: %d currencies, latest %s", file, len(p.FX), newest)
	if len(stale) > 0 {
		p.pubNotef("%s: %d discontinued currencies left out: %s", file, len(stale), strings.Join(stale, ", "))
	}
	if missing > 0 {
		p.pubNotef("%s: %d rows without a rate", file, missing)
	}
	return p, nil
}

// fedObs is one observation of a Fed H.10 series.
type fedObs struct {
	date  string
	value decimal.Decimal
}

// fedInverted tells the orientation of the Fed rates from the United Kingdom series: above 1 it is USD
// per pound, so the USD-quoted series (Australia, Euro, Ireland, New Zealand, United Kingdom) are
// inverted to units per USD.
func fedInverted(p *Pack, file string, latest map[string]fedObs) bool {
	uk, ok := latest["United Kingdom"]
	if !ok {
		p.pubNotef("%s: no United Kingdom series to tell the orientation; rates taken as units per USD", file)
		return false
	}
	invert := uk.value.GreaterThan(decimal.NewFromInt(1))
	if invert {
		p.pubNotef("%s: United Kingdom rate %s > 1: Australia, Euro, Ireland, New Zealand and United Kingdom are USD per unit; inverted", file, uk.value)
	} else {
		p.pubNotef("%s: United Kingdom rate %s < 1: every rate is already units per USD (the datapackage's note on USD-quoted series does not apply); none inverted", file, uk.value)
	}
	return invert
}

// MarketSnapshot is a symbol's price and market capitalization on the snapshot's day (the S&P 500
// financials file), used to estimate shares outstanding for illustrative fundamentals.
type MarketSnapshot struct {
	Name      string
	Price     shariah.Price
	MarketCap shariah.Number // USD
}

// ReadSP500Financials reads fundamentals/sp500-financials-datasets/constituents-financials.csv
// (Symbol, Name, Sector, Price, ..., Market Cap, ...) into a map symbol -> MarketSnapshot (symbols
// Yahoo-style: BRK.B -> BRK-B). Rows without a price or a market cap (the file has some) are left out
// and counted in a Note. No Fundamentals are made from it.
func ReadSP500Financials(fsys fs.FS, file string) (*Pack, map[string]MarketSnapshot, error) {
	p := &Pack{}
	out := map[string]MarketSnapshot{}
	t, err := pubOpenCSV(fsys, file, p, "Symbol", "Price", "Market Cap")
	if err != nil || t == nil {
		return p, out, err
	}
	incomplete := 0
	t.each(func(line int, rec []string) {
		sym, ok := pubUSSymbol(t.get(rec, "Symbol"))
		if !ok {
			p.Problemf(file, line, "symbol %q is not a valid symbol", t.get(rec, "Symbol"))
			return
		}
		price, mcap := t.get(rec, "Price"), t.get(rec, "Market Cap")
		if price == "" || mcap == "" {
			incomplete++
			return
		}
		px, err := shariah.ParsePrice(price)
		if err == nil && px <= 0 {
			err = fmt.Errorf("price %s is not positive", price)
		}
		if err != nil {
			p.Problemf(file, line, "%s: %v", sym, err)
			return
		}
		mc, err := pubDecimal(mcap)
		if err == nil && !mc.IsPositive() {
			err = fmt.Errorf("market cap %s is not positive", mcap)
		}
		if err != nil {
			p.Problemf(file, line, "%s: market cap: %v", sym, err)
			return
		}
		if _, dup := out[sym]; dup {
			p.Problemf(file, line, "duplicate symbol %s", sym)
			return
		}
		out[sym] = MarketSnapshot{Name: t.get(rec, "Name"), Price: px, MarketCap: shariah.NewNumber(mc)}
	})
	p.pubNotef("%s: %d price and market-cap snapshots", file, len(out))
	if incomplete > 0 {
		p.pubNotef("%s: %d rows without a price or a market cap left out", file, incomplete)
	}
	return p, out, nil
}
