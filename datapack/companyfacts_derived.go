package datapack

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/ingest/sec"
	"github.com/shariah-screen/shariah/market"
)

// Files of the companyfacts-derived set (sec/companyfacts-derived/SOURCES.md): the last eight filed
// quarters of the largest S&P 500 companies the inline-XBRL set lacks, in the data-pack format, and the
// source's per-company rows (split events, the tags each field came from, the parts of the cash sum).
const (
	PathCFDerivedFundamentals = "sec/companyfacts-derived/fundamentals.csv"
	PathCFDerivedQuarters     = "sec/companyfacts-derived/quarters.jsonl"
)

// cfdCompany is what is read of one line of quarters.jsonl.
type cfdCompany struct {
	CIK    string `json:"cik"`
	Ticker string `json:"ticker"`
	Splits []struct {
		After string  `json:"after"`
		Date  string  `json:"date"`
		Ratio float64 `json:"ratio"`
	} `json:"splits"`
	TagsUsed map[string]*string `json:"tags_used"`
	Quarters []struct {
		PeriodEnd string   `json:"period_end"`
		Form      string   `json:"form"`
		Filed     string   `json:"filed"`
		Cash      *float64 `json:"cash"`
		STI       *float64 `json:"short_term_investments"`
		Combined  *float64 `json:"cash_and_short_term_investments"`
	} `json:"quarters"`
}

// cfdRefRE reads a companyfacts-derived source_ref: "SEC companyfacts CIK 0001559720, 10-Q filed
// 2025-11-06 (sec-dataset build 49bd421)"; the form may be "10-K (fourth quarter: fiscal year less
// nine months)".
var cfdRefRE = regexp.MustCompile(`CIK (\d+), (10-[KQ](?:/A)?)(?: \(([^)]*)\))? filed (\d{4}-\d{2}-\d{2})`)

// cfdTags maps an input to the keys of tags_used that fed it.
var cfdTags = map[shariah.Field][]string{
	shariah.TotalAssets:       {"total_assets"},
	shariah.TotalDebt:         {"total_debt"},
	shariah.CashAndSecurities: {"cash", "short_term_investments", "cash_and_short_term_investments"},
	shariah.Receivables:       {"receivables"},
	shariah.TotalRevenue:      {"revenue"},
	shariah.InterestIncome:    {"interest_income"},
	shariah.SharesOutstanding: {"shares_outstanding"},
}

// cfdMissing says why an input absent from a companyfacts-derived row is unknown.
var cfdMissing = map[shariah.Field]string{
	shariah.InterestIncome:    "not in the companyfacts-derived set: its source maps interest income only for banks (sec/companyfacts-derived/SOURCES.md); unknown, not zero",
	shariah.SharesOutstanding: "no cover-page share count in this quarter's row of the companyfacts-derived set",
	shariah.TotalDebt:         "no debt concept in this quarter's row of the companyfacts-derived set",
	shariah.ImpureRevenue:     sec.ImpureRevenueMissing,
}

// ReadCompanyfactsDerived reads the companyfacts-derived set: its fundamentals.csv (data-pack format,
// every fact a filing's, with the form, filing date and CIK its source_ref names) and, from
// quarters.jsonl, the split events of each company, the tags each input came from, and the parts of
// the cash sum. Companies in skip (they have inline-XBRL filings, which rank above this set) are left
// out, named in a note. A quarter whose combined cash-and-investments concept is smaller than the cash
// and short-term investments it should hold marks cash_and_securities unmeasured (a problem says why).
func ReadCompanyfactsDerived(fsys fs.FS, skip map[string]bool) *Pack {
	p := &Pack{}
	comps := readCFDQuarters(fsys, p)
	f, closer, err := openCSV(fsys, PathCFDerivedFundamentals)
	if errors.Is(err, fs.ErrNotExist) {
		p.Notes = append(p.Notes, PathCFDerivedFundamentals+": absent")
		return p
	}
	if err != nil {
		p.Problemf(PathCFDerivedFundamentals, 1, "%v", err)
		return p
	}
	all := &Pack{}
	readFundamentals(f, all, shariah.SourceFiling)
	closer.Close()
	p.Problems = append(p.Problems, all.Problems...)
	skipped := map[string]bool{}
	for _, fu := range all.Fundamentals {
		if skip[fu.Symbol] {
			skipped[fu.Symbol] = true
			continue
		}
		c := comps[fu.Symbol]
		fu.Currency = "USD"
		fu.Missing = map[shariah.Field]string{}
		for field, fact := range fu.Facts {
			if m := cfdRefRE.FindStringSubmatch(fact.Ref); m != nil {
				fact.CIK, fact.Form, fact.Filed = m[1], m[2], m[4]
				if m[3] != "" {
					fact.Note = "companyfacts-derived: " + m[3]
				}
			}
			if c != nil {
				fact.Tag = c.tags(field)
			}
			fu.Facts[field] = fact
		}
		for _, field := range shariah.Fields {
			if _, ok := fu.Facts[field]; !ok {
				if why, ok := cfdMissing[field]; ok {
					fu.Missing[field] = why
				} else {
					fu.Missing[field] = "not in this quarter's row of the companyfacts-derived set"
				}
			}
		}
		if c != nil {
			c.checkCash(&fu, p)
		}
		p.Fundamentals = append(p.Fundamentals, fu)
	}
	if len(skipped) > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("%s: %s left out: their inline-XBRL filings rank above this set",
			PathCFDerivedFundamentals, strings.Join(sortedKeys(skipped), ", ")))
	}
	for sym, c := range comps {
		if skip[sym] {
			continue
		}
		for _, s := range c.Splits {
			if s.Ratio <= 0 || s.Date == "" {
				continue
			}
			p.Splits = append(p.Splits, market.Split{Symbol: sym, After: s.After, On: s.Date,
				Ratio: decimal.NewFromFloat(s.Ratio), Source: "companyfacts-derived split history (" + PathCFDerivedQuarters + ")"})
		}
	}
	sort.Slice(p.Splits, func(i, j int) bool { return p.Splits[i].Symbol+p.Splits[i].On < p.Splits[j].Symbol+p.Splits[j].On })
	p.Notes = append(p.Notes, fmt.Sprintf("%s: %d quarters of %d companies, %d split events", PathCFDerivedFundamentals,
		len(p.Fundamentals), len(comps)-len(skipped), len(p.Splits)))
	return p
}

// readCFDQuarters reads quarters.jsonl by ticker; a line that does not parse is a problem.
func readCFDQuarters(fsys fs.FS, p *Pack) map[string]*cfdCompany {
	out := map[string]*cfdCompany{}
	f, err := fsys.Open(PathCFDerivedQuarters)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			p.Notes = append(p.Notes, PathCFDerivedQuarters+": absent (no split events, tags or cash parts)")
		} else {
			p.Problemf(PathCFDerivedQuarters, 0, "%v", err)
		}
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 8<<20)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c cfdCompany
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			p.Problemf(PathCFDerivedQuarters, line, "%v", err)
			continue
		}
		sym, ok := shariah.NormalizeSymbol(c.Ticker)
		if !ok {
			p.Problemf(PathCFDerivedQuarters, line, "ticker %q is not a valid symbol", c.Ticker)
			continue
		}
		out[sym] = &c
	}
	if err := sc.Err(); err != nil {
		p.Problemf(PathCFDerivedQuarters, line, "%v", err)
	}
	return out
}

// tags lists the concepts (in the source's order of preference) that fed an input.
func (c *cfdCompany) tags(field shariah.Field) string {
	var parts []string
	for _, k := range cfdTags[field] {
		if t := c.TagsUsed[k]; t != nil && *t != "" {
			parts = append(parts, *t)
		}
	}
	return strings.Join(parts, "; ")
}

// checkCash marks cash_and_securities unmeasured in a quarter whose combined cash-and-investments
// concept is smaller than the cash and short-term investments it should include (the set's sum of the
// parts would count something the filer's own total leaves out, or the parts overlap): the total and
// its parts contradict each other.
func (c *cfdCompany) checkCash(fu *shariah.Fundamentals, p *Pack) {
	for _, q := range c.Quarters {
		if q.PeriodEnd != fu.PeriodEnd || q.Cash == nil || q.STI == nil || q.Combined == nil {
			continue
		}
		parts := *q.Cash + *q.STI
		if *q.Combined >= parts-1 {
			return
		}
		why := fmt.Sprintf("contradicted: the combined CashCashEquivalentsAndShortTermInvestments (%.0f) is smaller than cash (%.0f) plus short-term investments (%.0f) of the same quarter; unmeasured",
			*q.Combined, *q.Cash, *q.STI)
		delete(fu.Facts, shariah.CashAndSecurities)
		fu.Missing[shariah.CashAndSecurities] = why
		p.Problemf(PathCFDerivedQuarters, 0, "%s %s: cash_and_securities %s", fu.Symbol, fu.PeriodEnd, why)
		return
	}
}
