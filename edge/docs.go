package edge

import (
	"bytes"
	"compress/gzip"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
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

var (
	plainOnce   sync.Once
	plainAssets = map[string][]byte{}
)

// docsAsset serves an embedded asset, gzip-encoded when the client accepts it, else decompressed
// (once, then kept).
func (s *Server) docsAsset(c *fiber.Ctx) error {
	name := path.Base(c.Params("file"))
	gz, err := docsFS.ReadFile("docs/" + name + ".gz")
	if err != nil {
		return shariah.Errorf(shariah.ENOTFOUND, "No such documentation asset.")
	}
	switch {
	case strings.HasSuffix(name, ".js"):
		c.Set(fiber.HeaderContentType, "application/javascript; charset=utf-8")
	case strings.HasSuffix(name, ".css"):
		c.Set(fiber.HeaderContentType, "text/css; charset=utf-8")
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=86400")
	c.Vary(fiber.HeaderAcceptEncoding)
	if strings.Contains(c.Get(fiber.HeaderAcceptEncoding), "gzip") {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		return c.Send(gz)
	}
	plainOnce.Do(func() {
		entries, _ := docsFS.ReadDir("docs")
		for _, e := range entries {
			raw, _ := docsFS.ReadFile("docs/" + e.Name())
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				continue
			}
			b, err := io.ReadAll(zr)
			if err == nil {
				plainAssets[strings.TrimSuffix(e.Name(), ".gz")] = b
			}
		}
	})
	b, ok := plainAssets[name]
	if !ok {
		return fmt.Errorf("asset %s does not decompress", name)
	}
	return c.Send(b)
}

func (s *Server) metricsHandler(c *fiber.Ctx) error { return s.metrics.handler(c) }
