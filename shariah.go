// Package shariah is the domain of the Shariah-screening and Islamic-finance data service: its types,
// rules and the interfaces of the stores that hold them. It does no I/O. The HTTP edge, the asynq
// workers, the ingesters and the MCP server all call this package, so every rule has one implementation.
package shariah

// APIVersion is the version of the API contract (edge/openapi.yaml info.version).
const APIVersion = "1.0.0"
