package edge

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	shariah "github.com/shariah-screen/shariah"
)

// ErrorBody is the error envelope of every error response (the Error schema of openapi.yaml).
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Detail  any    `json:"detail"`
}

// errorHandler is fiber's ErrorHandler and the only writer of error bodies. Domain errors keep their
// code and message; fiber's own errors (unknown route, wrong method, body too large) get
// HTTP_<status> codes; anything else is a 500 that shows nothing of its cause, only the request id.
func (s *Server) errorHandler(c *fiber.Ctx, err error) error {
	status, body := s.errorBody(c, err)
	c.Locals(errCodeKey, body.Code)
	if status == http.StatusServiceUnavailable && len(c.Response().Header.Peek(fiber.HeaderRetryAfter)) == 0 {
		c.Set(fiber.HeaderRetryAfter, "1")
	}
	if status == http.StatusMethodNotAllowed {
		if allow := s.allowedMethods(c.Path()); allow != "" {
			c.Set(fiber.HeaderAllow, allow)
		}
	}
	return c.Status(status).JSON(body)
}

func (s *Server) errorBody(c *fiber.Ctx, err error) (int, ErrorBody) {
	var de *shariah.Error
	if errors.As(err, &de) {
		status, ok := shariah.HTTPStatus(de.Code)
		if !ok || de.Code == shariah.EINTERNAL {
			return s.internal(c, err)
		}
		return status, ErrorBody{Code: de.Code, Message: de.Message, Detail: de.Detail}
	}
	if s.storeUnavailable(err) {
		// a store behind the route is down or failing over (the meter answered from its lease): the
		// route's own feature is unavailable for that time, not broken
		return http.StatusServiceUnavailable, ErrorBody{Code: shariah.EUNAVAILABLE, Message: "A service this route needs is unavailable. Retry shortly."}
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch {
		case fe.Code == http.StatusNotFound:
			return fe.Code, ErrorBody{Code: shariah.ENOTFOUND, Message: "Not found."}
		case fe.Code == http.StatusMethodNotAllowed:
			return fe.Code, ErrorBody{Code: shariah.ENOTALLOWED, Message: "Method not allowed."}
		case fe.Code >= 400 && fe.Code < 500:
			return fe.Code, ErrorBody{Code: fmt.Sprintf("HTTP_%d", fe.Code), Message: fe.Message}
		}
	}
	return s.internal(c, err)
}

func (s *Server) internal(c *fiber.Ctx, err error) (int, ErrorBody) {
	rid := requestID(c)
	// Per route, the first internal error and then a count every few seconds: an outage of a store
	// behind a route must not write a line per request.
	route := routeOf(c)
	s.quiet.error("internal "+route, "internal error", slog.String("request_id", rid), slog.String("route", route), slog.String("error", err.Error()))
	return http.StatusInternalServerError, ErrorBody{
		Code:    shariah.EINTERNAL,
		Message: "Internal error.",
		Detail:  map[string]any{"request_id": rid},
	}
}

// panicError is a recovered panic; its value is logged, never shown.
type panicError struct{ v any }

func (p panicError) Error() string { return fmt.Sprintf("panic: %v", p.v) }

// call runs a handler and turns a panic into an error, so the caller still refunds, logs and answers.
func call(h fiber.Handler, c *fiber.Ctx) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError{v}
		}
	}()
	return h(c)
}

// bindJSON decodes the request body into dst. An unparseable body is a 400; a field of the wrong type
// is a 422 naming the field.
func bindJSON(c *fiber.Ctx, dst any) error {
	body := c.Body()
	if len(strings.TrimSpace(string(body))) == 0 {
		body = []byte("{}")
	}
	err := json.Unmarshal(body, dst)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		var v shariah.Validation
		loc := append([]any{"body"}, shariah.TypeErrorLoc(body, dst, te)...)
		v.Add(fmt.Sprintf("value must be of type %s", jsonType(te.Type.Kind().String())), "type_error", loc...)
		return v.Err()
	}
	return &shariah.Error{Code: shariah.EINVALID, Message: "Request body is not valid JSON.", Detail: map[string]any{"error": err.Error()}}
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "map", "struct":
		return "object"
	default:
		return "number"
	}
}
