package screening_test

import (
	"strings"
	"testing"

	"github.com/shariah-screen/shariah/screening"
)

// TestResultVariant: the stored result's variant names the format and the Result type's shape.
func TestResultVariant(t *testing.T) {
	t.Parallel()
	if !strings.HasPrefix(screening.ResultVariant, "r1-") || len(screening.ResultVariant) <= len("r1-") {
		t.Fatalf("ResultVariant %q", screening.ResultVariant)
	}
}
