package analytics

import (
	"context"
	"testing"

	"github.com/shariah-screen/shariah/internal/testsvc"
)

// TestAddColumnRunsAgainSafely: 18.16 has no ADD COLUMN IF NOT EXISTS; a migration interrupted after its
// ALTERs and before its record runs them again, and Migrate must skip the columns that exist.
func TestAddColumnRunsAgainSafely(t *testing.T) {
	t.Parallel()
	db, err := Open(testsvc.ClickHouseDB(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	stmts, err := db.migrationStatements("migrations/003_usage_analytics.sql")
	if err != nil {
		t.Fatal(err)
	}
	alters := 0
	for _, stmt := range stmts {
		has, err := db.hasAddedColumn(ctx, stmt)
		if err != nil {
			t.Fatal(err)
		}
		if alterAddColumn.MatchString(stmt) {
			alters++
			if !has {
				t.Fatalf("the column of %q exists after the migration, yet is not seen", stmt)
			}
		} else if has {
			t.Fatalf("%q is not an ADD COLUMN", stmt)
		}
	}
	if alters != 2 {
		t.Fatalf("%d ADD COLUMN statements, want 2 (plan, error_code)", alters)
	}
	// and the statements that are not skipped are safe to run again
	for _, stmt := range stmts {
		if alterAddColumn.MatchString(stmt) {
			continue
		}
		if err := db.Conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("running %q again: %v", firstLine(stmt), err)
		}
	}
}
