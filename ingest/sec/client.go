package sec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shariah-screen/shariah/ingest/httpx"
)

// Client reads SEC EDGAR: the ticker map, submissions and companyfacts. Its base URLs are configurable:
// https://www.sec.gov and https://data.sec.gov in production, or a file:// directory holding a mirror in
// any layout (such as ../shared/data/sec): the mirror's JSON files are recognised by their content.
//
// HTTP carries the User-Agent and the rate limiter, which the process shares among all its SEC
// clients (SEC allows 10 requests a second per host, whoever sends them). The client fetches through
// its own httpx client built from HTTP's settings (the same User-Agent, limiter and retries) whose
// transport hands each document's validators (ETag, Last-Modified) to the caller instead of httpx's
// in-memory cache: that cache would keep every fetched body for the life of the process, gigabytes
// over the whole market's companyfacts, and forget everything at a restart, whereas the caller keeps
// the validators in Redis with the company's state.
type Client struct {
	HTTP     *httpx.Client
	WWWBase  string // https://www.sec.gov (company_tickers.json)
	DataBase string // https://data.sec.gov (submissions, companyfacts)

	once   sync.Once
	mirror *mirror
	merr   error

	fonce   sync.Once
	fetcher *httpx.Client
}

// mirror indexes a local directory of SEC JSON files by kind and CIK, and its filing documents (.htm,
// .html) by name: EDGAR's document name (aapl-20240928.htm) or the shared data set's
// <ticker>-<form>-<filing date>.html.
type mirror struct {
	tickers     string
	submissions map[string]string // CIK (10 digits) -> file
	facts       map[string]string
	docs        map[string]string // lower-case file name -> file
}

func (c *Client) local() bool { return strings.HasPrefix(c.DataBase, "file://") }

func (c *Client) index() (*mirror, error) {
	c.once.Do(func() {
		u, err := url.Parse(c.DataBase)
		if err != nil {
			c.merr = err
			return
		}
		m := &mirror{submissions: map[string]string{}, facts: map[string]string{}, docs: map[string]string{}}
		c.merr = filepath.WalkDir(u.Path, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".htm") || strings.HasSuffix(p, ".html")) {
				m.docs[strings.ToLower(d.Name())] = p
				return nil
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var head map[string]json.RawMessage
			if json.Unmarshal(b, &head) != nil {
				return nil // not an SEC document
			}
			var cik CIK
			if raw, ok := head["cik"]; ok {
				_ = json.Unmarshal(raw, &cik)
			}
			switch {
			case head["facts"] != nil && cik != "":
				m.facts[string(cik)] = p
			case head["filings"] != nil && cik != "":
				m.submissions[string(cik)] = p
			case head["0"] != nil:
				m.tickers = p
			}
			return nil
		})
		c.mirror = m
	})
	return c.mirror, c.merr
}

// Validators are a document's HTTP validators. Sent back with the next request (If-None-Match,
// If-Modified-Since) they let EDGAR answer 304 without a body when the document has not changed.
type Validators struct {
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

// Doc is a fetched document.
type Doc struct {
	Body        []byte
	Found       bool // false: EDGAR has none (404, or not in the mirror)
	NotModified bool // 304 to the validators sent: Body is empty
	Validators  Validators
}

// exchangeKey carries a request's *exchange in its context to validatorTransport.
type exchangeKey struct{}

// exchange is the validators sent with a request and those its response carried.
type exchange struct{ send, got Validators }

// validatorTransport sets a request's conditional headers from its context's exchange and moves the
// response's validators into it, out of the headers httpx caches by (see Client).
type validatorTransport struct{ next http.RoundTripper }

func (t validatorTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ex, _ := r.Context().Value(exchangeKey{}).(*exchange)
	if ex != nil && ex.send != (Validators{}) {
		r = r.Clone(r.Context())
		if ex.send.ETag != "" {
			r.Header.Set("If-None-Match", ex.send.ETag)
		}
		if ex.send.LastModified != "" {
			r.Header.Set("If-Modified-Since", ex.send.LastModified)
		}
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if ex != nil && resp.StatusCode == http.StatusOK {
		ex.got = Validators{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified")}
	}
	resp.Header.Del("ETag")
	resp.Header.Del("Last-Modified")
	return resp, nil
}

// client is the httpx client the SEC client fetches with (see Client).
func (c *Client) client() *httpx.Client {
	c.fonce.Do(func() {
		h := c.HTTP
		if h == nil {
			h = &httpx.Client{}
		}
		timeout, rt := 60*time.Second, http.RoundTripper(nil)
		if h.HTTP != nil {
			timeout, rt = h.HTTP.Timeout, h.HTTP.Transport
		}
		if rt == nil {
			rt = http.DefaultTransport
		}
		c.fetcher = &httpx.Client{HTTP: &http.Client{Timeout: timeout, Transport: validatorTransport{rt}}, UserAgent: h.UserAgent,
			Limiter: h.Limiter, MaxRetries: h.MaxRetries, Backoff: h.Backoff, MaxBody: h.MaxBody}
	})
	return c.fetcher
}

// fetch reads a document from EDGAR, conditionally when since is set, or from the mirror.
func (c *Client) fetch(ctx context.Context, remote string, local func(*mirror) string, since Validators) (Doc, error) {
	if c.local() {
		m, err := c.index()
		if err != nil {
			return Doc{}, err
		}
		p := local(m)
		if p == "" {
			return Doc{}, nil
		}
		b, err := os.ReadFile(p)
		return Doc{Body: b, Found: err == nil}, err
	}
	ex := &exchange{send: since}
	r, err := c.client().Get(context.WithValue(ctx, exchangeKey{}, ex), remote)
	if err != nil {
		var se *httpx.StatusError
		switch {
		case errors.As(err, &se) && se.Status == http.StatusNotFound:
			return Doc{}, nil
		case errors.As(err, &se) && se.Status == http.StatusNotModified && since != (Validators{}):
			return Doc{Found: true, NotModified: true, Validators: since}, nil
		}
		return Doc{}, err
	}
	return Doc{Body: r.Body, Found: true, Validators: ex.got}, nil
}

func (c *Client) get(ctx context.Context, remote string, local func(*mirror) string) ([]byte, bool, error) {
	d, err := c.fetch(ctx, remote, local, Validators{})
	return d.Body, d.Found, err
}

func (c *Client) tickersURL() string {
	return strings.TrimRight(c.WWWBase, "/") + "/files/company_tickers.json"
}

// Tickers fetches the ticker map.
func (c *Client) Tickers(ctx context.Context) ([]Ticker, error) {
	b, ok, err := c.get(ctx, c.tickersURL(), func(m *mirror) string { return m.tickers })
	if err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("company_tickers.json not found")
		}
		return nil, err
	}
	return ParseCompanyTickers(b)
}

// TickerMap resolves symbols to CIKs and CIKs to symbols, from EDGAR's company_tickers.json.
type TickerMap struct {
	bySymbol map[string]string   // canonical symbol -> CIK
	byCIK    map[string][]string // CIK -> its symbols, the file's order (the primary listing first)
}

// CIK resolves a canonical symbol.
func (m TickerMap) CIK(sym string) (string, bool) {
	cik, ok := m.bySymbol[sym]
	return cik, ok
}

// Primary is a CIK's first symbol in the file, which lists each company's primary listing first
// (GOOGL before GOOG, BRK-B before BRK-A, BAC before its preferred shares).
func (m TickerMap) Primary(cik string) (string, bool) {
	if s := m.byCIK[cik]; len(s) > 0 {
		return s[0], true
	}
	return "", false
}

// Len is the number of symbols.
func (m TickerMap) Len() int { return len(m.bySymbol) }

// TickerMap fetches the ticker map. Symbols are those ParseCompanyTickers keeps; a CIK's symbols are
// in the file's row order, which puts its primary listing first.
func (c *Client) TickerMap(ctx context.Context) (TickerMap, error) {
	b, ok, err := c.get(ctx, c.tickersURL(), func(m *mirror) string { return m.tickers })
	if err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("company_tickers.json not found")
		}
		return TickerMap{}, err
	}
	ts, err := ParseCompanyTickers(b)
	if err != nil {
		return TickerMap{}, err
	}
	m := TickerMap{bySymbol: make(map[string]string, len(ts)), byCIK: map[string][]string{}}
	for _, t := range ts {
		m.bySymbol[t.Symbol] = t.CIK
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Row < ts[j].Row })
	for _, t := range ts {
		m.byCIK[t.CIK] = append(m.byCIK[t.CIK], t.Symbol)
	}
	return m, nil
}

func (c *Client) submissionsURL(cik string) string {
	return fmt.Sprintf("%s/submissions/CIK%s.json", strings.TrimRight(c.DataBase, "/"), cik)
}

// Submissions fetches a company's submissions (ok false when EDGAR has none).
func (c *Client) Submissions(ctx context.Context, cik string) (Submissions, bool, error) {
	d, err := c.SubmissionsSince(ctx, cik, Validators{})
	return d.Submissions, d.Found, err
}

// SubmissionsDoc is a fetched submissions document with what tells whether it changed.
type SubmissionsDoc struct {
	Submissions Submissions
	Found       bool // false: EDGAR has none
	NotModified bool // 304 to the validators sent: Submissions is empty
	SHA256      string
	Validators  Validators
}

// SubmissionsSince fetches a company's submissions, conditionally when since is set.
func (c *Client) SubmissionsSince(ctx context.Context, cik string, since Validators) (SubmissionsDoc, error) {
	d, err := c.fetch(ctx, c.submissionsURL(cik), func(m *mirror) string { return m.submissions[cik] }, since)
	out := SubmissionsDoc{Found: d.Found, NotModified: d.NotModified, Validators: d.Validators}
	if err != nil || !d.Found || d.NotModified {
		return out, err
	}
	sum := sha256.Sum256(d.Body)
	out.SHA256 = hex.EncodeToString(sum[:])
	if out.Submissions, err = ParseSubmissions(d.Body); err != nil {
		out.Found = false
	}
	return out, err
}

// CompanyFacts fetches a company's XBRL facts (ok false when EDGAR has none).
func (c *Client) CompanyFacts(ctx context.Context, cik string) (CompanyFacts, bool, error) {
	b, ok, err := c.get(ctx, fmt.Sprintf("%s/api/xbrl/companyfacts/CIK%s.json", strings.TrimRight(c.DataBase, "/"), cik), func(m *mirror) string { return m.facts[cik] })
	if err != nil || !ok {
		return CompanyFacts{}, false, err
	}
	cf, err := ParseCompanyFacts(b)
	return cf, err == nil, err
}

// MirrorCIKs lists the CIKs with companyfacts in a file:// mirror (what a local run ingests by default).
func (c *Client) MirrorCIKs() ([]string, error) {
	if !c.local() {
		return nil, nil
	}
	m, err := c.index()
	if err != nil {
		return nil, err
	}
	var out []string
	for cik := range m.facts {
		out = append(out, cik)
	}
	sort.Strings(out)
	return out, nil
}

// FilingDocumentURL is the EDGAR address of a filing's primary document.
func (c *Client) FilingDocumentURL(cik string, f Filing) string {
	return fmt.Sprintf("%s/Archives/edgar/data/%s/%s/%s", strings.TrimRight(c.WWWBase, "/"), strings.TrimLeft(cik, "0"),
		strings.ReplaceAll(f.Accession, "-", ""), f.PrimaryDocument)
}

// FilingDocument fetches a filing's primary document (ok false when EDGAR or the mirror has none). A
// mirror finds it by EDGAR's document name, or by the shared data set's naming
// (<ticker>-<form>-<filing date>.html) under any of the company's tickers.
func (c *Client) FilingDocument(ctx context.Context, cik string, f Filing, tickers []string) ([]byte, bool, error) {
	if f.PrimaryDocument == "" {
		return nil, false, nil
	}
	return c.get(ctx, c.FilingDocumentURL(cik, f), func(m *mirror) string {
		if p := m.docs[strings.ToLower(f.PrimaryDocument)]; p != "" {
			return p
		}
		for _, t := range tickers {
			name := strings.ToLower(t + "-" + strings.ReplaceAll(f.Form, "/", "") + "-" + f.FilingDate + ".html")
			if p := m.docs[name]; p != "" {
				return p
			}
		}
		return ""
	})
}
