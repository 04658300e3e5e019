package shariah

import (
	"hash/fnv"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Served is a response body exactly as its route answers it, with the body's strong ETag. Quotes and
// screening results are stored this way when they are written, beside the record they are made of, so
// that a cached read is a local lookup and a write of these bytes, with no decoding or encoding per
// request (issue 16). ServeQuote and ServeResult are the one encoding of those bodies: the writers use
// them, and so does the fallback for a record stored without a body (by an older binary).
type Served struct {
	Body []byte
	ETag string // strong and quoted: "…" (ETag)
}

// StoredQuote is a quote's served body with its as-of date (the body's cache lifetime follows it).
type StoredQuote struct {
	Served
	AsOf string
}

// StoredResult is a cached screening result's served body (the result as stored, no methodology's view)
// with what its freshness is judged by: the reference-data version it was computed from and when.
type StoredResult struct {
	Served
	Version    int64
	ScreenedAt time.Time
}

// ETag is the strong ETag of a body: its 64-bit FNV-1a hash in base 36, quoted.
func ETag(body []byte) string {
	h := fnv.New64a()
	h.Write(body)
	return `"` + strconv.FormatUint(h.Sum64(), 36) + `"`
}

// NewServed is a body with its ETag.
func NewServed(body []byte) Served { return Served{Body: body, ETag: ETag(body)} }

// ServedFormat is raised when the encoding of a served body changes in a way the types' shapes do not
// show (a MarshalJSON, the store's upgrade of records read or the quote's disclaimers rule): stored
// bodies of another format are not served, but encoded again from their records.
const ServedFormat = 1

// ShapeHash is a hash of a type's shape as encoding/json sees it (field names, tags and types, nested),
// so that adding, renaming or retyping a field of a served type makes its stored bodies another variant
// without anyone remembering to raise ServedFormat.
func ShapeHash(t reflect.Type) string {
	var b strings.Builder
	writeShape(&b, t, map[reflect.Type]bool{})
	h := fnv.New64a()
	h.Write([]byte(b.String()))
	return strconv.FormatUint(h.Sum64(), 36)
}

func writeShape(b *strings.Builder, t reflect.Type, seen map[reflect.Type]bool) {
	if t.Name() != "" {
		b.WriteString(t.PkgPath() + "." + t.Name())
		if seen[t] {
			return
		}
		seen[t] = true
	}
	b.WriteString("(" + t.Kind().String())
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		b.WriteString(" ")
		writeShape(b, t.Elem(), seen)
	case reflect.Map:
		b.WriteString(" ")
		writeShape(b, t.Key(), seen)
		b.WriteString(" ")
		writeShape(b, t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			b.WriteString(" " + f.Name + " " + strconv.Quote(string(f.Tag)) + " ")
			writeShape(b, f.Type, seen)
		}
	}
	b.WriteString(")")
}
