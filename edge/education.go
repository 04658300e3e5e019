package edge

import (
	"html"
	"strings"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
	"github.com/shariah-screen/shariah/screening"
)

func (s *Server) glossary(c *fiber.Ctx) error {
	var v shariah.Validation
	q := c.Query("q")
	if len(q) > 100 {
		v.Add("at most 100 characters", "value_error.any_str.max_length", "query", "q")
	}
	if err := v.Err(); err != nil {
		return err
	}
	terms := s.Education.SearchGlossary(q)
	return c.JSON(fiber.Map{"terms": terms, "count": len(terms), "query": q})
}

func (s *Server) methodologies(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"methodologies": s.Education.MethodologySummaries(), "default_ruleset": screening.DefaultRuleset,
		"rulesets": s.Screener.Rulesets.Names()})
}

func (s *Server) methodologyDetail(c *fiber.Ctx) error {
	name := c.Params("name")
	d, ok := s.Education.Methodology(strings.TrimSpace(name))
	if !ok {
		return shariah.Errorf(shariah.ENOTFOUND, "No methodology %q; known: %s.", name, strings.Join(s.Education.MethodologyIDs(), ", "))
	}
	return c.JSON(d)
}

func (s *Server) screeningCriteria(c *fiber.Ctx) error {
	return c.JSON(s.Education.CriteriaWithThresholds())
}

func (s *Server) purificationGuide(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(s.Education.Purification)
}

func (s *Server) disclaimers(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"disclaimers": s.Education.Disclaimers})
}

func (s *Server) disclaimer(c *fiber.Ctx) error {
	d, ok := s.Education.Disclaimer(c.Params("disclaimer_id"))
	if !ok {
		return shariah.Errorf(shariah.ENOTFOUND, "No disclaimer %q; known: %s.", c.Params("disclaimer_id"), strings.Join(shariah.DisclaimerIDs, ", "))
	}
	return c.JSON(d)
}

// legalPage is the long-form page the disclaimers' url fields link to.
func (s *Server) legalPage(c *fiber.Ctx) error {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Disclaimers</title>
<style>body{font-family:sans-serif;max-width:46rem;margin:2rem auto;line-height:1.5}</style></head><body><h1>Disclaimers</h1>`)
	for _, d := range s.Education.Disclaimers {
		b.WriteString(`<section id="` + html.EscapeString(d.ID) + `"><h2>` + html.EscapeString(d.Title) + `</h2><p>` + html.EscapeString(d.Text) +
			`</p><p><small>Version ` + html.EscapeString(d.Version) + `, severity ` + html.EscapeString(d.Severity) + `.</small></p></section>`)
	}
	b.WriteString(`</body></html>`)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.SendString(b.String())
}
