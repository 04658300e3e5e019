package datapack

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/ingest/sec"
)

// SEC files of the shared data set, relative to its root. Companyfacts go through the same parser as
// the live SEC ingester (ingest/sec), so filed fundamentals carry their accession numbers either way.
var (
	secTickers     = "sec/edgartools/company_tickers.json"
	secFacts       = []string{"sec/fairvalue/sec-filing-companyfacts-AAPL.json", "sec/fairvalue/sec-filing-companyfacts-NVDA.json", "sec/edgartools/snow_facts.json"}
	secSubmissions = []string{"sec/fairvalue/sec-filing-submissions-AAPL.json", "sec/fairvalue/sec-filing-submissions-NVDA.json", "sec/edgartools/company_submission.json"}
)

// ReadSEC reads the SEC files of the shared data set: the ticker map (CIKs and names for every listed
// US company), submissions (SIC code, exchange, country) and companyfacts (quarterly fundamentals with
// provenance). A missing file is a note; an unreadable one is a problem.
func ReadSEC(fsys fs.FS) *Pack {
	p := &Pack{}
	cikToSym := map[string]string{}
	if b, err := fs.ReadFile(fsys, secTickers); err == nil {
		tickers, err := sec.ParseCompanyTickers(b)
		if err != nil {
			p.Problemf(secTickers, 0, "%v", err)
		}
		for _, t := range tickers {
			sym, ok := shariah.NormalizeSymbol(t.Symbol)
			if !ok {
				continue
			}
			if _, dup := cikToSym[t.CIK]; !dup {
				cikToSym[t.CIK] = sym // the first (main) ticker of a CIK
			}
			p.Assets = append(p.Assets, shariah.Asset{Symbol: sym, Name: t.Name, Type: shariah.Equity, CIK: t.CIK,
				Country: "United States", Currency: "USD", Source: "sec-company-tickers"})
		}
		p.Notes = append(p.Notes, fmt.Sprintf("%s: %d tickers", secTickers, len(tickers)))
	} else if !errors.Is(err, fs.ErrNotExist) {
		p.Problemf(secTickers, 0, "%v", err)
	}
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
		a := sub.Asset()
		if sym, ok := shariah.NormalizeSymbol(a.Symbol); ok {
			a.Symbol = sym
			// Submissions know the SIC code and exchange; they go first so their fields win the merge.
			p.Assets = append([]shariah.Asset{a}, p.Assets...)
		}
	}
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
		sym := cikToSym[string(cf.CIK)]
		if sym == "" { // no ticker map: the file name says whose facts these are
			base := strings.TrimSuffix(path.Base(f), ".json")
			sym = strings.ToUpper(base[strings.LastIndexAny(base, "-_")+1:])
		}
		fs, err := sec.Fundamentals(cf, sym)
		if err != nil {
			p.Problemf(f, 0, "%v", err)
			continue
		}
		p.Fundamentals = append(p.Fundamentals, fs...)
		p.Notes = append(p.Notes, fmt.Sprintf("%s: %d periods of %s", f, len(fs), sym))
	}
	return p
}
