// Package sec reads SEC EDGAR documents into the domain values of package shariah, one file per kind
// of document: companyfacts.go (XBRL companyfacts JSON), ixbrl.go (inline-XBRL 10-K and 10-Q primary
// documents, read into companyfacts form), fundamentals.go (the one concept-to-input mapping both feed),
// submissions.go (filings and company identity), tickers.go (company_tickers.json) and cik.go. The
// readers are pure: bytes in, values out, testable offline on the real files of the shared data folder.
// Fetching (client.go: a declared User-Agent and one process-wide limit below SEC's 10 requests a
// second), choosing companies (coverage.go), the companyfacts.zip path (bulkzip.go) and storing
// (source.go) use them.
package sec
