// Package mcptest connects the tests' MCP clients (in-process, Streamable HTTP, SSE) as an assistant
// does: start the transport, then the initialize handshake.
package mcptest

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Connect starts c and initializes the session, failing the test on error.
func Connect(tb testing.TB, c *client.Client) {
	tb.Helper()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	ini := mcpgo.InitializeRequest{}
	ini.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	ini.Params.ClientInfo = mcpgo.Implementation{Name: "test", Version: "0"}
	if _, err := c.Initialize(ctx, ini); err != nil {
		tb.Fatal(err)
	}
}
