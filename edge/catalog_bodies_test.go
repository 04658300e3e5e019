package edge

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/shariah-screen/shariah/catalog"
)

// TestCatalogBodiesMemoise: a body is encoded once per key and catalog (the second request does not
// call the answer), a new catalog starts the memo over, and a body too large for it is not kept.
func TestCatalogBodiesMemoise(t *testing.T) {
	var b catalogBodies
	answered := 0
	cat := catalog.New(nil)
	size := 10
	app := fiber.New()
	app.Get("/", func(c *fiber.Ctx) error {
		return b.send(c, cat, []byte("k"+c.Query("k")), func() any {
			answered++
			return strings.Repeat("x", size)
		})
	})
	get := func(k string) string {
		resp, err := app.Test(httptest.NewRequest("GET", "/?k="+k, nil), -1)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	first := get("1")
	if again := get("1"); again != first || answered != 1 {
		t.Fatalf("second request: answered %d times, body %q vs %q", answered, again, first)
	}
	get("2")
	if answered != 2 {
		t.Fatalf("another key answered %d times in all, want 2", answered)
	}
	cat = catalog.New(nil) // a reload
	get("1")
	if answered != 3 {
		t.Fatalf("after a new catalog: answered %d times in all, want 3", answered)
	}
	size = maxCatalogBodies/8 + 1 // over an eighth of the memo: not kept
	get("big")
	get("big")
	if answered != 5 {
		t.Fatalf("a body too large for the memo: answered %d times in all, want 5", answered)
	}
}
