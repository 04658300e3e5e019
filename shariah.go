// Package shariah is the kernel of the Shariah-screening and Islamic-finance data service: the
// vocabulary every context shares (errors and validation, numbers, assets, prices and bars, fundamentals,
// dividends, holdings, disclaimers, the caller, served bodies and their ETags, source counts). It does no
// I/O. The contexts are packages of their own, each importing only the kernel and the contexts below it
// (scripts/check-imports.sh): account, catalog, filings, sukuk; market; screening; finance, insights,
// bulk; etf.
package shariah

// APIVersion is the version of the API contract (edge/openapi.yaml info.version).
const APIVersion = "1.0.0"
