package sec

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/shariah-screen/shariah/insights"
)

// CompanyFactsZipURL is SEC's nightly archive of every filer's companyfacts (one CIK##########.json a
// filer, about 1 GB zipped).
const CompanyFactsZipURL = "https://www.sec.gov/Archives/edgar/daily-index/xbrl/companyfacts.zip"

// MaxZipMember bounds one member's uncompressed size: the largest filers' companyfacts are tens of
// megabytes, and a member is read whole (ParseCompanyFacts decodes bytes), so this bounds memory.
const MaxZipMember = 256 << 20

// TrajectoryBatcher is a TrajectoryStore that writes many symbols' quarters in one insert
// (analytics.Trajectory): ClickHouse makes a part per insert, and one insert a company made the bulk
// path wait on ClickHouse most of its time.
type TrajectoryBatcher interface {
	PutTrajectories(ctx context.Context, bySymbol map[string][]insights.TrajectoryPoint) error
}

// trajectoryBatch is the number of symbols whose quarters the bulk path writes in one insert.
const trajectoryBatch = 500

// BulkReport is what a companyfacts.zip run did.
type BulkReport struct {
	Members  int           `json:"members"`   // CIK##########.json members seen
	Stored   int           `json:"stored"`    // filers stored
	Symbols  int           `json:"symbols"`   // symbols they were stored under
	NoTicker int           `json:"no_ticker"` // filers the ticker map has no symbol for (funds, private issuers): skipped unread
	Ignored  int           `json:"ignored"`   // members not named CIK##########.json
	Failed   []string      `json:"failed,omitempty"`
	Bytes    int64         `json:"bytes"` // size of the zip
	Elapsed  time.Duration `json:"elapsed_ns"`
}

// memberSymbols are the symbols a filer's data is stored under: its index symbols and its primary
// ticker, sorted (none: a filer without a ticker, skipped).
func memberSymbols(tm TickerMap, inIndex map[string][]string, cik string) []string {
	syms := inIndex[cik]
	if p, ok := tm.Primary(cik); ok && !slices.Contains(syms, p) {
		syms = append(slices.Clone(syms), p)
	}
	slices.Sort(syms)
	return syms
}

// IngestZip ingests every filer of a companyfacts.zip with a ticker: src is a path, a file:// URL or an
// http(s) URL (CompanyFactsZipURL). Each member is mapped and stored as the per-company path stores
// companyfacts (storeFacts), under the filer's primary symbol and any index constituent sharing its
// CIK (GOOG beside GOOGL); submissions (filings, 8-K events) are not in the zip and stay the
// per-company path's work. A bad member is reported and skipped; the others go on.
//
// Memory is bounded by one member: a zip's directory is at its end, and its members may be written
// with data descriptors (sizes after the data) that a sequential reader cannot skip safely, so a URL is
// first streamed to a temporary file (TMPDIR; about 1.2 GB of disk, 32 KiB of memory) and then read
// with archive/zip, one member at a time, through one reused buffer.
func (s *Source) IngestZip(ctx context.Context, src string) (BulkReport, error) {
	start := time.Now()
	rep := BulkReport{}
	zr, size, closeZip, err := s.openZip(ctx, src)
	if err != nil {
		return rep, err
	}
	defer closeZip()
	rep.Bytes = size
	tm, err := s.Client.TickerMap(ctx)
	if err != nil {
		return rep, fmt.Errorf("ticker map: %w", err)
	}
	inIndex, _, err := s.constituents(ctx, tm) // index symbols by CIK
	if err != nil {
		return rep, err
	}
	var buf bytes.Buffer
	batcher, _ := s.Trajectory.(TrajectoryBatcher)
	var batch map[string][]insights.TrajectoryPoint
	flush := func(ctx context.Context) {
		if len(batch) == 0 {
			return
		}
		if err := batcher.PutTrajectories(ctx, batch); err != nil {
			rep.Failed = append(rep.Failed, fmt.Sprintf("trajectory of %d symbols: %v", len(batch), err))
		}
		batch = map[string][]insights.TrajectoryPoint{}
	}
	if batcher != nil {
		batch = map[string][]insights.TrajectoryPoint{}
	}
	for _, f := range zr.File {
		if ctx.Err() != nil {
			break
		}
		cik, ok := memberCIK(f.Name)
		if !ok {
			rep.Ignored++
			continue
		}
		rep.Members++
		syms := memberSymbols(tm, inIndex, cik)
		if len(syms) == 0 {
			rep.NoTicker++
			continue
		}
		if err := s.zipMember(ctx, f, cik, syms, &buf, batch); err != nil {
			rep.Failed = append(rep.Failed, f.Name+": "+err.Error())
			continue
		}
		rep.Stored++
		rep.Symbols += len(syms)
		if len(batch) >= trajectoryBatch {
			flush(ctx)
		}
		if rep.Stored%1000 == 0 {
			s.log().Info("companyfacts.zip progress", "stored", rep.Stored, "members", rep.Members)
		}
	}
	// After a cancellation too: what was stored keeps its trajectory and is served.
	flush(context.WithoutCancel(ctx))
	rep.Elapsed = time.Since(start)
	if rep.Stored > 0 {
		if _, err := s.Ref.BumpVersion(context.WithoutCancel(ctx)); err != nil {
			return rep, err
		}
	}
	if ctx.Err() != nil {
		return rep, ctx.Err()
	}
	if len(rep.Failed) > 0 {
		return rep, fmt.Errorf("%d of %d members failed (%d stored): %s", len(rep.Failed), rep.Members, rep.Stored, joinCapped(rep.Failed, 20))
	}
	return rep, nil
}

// memberCIK reads the CIK of a member named CIK##########.json (in any folder).
func memberCIK(name string) (string, bool) {
	base := path.Base(name)
	digits, ok := strings.CutPrefix(strings.TrimSuffix(base, ".json"), "CIK")
	if !ok || len(digits) != 10 || !strings.HasSuffix(base, ".json") {
		return "", false
	}
	cik, err := PadCIK(digits)
	return cik, err == nil
}

// zipMember reads, maps and stores one filer. Everything is parsed before anything is written.
func (s *Source) zipMember(ctx context.Context, f *zip.File, cik string, syms []string, buf *bytes.Buffer, batch map[string][]insights.TrajectoryPoint) error {
	if f.UncompressedSize64 > MaxZipMember {
		return fmt.Errorf("%d bytes uncompressed, over the %d limit", f.UncompressedSize64, MaxZipMember)
	}
	rc, err := f.Open()
	if err != nil {
		return err
	}
	buf.Reset()
	_, err = buf.ReadFrom(io.LimitReader(rc, MaxZipMember+1)) // the checksum is verified at the end
	rc.Close()
	if err != nil {
		return err
	}
	cf, err := ParseCompanyFacts(buf.Bytes())
	if err != nil {
		return err
	}
	if string(cf.CIK) != cik {
		return fmt.Errorf("holds the companyfacts of CIK %s", cf.CIK)
	}
	updates := make([]factsUpdate, 0, len(syms))
	for _, sym := range syms {
		u, err := parseFacts(cf, true, nil, sym)
		if err != nil {
			return err
		}
		updates = append(updates, u)
	}
	return s.storeFacts(ctx, updates, batch)
}

// openZip opens the archive at src, downloading an http(s) URL to a temporary file removed on close.
func (s *Source) openZip(ctx context.Context, src string) (*zip.Reader, int64, func(), error) {
	p := src
	if u, err := url.Parse(src); err == nil {
		switch u.Scheme {
		case "http", "https":
			tmp, err := os.CreateTemp("", "companyfacts-*.zip")
			if err != nil {
				return nil, 0, nil, err
			}
			drop := func() { tmp.Close(); os.Remove(tmp.Name()) }
			n, err := s.Client.Download(ctx, src, tmp)
			if err != nil {
				drop()
				return nil, 0, nil, fmt.Errorf("download %s: %w", src, err)
			}
			zr, err := zip.NewReader(tmp, n)
			if err != nil {
				drop()
				return nil, 0, nil, fmt.Errorf("%s: %w", src, err)
			}
			return zr, n, drop, nil
		case "file":
			p = u.Path
		}
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, nil, err
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		f.Close()
		return nil, 0, nil, fmt.Errorf("%s: %w", p, err)
	}
	return zr, st.Size(), func() { f.Close() }, nil
}

// Download streams an SEC document to w: one request with the SEC User-Agent, after a token of the
// shared rate limiter, and no overall timeout (a gigabyte takes minutes; ctx bounds it). httpx.Get is
// not used for it because it holds a body in memory. It is not retried: the scheduler retries the run.
func (c *Client) Download(ctx context.Context, rawURL string, w io.Writer) (int64, error) {
	h := c.client() // the HTTP settings, for the transport and limiter
	if h.Limiter != nil {
		if err := h.Limiter.Wait(ctx); err != nil {
			return 0, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("User-Agent", h.UserAgent)
	resp, err := (&http.Client{Transport: h.HTTP.Transport}).Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: HTTP %d", rawURL, resp.StatusCode)
	}
	return io.Copy(w, resp.Body)
}
