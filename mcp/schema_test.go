package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	shariah "github.com/shariah-screen/shariah"
)

type schemaProbe struct {
	symbolArg
	Kind   string          `json:"kind" jsonschema:"What to fetch." schema:"required,enum=a|b"`
	Limit  int             `json:"limit" schema:"minimum=1,maximum=50,default=5"`
	Amount *shariah.Number `json:"amount" schema:"exclusiveMinimum=0,maximum=1000000000000000"`
	Items  []struct {
		Name string `json:"name" schema:"required"`
	} `json:"items" schema:"maxItems=3"`
	Period string `json:"period" schema:"default=1y"`
}

// TestSchemaFromStruct: the derived schema states every tag (types, required, enum, bounds, defaults,
// descriptions, embedded fields, nested items) and the defaults it states are the decoded defaults.
func TestSchemaFromStruct(t *testing.T) {
	t.Parallel()
	var got map[string]any
	json.Unmarshal(inputSchema(reflect.TypeFor[schemaProbe]()), &got)
	var want map[string]any
	json.Unmarshal([]byte(`{"type":"object","additionalProperties":false,"required":["symbol","kind"],"properties":{
		"symbol":{"type":"string","minLength":1,"maxLength":20,"description":"Ticker (AAPL, BRK-B, 7203.T)."},
		"kind":{"type":"string","enum":["a","b"],"description":"What to fetch."},
		"limit":{"type":"integer","minimum":1,"maximum":50,"default":5},
		"amount":{"type":"number","exclusiveMinimum":0,"maximum":1000000000000000},
		"items":{"type":"array","maxItems":3,"items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},
		"period":{"type":"string","default":"1y"}}}`), &want)
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		t.Errorf("schema\n%s\nwant the tags' schema", g)
	}
	var in schemaProbe
	setDefaults(&in)
	if in.Limit != 5 || in.Period != "1y" || in.Kind != "" {
		t.Errorf("defaults %+v", in)
	}
	tl := newTool("probe", "", lookup, objectOut(), func(_ context.Context, in schemaProbe) (any, string, error) { return in, "", nil })
	out, _, err := tl.run(context.Background(), json.RawMessage(`{"symbol":"AAPL","kind":"a","limit":7}`))
	if p := out.(schemaProbe); err != nil || p.Limit != 7 || p.Period != "1y" || p.Symbol != "AAPL" {
		t.Errorf("decoded %+v, %v", out, err)
	}
}
