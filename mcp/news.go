package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/shariah-screen/shariah/filings"
)

func (d Deps) newsTools() []tool {
	return []tool{newTool("get_news", "News with sentiment and compliance relevance (filters: symbol, source, category, query, compliance_relevance).",
		lookup, objectOut("articles", "total"), d.getNews)}
}

type newsArgs struct {
	optionalSymbol
	Source    string `json:"source"`
	Category  string `json:"category"`
	Query     string `json:"query" schema:"maxLength=100"`
	Relevance string `json:"compliance_relevance" schema:"enum=high|medium|low"`
	Page      int    `json:"page" schema:"minimum=1,default=1"`
	Limit     int    `json:"limit" schema:"minimum=1,maximum=100,default=20"`
}

func (d Deps) getNews(ctx context.Context, in newsArgs) (any, string, error) {
	if in.Limit < 1 || in.Limit > 100 || in.Page < 1 {
		return nil, "", invalid("page must be at least 1 and limit 1 to 100", "limit")
	}
	q := filings.NewsQuery{Source: in.Source, Category: in.Category, Q: in.Query, Relevance: in.Relevance, Offset: (in.Page - 1) * in.Limit, Limit: in.Limit}
	if in.Symbol != "" {
		a, err := d.resolve(ctx, in.Symbol)
		if err != nil {
			return nil, "", err
		}
		q.Symbol = a.Symbol
	}
	list, total, err := d.News.News(ctx, q)
	if err != nil {
		return nil, "", err
	}
	if list == nil {
		list = []filings.Article{}
	}
	var lines []string
	for _, a := range list {
		lines = append(lines, fmt.Sprintf("%s %s [%s, %s]", a.Published.Format("2006-01-02"), a.Title, a.ComplianceRelevance, a.SentimentLabel))
	}
	return map[string]any{"articles": list, "total": total}, fmt.Sprintf("%d articles.\n%s", total, strings.Join(lines, "\n")), nil
}
