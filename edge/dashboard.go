package edge

import (
	"embed"

	"github.com/gofiber/fiber/v2"
)

// The dashboard is one static page, its script and style sheet, and uPlot (1.6.32, MIT, vendored
// gzip-compressed with its LICENSE; scripts/dashboard-assets.sh refreshes it from npm) for the operator's
// time series; the analyst's charts are the server's own SVG pictures. Everything is embedded: the page
// works offline, with no CDN and no external font.
//
//go:embed dashboard/index.html dashboard/*.js dashboard/*.css dashboard/*.gz
var dashboardFS embed.FS

var dashboardAssets = &assetDir{fs: dashboardFS, dir: "dashboard", what: "dashboard"}

// dashboardCSP allows the page's own files and nothing else: no inline script or style, no other
// origin; images may be data: URLs (the empty favicon) and the API's SVG pictures.
const dashboardCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// dashboardPage serves the page (no key needed to load it: it asks for one and keeps it in memory).
func (s *Server) dashboardPage(c *fiber.Ctx) error {
	b, err := dashboardFS.ReadFile("dashboard/index.html")
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentSecurityPolicy, dashboardCSP)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.Send(b)
}

// dashboardAsset serves the page's embedded script, style sheet and uPlot.
func (s *Server) dashboardAsset(c *fiber.Ctx) error { return dashboardAssets.serve(c) }
