package edge

import (
	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/filings"
)

// NewsSourceInfo is a configured news source.
type NewsSourceInfo struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	Kind string `json:"kind"` // feed (RSS or Atom) or sec (8-K events)
}

var relevanceLevels = []string{"high", "medium", "low"}

func (s *Server) news(c *fiber.Ctx) error {
	var v shariah.Validation
	page := intQuery(c, &v, "page", 1, 1, 100000)
	size := intQuery(c, &v, "page_size", 20, 1, 100)
	q := filings.NewsQuery{Source: c.Query("source"), Category: c.Query("category"), Q: c.Query("q"), Relevance: c.Query("compliance_relevance")}
	if q.Relevance != "" && !oneOf(q.Relevance, relevanceLevels) {
		v.Add("must be high, medium or low", "value_error.enum", "query", "compliance_relevance")
	}
	if len(q.Q) > 100 {
		v.Add("at most 100 characters", "value_error.any_str.max_length", "query", "q")
	}
	if raw := c.Query("symbol"); raw != "" {
		sym, ok := shariah.NormalizeSymbol(raw)
		if !ok {
			v.Add("not a valid symbol", "value_error.symbol", "query", "symbol")
		}
		q.Symbol = sym
	}
	if err := v.Err(); err != nil {
		return err
	}
	q.Offset, q.Limit = (page-1)*size, size
	list, total, err := s.News.News(c.UserContext(), q)
	if err != nil {
		return err
	}
	if list == nil {
		list = []filings.Article{}
	}
	return c.JSON(fiber.Map{"articles": list, "total": total, "page": page, "page_size": size})
}

func (s *Server) newsSources(c *fiber.Ctx) error {
	health, err := s.healthByName(c)
	if err != nil {
		return err
	}
	out := make([]fiber.Map, 0, len(s.NewsSources))
	for _, src := range s.NewsSources {
		h, ok := health["news:"+src.Name]
		if src.Kind == "sec" {
			h, ok = health["sec"]
		}
		entry := fiber.Map{"name": src.Name, "url": src.URL, "kind": src.Kind, "health": nil}
		if ok {
			entry["health"] = h
		}
		out = append(out, entry)
	}
	return c.JSON(fiber.Map{"sources": out})
}

func (s *Server) healthByName(c *fiber.Ctx) (map[string]filings.SourceHealth, error) {
	out := map[string]filings.SourceHealth{}
	if s.Health == nil {
		return out, nil
	}
	all, err := s.Health.Health(c.UserContext())
	if err != nil {
		return nil, err
	}
	for _, h := range all {
		out[h.Name] = h
	}
	return out, nil
}

func (s *Server) symbolNews(c *fiber.Ctx) error {
	var v shariah.Validation
	limit := intQuery(c, &v, "limit", 20, 1, 100)
	rel := c.Query("compliance_relevance")
	if rel != "" && !oneOf(rel, relevanceLevels) {
		v.Add("must be high, medium or low", "value_error.enum", "query", "compliance_relevance")
	}
	if err := v.Err(); err != nil {
		return err
	}
	a, err := s.symbolParam(c)
	if err != nil {
		return err
	}
	list, total, err := s.News.News(c.UserContext(), filings.NewsQuery{Symbol: a.Symbol, Relevance: rel, Limit: limit})
	if err != nil {
		return err
	}
	if list == nil {
		list = []filings.Article{}
	}
	return c.JSON(fiber.Map{"symbol": a.Symbol, "articles": list, "total": total})
}
