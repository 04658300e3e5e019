package edge

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
)

// assetDir serves the files of one embedded directory: NAME.gz files gzip-encoded when the client
// accepts it, else decompressed (once, then kept); other files as they are.
type assetDir struct {
	fs   embed.FS
	dir  string
	what string // in the 404 message: "documentation", "dashboard"

	once  sync.Once
	plain map[string][]byte
}

func (a *assetDir) serve(c *fiber.Ctx) error {
	name := path.Base(c.Params("file"))
	switch {
	case strings.HasSuffix(name, ".js"):
		c.Set(fiber.HeaderContentType, "application/javascript; charset=utf-8")
	case strings.HasSuffix(name, ".css"):
		c.Set(fiber.HeaderContentType, "text/css; charset=utf-8")
	default:
		return shariah.Errorf(shariah.ENOTFOUND, "No such %s asset.", a.what)
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=86400")
	if b, err := a.fs.ReadFile(a.dir + "/" + name); err == nil {
		return c.Send(b)
	}
	gz, err := a.fs.ReadFile(a.dir + "/" + name + ".gz")
	if err != nil {
		return shariah.Errorf(shariah.ENOTFOUND, "No such %s asset.", a.what)
	}
	c.Vary(fiber.HeaderAcceptEncoding)
	if acceptsGzip(c.Get(fiber.HeaderAcceptEncoding)) {
		c.Set(fiber.HeaderContentEncoding, "gzip")
		return c.Send(gz)
	}
	a.once.Do(func() {
		a.plain = map[string][]byte{}
		entries, _ := fs.ReadDir(a.fs, a.dir)
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".gz") {
				continue
			}
			raw, _ := a.fs.ReadFile(a.dir + "/" + e.Name())
			zr, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				continue
			}
			if b, err := io.ReadAll(zr); err == nil {
				a.plain[strings.TrimSuffix(e.Name(), ".gz")] = b
			}
		}
	})
	b, ok := a.plain[name]
	if !ok {
		return fmt.Errorf("asset %s does not decompress", name)
	}
	return c.Send(b)
}
