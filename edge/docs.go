package edge

import (
	"context"
	"embed"
	"encoding/json"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gofiber/fiber/v2"
)

// The OpenAPI document is written by hand in openapi.yaml and served as JSON at /openapi.json. The
// documentation pages use Swagger UI (swagger-ui-dist 5.35.0, Apache-2.0) and Redoc (2.5.2, MIT),
// embedded gzip-compressed so they work offline; scripts/docs-assets.sh refreshes them from npm.
//
//go:embed openapi.yaml
var openapiYAML []byte

//go:embed docs/*.gz
var docsFS embed.FS

var (
	specOnce sync.Once
	specJSON []byte
	specDoc  *openapi3.T
	specErr  error
)

// OpenAPI returns the parsed OpenAPI document and its JSON form.
func OpenAPI() (*openapi3.T, []byte, error) {
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		specDoc, specErr = loader.LoadFromData(openapiYAML)
		if specErr != nil {
			return
		}
		if specErr = specDoc.Validate(context.Background()); specErr != nil {
			return
		}
		specJSON, specErr = json.Marshal(specDoc)
	})
	return specDoc, specJSON, specErr
}

func (s *Server) openapiJSON(c *fiber.Ctx) error {
	_, b, err := OpenAPI()
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(b)
}

const swaggerHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shariah screening API - Swagger UI</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>
window.ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui", validatorUrl: null,
  deepLinking: true, persistAuthorization: true});
</script></body></html>`

const redocHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shariah screening API - Redoc</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{margin:0;padding:0}</style></head>
<body><redoc spec-url="/openapi.json"></redoc>
<script src="/docs/assets/redoc.standalone.js"></script></body></html>`

func (s *Server) swaggerPage(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.SendString(swaggerHTML)
}

func (s *Server) redocPage(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.SendString(redocHTML)
}

var docsAssets = &assetDir{fs: docsFS, dir: "docs", what: "documentation"}

// docsAsset serves an embedded asset of the documentation pages.
func (s *Server) docsAsset(c *fiber.Ctx) error { return docsAssets.serve(c) }

func (s *Server) metricsHandler(c *fiber.Ctx) error { return s.metrics.handler(c) }
