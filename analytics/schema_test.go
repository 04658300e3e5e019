package analytics

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/schema-*.sql from the migrations")

// TestSchemaGolden holds the statements Migrate runs: the single-node schema must not change when no
// cluster is named, and the cluster form is what README describes.
func TestSchemaGolden(t *testing.T) {
	for _, c := range []struct{ file, cluster string }{{"schema-single.sql", ""}, {"schema-cluster.sql", "main"}} {
		db := &DB{Name: "shariah", Cluster: c.cluster}
		stmts, err := db.Schema()
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(stmts, ";\n\n") + ";\n"
		path := filepath.Join("testdata", c.file)
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s differs from the statements Migrate runs (go test ./analytics -run TestSchemaGolden -update):\n%s", path, got)
		}
	}
}
