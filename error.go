package shariah

import (
	"errors"
	"fmt"
	"net/http"
)

// Error codes. Each maps to one HTTP status (HTTPStatus: the one table, read by the REST edge and by the
// MCP port's key guard); the MCP tools answer the same codes as tool errors. The wire codes are those of the API contract (edge/openapi.yaml: HTTP_400, HTTP_404, ...).
const (
	EINVALID     = "HTTP_400"            // malformed request (unparseable body or parameters)
	EVALIDATION  = "VALIDATION_ERROR"    // well-formed request whose fields are invalid (422)
	EKEYREQUIRED = "API_KEY_REQUIRED"    // X-API-Key header missing (401)
	EBADKEY      = "INVALID_API_KEY"     // key does not exist (401)
	EKEYINACTIVE = "API_KEY_DEACTIVATED" // key disabled (403)
	EFORBIDDEN   = "FORBIDDEN"           // key valid but not allowed to act on the resource (403)
	ENOTFOUND    = "HTTP_404"            // resource, symbol, run or watchlist not found
	ENOTALLOWED  = "HTTP_405"            // method not allowed on an existing path
	ECONFLICT    = "HTTP_409"            // state conflict (e.g. a run that cannot be cancelled)
	EQUOTA       = "QUOTA_EXCEEDED"      // monthly quota exhausted on a hard-block plan (429)
	ERATELIMITED = "RATE_LIMITED"        // the plan's request rate exceeded, or key generation too frequent (429)
	EUNAVAILABLE = "SERVICE_UNAVAILABLE" // a backing service is down (503)
	EINTERNAL    = "INTERNAL_ERROR"      // anything else (500); never carries internals
)

// ECURSOREXPIRED is a change-feed cursor older than the change log keeps (410): what followed it was
// dropped, so reading on from it would skip changes silently.
const ECURSOREXPIRED = "CURSOR_EXPIRED"

// httpStatus maps each error code to its HTTP status.
var httpStatus = map[string]int{
	EINVALID:     http.StatusBadRequest,
	EVALIDATION:  http.StatusUnprocessableEntity,
	EKEYREQUIRED: http.StatusUnauthorized,
	EBADKEY:      http.StatusUnauthorized,
	EKEYINACTIVE: http.StatusForbidden,
	EFORBIDDEN:   http.StatusForbidden,
	ENOTFOUND:    http.StatusNotFound,
	ENOTALLOWED:  http.StatusMethodNotAllowed,
	ECONFLICT:    http.StatusConflict,
	EQUOTA:       http.StatusTooManyRequests,
	ERATELIMITED: http.StatusTooManyRequests,
	EUNAVAILABLE: http.StatusServiceUnavailable,
	EINTERNAL:    http.StatusInternalServerError,

	ECURSOREXPIRED: http.StatusGone,
}

// HTTPStatus is the HTTP status of an error code; ok is false for a code not in the list above.
func HTTPStatus(code string) (status int, ok bool) {
	status, ok = httpStatus[code]
	return status, ok
}

// Error is a domain error: a code from the list above, a message fit to show a client, and an optional
// detail object. Any other error reaching a surface is treated as internal and its text is never shown.
type Error struct {
	Code    string
	Message string
	Detail  any
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns "" for nil, the code of err when it is (or wraps) an *Error, and EINTERNAL otherwise.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// FieldError is one problem with one input field. Loc is the path to the field, starting with where it
// was found: "body", "query", "path" or "header" (FastAPI-compatible, as existing clients expect).
type FieldError struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

// Validation collects field errors so a client learns every problem of a request at once.
type Validation struct{ errs []FieldError }

// Add records a problem with the field at loc.
func (v *Validation) Add(msg, typ string, loc ...any) {
	v.errs = append(v.errs, FieldError{Loc: loc, Msg: msg, Type: typ})
}

// Err returns nil when nothing was added, else a VALIDATION_ERROR whose detail lists every field error.
func (v *Validation) Err() error {
	if len(v.errs) == 0 {
		return nil
	}
	return &Error{
		Code:    EVALIDATION,
		Message: "Request validation failed.",
		Detail:  map[string]any{"errors": v.errs},
	}
}
