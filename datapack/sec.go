package datapack

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/ingest/sec"
	"github.com/shariah-screen/shariah/market"
)

// SEC files of the shared data set, relative to its root. Companyfacts and the inline-XBRL filings go
// through the same readers and the same mapping as the live SEC ingester (ingest/sec), so filed
// fundamentals carry their provenance either way.
var (
	secTickers     = "sec/edgartools/company_tickers.json"
	secFacts       = []string{"sec/fairvalue/sec-filing-companyfacts-AAPL.json", "sec/fairvalue/sec-filing-companyfacts-NVDA.json", "sec/edgartools/snow_facts.json"}
	secSubmissions = []string{"sec/fairvalue/sec-filing-submissions-AAPL.json", "sec/fairvalue/sec-filing-submissions-NVDA.json", "sec/edgartools/company_submission.json"}
	secIXBRL       = "sec/ixbrl" // <ticker>/<10k|10q>/<ticker>-<form>-<filing date>.html
)

// ReadSEC reads the SEC files of the shared data set: the ticker map (CIKs and names for every listed
// US company), submissions (SIC code, exchange, country; and the accession numbers of the inline-XBRL
// filings), companyfacts and the inline-XBRL primary documents of 10-K and 10-Q filings. A company's
// companyfacts and documents are merged into one reading (sec.MergeFacts) before the mapping, so its
// periods do not depend on which reader saw them. A missing file is a note; an unreadable one is a
// problem naming the file (and the fact), and the other files still load.
func ReadSEC(fsys fs.FS) *Pack {
	p := &Pack{}
	cs := &secCompanies{byCIK: map[string]*secCompany{}}
	cs.cikToSym, cs.symToCIK = readSECTickers(fsys, p)
	subs := readSECSubmissions(fsys, p)
	// Every reading of a company, companyfacts first (MergeFacts keeps the first of equal facts).
	for _, f := range secFacts {
		b, err := fs.ReadFile(fsys, f)
		if errors.Is(err, fs.ErrNotExist) {
			p.Notes = append(p.Notes, f+": absent")
			continue
		}
		cf, err := sec.ParseCompanyFacts(b)
		if err != nil {
			p.Problemf(f, 0, "%v", err)
			continue
		}
		// Without a ticker map, the file name says whose facts these are.
		base := strings.TrimSuffix(path.Base(f), ".json")
		cs.add(string(cf.CIK), strings.ToUpper(base[strings.LastIndexAny(base, "-_")+1:]), f, cf)
	}
	for _, d := range readIXBRL(fsys, p, subs) {
		cs.add(string(d.facts.CIK), d.sym, d.file, d.facts)
	}
	for _, cik := range cs.order {
		cs.byCIK[cik].fundamentals(p)
	}
	return p
}

// SplitRatioConcept is the us-gaap concept of a stock split's conversion ratio.
const SplitRatioConcept = "us-gaap:StockholdersEquityNoteStockSplitConversionRatio1"

// filedSplits reads a company's split-ratio facts (companyfacts or inline XBRL) as splits within their
// period: an instant is the split's day, a duration the window it happened in. Facts of one split
// reported with different dates are merged by AlignShares (mergeSplits).
func filedSplits(cf sec.CompanyFacts, sym string) []market.Split {
	var out []market.Split
	seen := map[string]bool{}
	name := strings.TrimPrefix(SplitRatioConcept, "us-gaap:")
	for _, f := range cf.Facts["us-gaap"][name].Units["pure"] {
		r, err := decimal.NewFromString(f.Val.String())
		if err != nil || !r.IsPositive() || f.End == "" || r.Equal(decimal.NewFromInt(1)) {
			continue
		}
		s := market.Split{Symbol: sym, After: f.Start, On: f.End, Ratio: r,
			Source: fmt.Sprintf("filing %s filed %s, %s", f.Form, f.Filed, SplitRatioConcept)}
		if f.Start != "" { // a duration's start is its first day: the split is after the day before
			if d, err := time.Parse("2006-01-02", f.Start); err == nil {
				s.After = d.AddDate(0, 0, -1).Format("2006-01-02")
			}
		}
		if k := s.After + s.On + r.String(); !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	return out
}

// readSECTickers reads the ticker map into assets and returns the CIK of each symbol and the main
// (first) symbol of each CIK.
func readSECTickers(fsys fs.FS, p *Pack) (cikToSym, symToCIK map[string]string) {
	cikToSym, symToCIK = map[string]string{}, map[string]string{}
	b, err := fs.ReadFile(fsys, secTickers)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			p.Problemf(secTickers, 0, "%v", err)
		}
		return cikToSym, symToCIK
	}
	tickers, err := sec.ParseCompanyTickers(b)
	if err != nil {
		p.Problemf(secTickers, 0, "%v", err)
	}
	for _, t := range tickers {
		sym, ok := shariah.NormalizeSymbol(t.Symbol)
		if !ok {
			continue
		}
		symToCIK[sym] = t.CIK
		if _, dup := cikToSym[t.CIK]; !dup {
			cikToSym[t.CIK] = sym // the first (main) ticker of a CIK
		}
		p.Assets = append(p.Assets, shariah.Asset{Symbol: sym, Name: t.Name, Type: shariah.Equity, CIK: t.CIK,
			Country: "United States", Currency: "USD", Source: "sec-company-tickers"})
	}
	p.Notes = append(p.Notes, fmt.Sprintf("%s: %d tickers", secTickers, len(tickers)))
	return cikToSym, symToCIK
}

// readSECSubmissions reads the submissions files, by CIK, adding each company's asset record.
func readSECSubmissions(fsys fs.FS, p *Pack) map[string]sec.Submissions {
	subs := map[string]sec.Submissions{}
	for _, f := range secSubmissions {
		b, err := fs.ReadFile(fsys, f)
		if errors.Is(err, fs.ErrNotExist) {
			p.Notes = append(p.Notes, f+": absent")
			continue
		}
		sub, err := sec.ParseSubmissions(b)
		if err != nil {
			p.Problemf(f, 0, "%v", err)
			continue
		}
		subs[string(sub.CIK)] = sub
		a := sub.Asset()
		if sym, ok := shariah.NormalizeSymbol(a.Symbol); ok {
			a.Symbol = sym
			// Submissions know the SIC code and exchange; they go first so their fields win the merge.
			p.Assets = append([]shariah.Asset{a}, p.Assets...)
		}
	}
	return subs
}

// secCompanies gathers every reading of each company, in the order first read. A company's symbols:
// the ticker map's main one for its CIK and the one its files are named after (Alphabet's main ticker
// is GOOG; its filings sit under googl/, and both classes trade).
type secCompanies struct {
	byCIK              map[string]*secCompany
	order              []string
	cikToSym, symToCIK map[string]string
}

type secCompany struct {
	syms     []string
	files    []string
	readings []sec.CompanyFacts
}

func (cs *secCompanies) add(cik, sym, file string, cf sec.CompanyFacts) {
	c := cs.byCIK[cik]
	if c == nil {
		c = &secCompany{}
		if s := cs.cikToSym[cik]; s != "" {
			c.syms = append(c.syms, s)
		}
		cs.byCIK[cik] = c
		cs.order = append(cs.order, cik)
	}
	if s, ok := shariah.NormalizeSymbol(sym); ok && (cs.cikToSym[cik] == "" || cs.symToCIK[s] == cik) && !slices.Contains(c.syms, s) {
		c.syms = append(c.syms, s)
	}
	c.files = append(c.files, file)
	c.readings = append(c.readings, cf)
}

// fundamentals merges a company's readings and adds the fundamentals of each of its symbols.
func (c *secCompany) fundamentals(p *Pack) {
	files := strings.Join(c.files, ", ")
	merged, err := sec.MergeFacts(c.readings...)
	if err != nil {
		p.Problemf(files, 0, "%v", err)
		return
	}
	for _, sym := range c.syms {
		fs, err := sec.Fundamentals(merged, sym)
		if err != nil && !errors.Is(err, sec.ErrNoUSGAAP) {
			p.Problemf(files, 0, "%v", err)
			break
		}
		if len(fs) == 0 {
			p.Notes = append(p.Notes, fmt.Sprintf("%s: no financial statements (filed as an exhibit, not in the primary document): no fundamentals for %s",
				files, sym))
			continue
		}
		p.Fundamentals = append(p.Fundamentals, fs...)
		p.Splits = append(p.Splits, filedSplits(merged, sym)...)
		p.Notes = append(p.Notes, fmt.Sprintf("%s: %d periods of %s", files, len(fs), sym))
		// An input the filing contradicts is unmeasured (its other inputs stay): a problem to see.
		for _, c := range sec.Contradictions(fs) {
			p.Problemf(files, 0, "%s", c)
		}
	}
}
