package edge

import (
	"testing"

	"github.com/google/uuid"
)

// TestAppendUUIDIsUUIDString: the request id the edge writes without uuid's String is the same text.
func TestAppendUUIDIsUUIDString(t *testing.T) {
	for range 1000 {
		u := uuid.Must(uuid.NewV7())
		if got, want := string(appendUUID(nil, u)), u.String(); got != want {
			t.Fatalf("appendUUID %s, want %s", got, want)
		}
	}
	var max uuid.UUID
	for i := range max {
		max[i] = 0xff
	}
	for _, u := range []uuid.UUID{uuid.Nil, max, uuid.MustParse("01a21cbb-4e3f-7dd4-b27e-19259540c235")} {
		if got, want := string(appendUUID(make([]byte, 0, 36), u)), u.String(); got != want {
			t.Fatalf("appendUUID %s, want %s", got, want)
		}
	}
}
