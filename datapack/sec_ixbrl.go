package datapack

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/shariah-screen/shariah/ingest/sec"
)

// ixReading is one inline-XBRL document read into companyfacts form.
type ixReading struct {
	file  string
	sym   string // from the folder name; the ticker map's symbol for the CIK wins
	facts sec.CompanyFacts
}

// readIXBRL reads every inline-XBRL document under secIXBRL, in parallel (the documents are 1-4 MB
// each and parse independently), in file-name order. The filing date comes from the file name, the
// CIK, form and period from the cover page; the accession number and EDGAR document name from the
// company's submissions when they list the filing (same form and report date), else the provenance
// is the document itself. A document that fails is a problem naming the file and the fact; one without
// financial statements (filed as an exhibit) is a note.
func readIXBRL(fsys fs.FS, p *Pack, subs map[string]sec.Submissions) []ixReading {
	var files []string
	err := fs.WalkDir(fsys, secIXBRL, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(name, ".html") || strings.HasSuffix(name, ".htm")) {
			files = append(files, name)
		}
		return nil
	})
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			p.Problemf(secIXBRL, 0, "%v", err)
		} else {
			p.Notes = append(p.Notes, secIXBRL+": absent")
		}
		return nil
	}
	sort.Strings(files)
	type result struct {
		r       ixReading
		err     error
		noStmts bool
	}
	results := make([]result, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, name := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r, noStmts, err := readOneIXBRL(fsys, name, subs)
			results[i] = result{r, err, noStmts}
		}()
	}
	wg.Wait()
	var out []ixReading
	for i, res := range results {
		if res.err != nil {
			p.Problemf(files[i], 0, "%v", res.err)
			continue
		}
		if res.noStmts {
			p.Notes = append(p.Notes, files[i]+": cover page only, the financial statements are filed as an exhibit: no fundamentals from this document")
		}
		out = append(out, res.r)
	}
	p.Notes = append(p.Notes, fmt.Sprintf("%s: %d inline-XBRL documents read", secIXBRL, len(out)))
	return out
}

func readOneIXBRL(fsys fs.FS, name string, subs map[string]sec.Submissions) (ixReading, bool, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return ixReading{}, false, err
	}
	defer f.Close()
	base := path.Base(name)
	doc, err := sec.ParseInlineXBRL(f, base)
	if err != nil {
		return ixReading{}, false, err
	}
	ref := sec.FilingRef{Form: doc.Info.DocumentType, Document: base}
	ref.Filed, _ = sec.FilingDateFromName(base)
	if s, ok := subs[doc.Info.CIK]; ok {
		for _, fl := range s.Filings() {
			if fl.Form == ref.Form && fl.ReportDate == doc.Info.PeriodEndDate && (ref.Filed == "" || fl.FilingDate == ref.Filed) {
				ref.Accession, ref.Filed = fl.Accession, fl.FilingDate
				if fl.PrimaryDocument != "" {
					ref.Document = fl.PrimaryDocument
				}
				break
			}
		}
	}
	// The folder under ixbrl/ is the ticker.
	sym := strings.ToUpper(strings.SplitN(strings.TrimPrefix(name, secIXBRL+"/"), "/", 2)[0])
	return ixReading{file: name, sym: sym, facts: doc.CompanyFacts(ref)}, !doc.HasStatements(), nil
}
