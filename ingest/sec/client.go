package sec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/shariah-screen/shariah/ingest/httpx"
)

// Client reads SEC EDGAR: the ticker map, submissions and companyfacts. Its base URLs are configurable:
// https://www.sec.gov and https://data.sec.gov in production, or a file:// directory holding a mirror in
// any layout (such as ../shared/data/sec): the mirror's JSON files are recognised by their content.
type Client struct {
	HTTP     *httpx.Client
	WWWBase  string // https://www.sec.gov (company_tickers.json)
	DataBase string // https://data.sec.gov (submissions, companyfacts)

	once   sync.Once
	mirror *mirror
	merr   error
}

// mirror indexes a local directory of SEC JSON files by kind and CIK.
type mirror struct {
	tickers     string
	submissions map[string]string // CIK (10 digits) -> file
	facts       map[string]string
}

func (c *Client) local() bool { return strings.HasPrefix(c.DataBase, "file://") }

func (c *Client) index() (*mirror, error) {
	c.once.Do(func() {
		u, err := url.Parse(c.DataBase)
		if err != nil {
			c.merr = err
			return
		}
		m := &mirror{submissions: map[string]string{}, facts: map[string]string{}}
		c.merr = filepath.WalkDir(u.Path, func(p string, d fs.DirEntry, err error) error {
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

func (c *Client) get(ctx context.Context, remote string, local func(*mirror) string) ([]byte, bool, error) {
	if c.local() {
		m, err := c.index()
		if err != nil {
			return nil, false, err
		}
		p := local(m)
		if p == "" {
			return nil, false, nil
		}
		b, err := os.ReadFile(p)
		return b, err == nil, err
	}
	r, err := c.HTTP.Get(ctx, remote)
	if err != nil {
		var se *httpx.StatusError
		if errors.As(err, &se) && se.Status == 404 {
			return nil, false, nil
		}
		return nil, false, err
	}
	return r.Body, true, nil
}

// Tickers fetches the ticker map.
func (c *Client) Tickers(ctx context.Context) ([]Ticker, error) {
	b, ok, err := c.get(ctx, strings.TrimRight(c.WWWBase, "/")+"/files/company_tickers.json", func(m *mirror) string { return m.tickers })
	if err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("company_tickers.json not found")
		}
		return nil, err
	}
	return ParseCompanyTickers(b)
}

// Submissions fetches a company's submissions (ok false when EDGAR has none).
func (c *Client) Submissions(ctx context.Context, cik string) (Submissions, bool, error) {
	b, ok, err := c.get(ctx, fmt.Sprintf("%s/submissions/CIK%s.json", strings.TrimRight(c.DataBase, "/"), cik), func(m *mirror) string { return m.submissions[cik] })
	if err != nil || !ok {
		return Submissions{}, false, err
	}
	s, err := ParseSubmissions(b)
	return s, err == nil, err
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
	return out, nil
}
