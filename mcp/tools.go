package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

// LocalUser owns the watchlists of an assistant on stdio (over HTTP watchlists need a key).
const LocalUser = "mcp-local"

// tool is one MCP tool: its schemas (JSON Schema), annotations and implementation. run returns the
// structured result (an object) and a readable rendering of it.
type tool struct {
	name, desc string
	input      json.RawMessage // derived from the argument struct (schema.go)
	output     string
	hints
	run func(ctx context.Context, args json.RawMessage) (any, string, error)
}

// hints are a tool's annotations (every tool is closed-world).
type hints struct{ readOnly, destructive, idempotent bool }

// lookup is the annotation of a tool that only reads.
var lookup = hints{readOnly: true, idempotent: true}

// newTool is a tool whose arguments decode into T (defaults from T's schema tags first) and whose input
// schema is derived from T.
func newTool[T any](name, desc string, h hints, output string, run func(context.Context, T) (any, string, error)) tool {
	return tool{name: name, desc: desc, hints: h, output: output, input: inputSchema(reflect.TypeFor[T]()),
		run: func(ctx context.Context, raw json.RawMessage) (any, string, error) {
			var in T
			setDefaults(&in)
			if err := bind(raw, &in); err != nil {
				return nil, "", err
			}
			return run(ctx, in)
		}}
}

// describeArg sets the description of one argument of t (for descriptions known only at run time).
func describeArg(t tool, arg, desc string) tool {
	var s map[string]any
	if err := json.Unmarshal(t.input, &s); err != nil {
		panic(err)
	}
	s["properties"].(map[string]any)[arg].(map[string]any)["description"] = desc
	t.input, _ = json.Marshal(s)
	return t
}

// objectOut is the output schema of a tool whose result is an object with these required keys.
func objectOut(required ...string) string {
	schema := map[string]any{"type": "object", "additionalProperties": true}
	if len(required) > 0 {
		schema["required"] = required
	}
	b, _ := json.Marshal(schema)
	return string(b)
}

// families are the tool families, each present when its services are.
func (d Deps) families() []struct {
	on    bool
	tools func() []tool
} {
	return []struct {
		on    bool
		tools func() []tool
	}{
		{d.Screener != nil, d.screeningTools},
		{d.Ref != nil, d.marketTools},
		{d.Ref != nil && d.Catalogs != nil, d.priceHistoryTools},
		{d.Catalogs != nil, d.searchTools},
		{d.Ref != nil && d.Catalogs != nil, d.stockInfoTools},
		{d.Education != nil, d.educationTools},
		{d.Ref != nil, d.calculatorTools},
		{d.Bulk != nil, d.bulkTools},
		{d.Watchlists != nil, d.watchlistTools},
		{d.SukukStore != nil && d.SukukRules != nil, d.sukukTools},
		{d.News != nil, d.newsTools},
		{d.Filings != nil, d.filingsTools},
		{d.Insights != nil, d.insightsTools},
		{d.Ref != nil && d.Screener != nil, d.driftTools},
		{d.Changes != nil, d.changeTools},
		{d.Ref != nil && d.Catalogs != nil, d.dividendTools},
		{d.ETFs != nil, d.etfTools},
		{d.Screener != nil && d.Catalogs != nil, d.portfolioTools},
		{d.Screener != nil && d.Catalogs != nil, d.reportTools},
	}
}

// tools are the tools whose services are present.
func (d Deps) tools() []tool {
	var ts []tool
	for _, f := range d.families() {
		if f.on {
			ts = append(ts, f.tools()...)
		}
	}
	return ts
}

// addTools registers the tools whose services are present.
func addTools(s *server.MCPServer, d Deps) {
	for _, t := range d.tools() {
		t := t
		opts := []mcp.ToolOption{
			mcp.WithDescription(t.desc),
			func(tl *mcp.Tool) {
				tl.InputSchema = mcp.ToolInputSchema{}
				tl.RawInputSchema = t.input
			},
			mcp.WithRawOutputSchema(json.RawMessage(t.output)),
			mcp.WithReadOnlyHintAnnotation(t.readOnly),
			mcp.WithDestructiveHintAnnotation(t.destructive),
			mcp.WithIdempotentHintAnnotation(t.idempotent),
			mcp.WithOpenWorldHintAnnotation(false),
		}
		s.AddTool(mcp.NewTool(t.name, opts...), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			raw, _ := json.Marshal(req.GetArguments())
			res, text, err := t.run(ctx, raw)
			if err != nil {
				return errorResult(err), nil
			}
			return mcp.NewToolResultStructured(res, text), nil
		})
	}
}

// errorResult turns an error into a tool result with isError: a domain error's message (and its
// field problems), never the text of an internal error.
func errorResult(err error) *mcp.CallToolResult {
	var de *shariah.Error
	if !errors.As(err, &de) || de.Code == shariah.EINTERNAL {
		return mcp.NewToolResultError("Internal error.")
	}
	msg := de.Message
	if d, ok := de.Detail.(map[string]any); ok {
		if list, ok := d["errors"].([]shariah.FieldError); ok {
			var parts []string
			for _, fe := range list {
				var loc []string
				for _, l := range fe.Loc {
					loc = append(loc, fmt.Sprint(l))
				}
				parts = append(parts, strings.Join(loc, ".")+": "+fe.Msg)
			}
			msg += " " + strings.Join(parts, "; ")
		}
	}
	return mcp.NewToolResultError(de.Code + ": " + msg)
}

// bind decodes the arguments; a type mismatch is a validation error naming the argument.
func bind(raw json.RawMessage, dst any) error {
	if err := json.Unmarshal(raw, dst); err != nil {
		var te *json.UnmarshalTypeError
		var v shariah.Validation
		if errors.As(err, &te) {
			v.Add("wrong type: expected "+te.Type.String(), "type_error", append([]any{"arguments"}, shariah.TypeErrorLoc(raw, dst, te)...)...)
		} else {
			v.Add("arguments are not a JSON object", "type_error", "arguments")
		}
		return v.Err()
	}
	return nil
}

// resolve finds a symbol argument (422-style error when malformed, not found when unknown).
func (d Deps) resolve(ctx context.Context, raw string) (shariah.Asset, error) {
	return d.Catalogs.Find(ctx, raw, "arguments", "symbol")
}

// verdict is the verdict sentence of a screening with the disclaimer every screening answer carries.
func verdict(r screening.Result) string {
	return screening.VerdictSentence(r) + " Automated analysis of public data, not a religious ruling."
}

// invalid is a validation error of one argument.
func invalid(msg, arg string) error {
	var v shariah.Validation
	v.Add(msg, "value_error", "arguments", arg)
	return v.Err()
}
