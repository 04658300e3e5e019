package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/shariah-screen/shariah/account"
	"github.com/shariah-screen/shariah/screening"
)

// resource is one fixed resource: its URI, name, description and content.
type resource struct {
	uri, name, desc string
	read            func(ctx context.Context) (any, error)
}

func (d Deps) resources() []resource {
	return []resource{
		{"shariah://education/glossary", "Glossary", "Islamic-finance terms: term, arabic, definition, category, references.",
			func(context.Context) (any, error) {
				return map[string]any{"terms": d.Education.SearchGlossary("")}, nil
			}},
		{"shariah://education/methodologies", "Methodologies", "The screening methodologies (AAOIFI, DJIM, FTSE, MSCI, S&P, SC Malaysia) with their thresholds.",
			func(context.Context) (any, error) {
				return map[string]any{"methodologies": d.Education.MethodologySummaries(), "default_ruleset": screening.DefaultRuleset}, nil
			}},
		{"shariah://education/screening-criteria", "Screening criteria", "Business and financial screening criteria.",
			func(context.Context) (any, error) { return d.Education.CriteriaWithThresholds(), nil }},
		{"shariah://education/purification-guide", "Purification guide", "Dividend purification and zakat guide.",
			func(context.Context) (any, error) { return json.RawMessage(d.Education.Purification), nil }},
		{"shariah://disclaimers", "Disclaimers", "The six disclaimers (screening, market data, purification, zakat, ETF look-through, educational).",
			func(context.Context) (any, error) { return map[string]any{"disclaimers": d.Education.Disclaimers}, nil }},
		{"shariah://plans/token-costs", "Plans and token costs", "The plans and the token cost of every REST route.",
			func(context.Context) (any, error) {
				var plans []account.Plan
				for _, p := range d.Plans {
					if p.Public {
						plans = append(plans, p)
					}
				}
				return map[string]any{"plans": plans, "costs": d.Costs}, nil
			}},
		{"shariah://screening/indices", "Indices", "The indices available for bulk screening runs.",
			func(ctx context.Context) (any, error) {
				list, _, err := d.Bulk.Indices(ctx)
				return map[string]any{"indices": list, "count": len(list)}, err
			}},
	}
}

func jsonContents(uri string, v any) ([]mcp.ResourceContents, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
}

// AddResources registers the 7 resources and the methodology template.
func AddResources(s *server.MCPServer, d Deps) {
	for _, r := range d.resources() {
		r := r
		s.AddResource(mcp.NewResource(r.uri, r.name, mcp.WithResourceDescription(r.desc), mcp.WithMIMEType("application/json")),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				v, err := r.read(ctx)
				if err != nil {
					return nil, fmt.Errorf("%s is unavailable right now", r.uri) // never the internal error text
				}
				return jsonContents(r.uri, v)
			})
	}
	s.AddResourceTemplate(mcp.NewResourceTemplate("shariah://education/methodologies/{name}", "Methodology detail",
		mcp.WithTemplateDescription("One methodology: thresholds, screening process, Shariah board, references."), mcp.WithTemplateMIMEType("application/json")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			name := strings.TrimPrefix(req.Params.URI, "shariah://education/methodologies/")
			m, ok := d.Education.Methodology(name)
			if !ok {
				return nil, fmt.Errorf("no methodology %q; known: %s", name, strings.Join(d.Education.MethodologyIDs(), ", "))
			}
			return jsonContents(req.Params.URI, m)
		})
}
