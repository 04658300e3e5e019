// Command shariah is the one binary of the service. Subcommands:
//
//	serve    the HTTP edge (API on SHARIAH_HTTP_ADDR)
//	worker   the asynq workers (bulk index and ETF screens)
//	ingest   the cron ingesters (filings, XBRL facts, prices, news); --companyfacts-zip P: one bulk run
//	mcp      the MCP server (stdio; --http serves Streamable HTTP and SSE on SHARIAH_MCP_ADDR)
//	all      all of the above in one process (MCP over HTTP), for local use
//	migrate  create or update the ClickHouse schema
//	load     import a data pack (--dir D)
//	keys     manage API keys: create --email E --plan P | set-plan PREFIX PLAN | revoke PREFIX
//	probe    GET a URL, exit 0 on a 2xx (container health checks: the image has no curl)
//
// Each long-running subcommand is a group of actors (oklog/run) that stops gracefully on SIGINT or
// SIGTERM.
package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"
)

const usage = `usage: shariah <command> [flags]

commands:
  serve     serve the HTTP API
  worker    run the asynq workers
  ingest    run the cron ingesters (--companyfacts-zip PATH_OR_URL: ingest SEC's companyfacts.zip once)
  mcp       serve MCP on stdio (--http: Streamable HTTP and SSE on SHARIAH_MCP_ADDR)
  all       serve, worker, ingest and MCP over HTTP in one process
  migrate   create or update the ClickHouse schema
  load      import a data pack: load --dir DIR
  keys      create --email E --plan P | set-plan PREFIX PLAN | revoke PREFIX
  probe     GET a URL (e.g. http://127.0.0.1:8000/readyz); exit 0 on a 2xx, 1 otherwise

Configuration comes from SHARIAH_* environment variables (see README.md).
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	// Every request gets a UUIDv7 request id: with the pool, its random bits come from crypto/rand in
	// batches instead of one read per request (2.6% of a metered request's CPU). The ids and tokens made
	// from it are identifiers, not secrets (API keys come from crypto/rand directly, apikey.go). Set
	// before any goroutine runs, as EnableRandPool requires.
	uuid.EnableRandPool()
	var err error
	switch cmd {
	case "serve", "worker", "all":
		err = runProcesses(cmd)
	case "ingest":
		err = runIngest(args)
	case "mcp":
		err = runMCP(args)
	case "migrate":
		err = runMigrate()
	case "load":
		err = runLoad(args)
	case "keys":
		err = runKeys(args)
	case "probe":
		err = runProbe(args)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(os.Stderr, "shariah:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "shariah "+cmd+":", err)
		os.Exit(1)
	}
}

// usageError is a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// runProbe answers a container health check: GET the URL within 2 s, success on a 2xx.
func runProbe(args []string) error {
	if len(args) != 1 {
		return usageError{"probe URL"}
	}
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(args[0])
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s answered %d", args[0], resp.StatusCode)
	}
	return nil
}
