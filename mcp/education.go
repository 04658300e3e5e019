package mcp

import (
	"context"
	"encoding/json"
	"strings"

	shariah "github.com/shariah-screen/shariah"
)

func (d Deps) educationTools() []tool {
	return []tool{
		newTool("islamic_finance_education", "Glossary, methodologies (summary or detail), screening criteria and the purification guide.",
			lookup, objectOut("topic", "content"), d.islamicFinanceEducation),
		newTool("get_disclaimers", "The disclaimers (all, or one by id: screening, market_data, purification, zakat, etf_lookthrough, educational).",
			lookup, objectOut("disclaimers"), d.getDisclaimers),
	}
}

type educationArgs struct {
	Topic           string `json:"topic" schema:"required,enum=glossary|methodologies|methodology_detail|screening_criteria|purification_guide"`
	Query           string `json:"query" schema:"maxLength=100"`
	MethodologyName string `json:"methodology_name"`
}

func (d Deps) islamicFinanceEducation(ctx context.Context, in educationArgs) (any, string, error) {
	var content any
	switch in.Topic {
	case "glossary":
		content = map[string]any{"terms": d.Education.SearchGlossary(in.Query)}
	case "methodologies":
		content = map[string]any{"methodologies": d.Education.MethodologySummaries()}
	case "methodology_detail":
		m, ok := d.Education.Methodology(in.MethodologyName)
		if !ok {
			return nil, "", shariah.Errorf(shariah.ENOTFOUND, "No methodology %q; known: %s.", in.MethodologyName, strings.Join(d.Education.MethodologyIDs(), ", "))
		}
		content = m
	case "screening_criteria":
		content = d.Education.CriteriaWithThresholds()
	case "purification_guide":
		content = json.RawMessage(d.Education.Purification)
	default:
		var v shariah.Validation
		v.Add("must be glossary, methodologies, methodology_detail, screening_criteria or purification_guide", "value_error.enum", "arguments", "topic")
		return nil, "", v.Err()
	}
	b, _ := json.MarshalIndent(content, "", "  ")
	return map[string]any{"topic": in.Topic, "content": content}, string(b), nil
}

type disclaimersArgs struct {
	ID string `json:"id" schema:"enum=screening|market_data|purification|zakat|etf_lookthrough|educational"`
}

func (d Deps) getDisclaimers(ctx context.Context, in disclaimersArgs) (any, string, error) {
	list := d.Education.Disclaimers
	if in.ID != "" {
		one, ok := d.Education.Disclaimer(in.ID)
		if !ok {
			return nil, "", shariah.Errorf(shariah.ENOTFOUND, "No disclaimer %q.", in.ID)
		}
		list = []shariah.Disclaimer{one}
	}
	var lines []string
	for _, x := range list {
		lines = append(lines, x.Title+": "+x.Text)
	}
	return map[string]any{"disclaimers": list}, strings.Join(lines, "\n"), nil
}
