package server

import (
	"github.com/codeloop/codeloop/internal/client/wire"
	"net/http"
	"reflect"
)

// operation is a route: what it reads and answers, for both the mux and
// the OpenAPI description, and its handler.
type operation struct {
	Method, Path string
	// ID is the operation's id, as OpenCode names it ("session.list").
	ID      string
	Summary string
	// Query is a struct whose json-tagged fields are the query
	// parameters; nil for none.
	Query reflect.Type
	// Body is the JSON request body; nil for none.
	Body reflect.Type
	// Resp is the JSON response of a 200; nil when the route answers 204.
	Resp reflect.Type
	// Accepted: the route answers 204 with the stored message's id in
	// the MessageIDHeader header.
	Accepted bool
	// Stream: the route answers text/event-stream.
	Stream bool
	// Unsupported: the route always answers 501.
	Unsupported bool

	handler http.Handler
}

// MessageIDHeader is wire.MessageIDHeader.
const MessageIDHeader = wire.MessageIDHeader

// none stands for a route without a body or query parameters.
type none struct{}

// accepted is the answer of a route that starts work and returns at once:
// 204, with the stored message's id in MessageIDHeader.
type accepted struct{ MessageID string }

// route makes an operation whose handler decodes the query into Q and the
// body into B (unless they are none), calls fn, and writes its result as
// JSON (or 204 for accepted).
func route[Q, B, R any](s *Server, rt wire.Route, fn func(r *http.Request, q Q, b B) (R, error)) *operation {
	op := &operation{Method: rt.Method, Path: rt.Pattern, ID: rt.ID, Summary: rt.Summary}
	if t := reflect.TypeFor[Q](); t != reflect.TypeFor[none]() {
		op.Query = t
	}
	if t := reflect.TypeFor[B](); t != reflect.TypeFor[none]() {
		op.Body = t
	}
	if t := reflect.TypeFor[R](); t == reflect.TypeFor[accepted]() {
		op.Accepted = true
	} else {
		op.Resp = t
	}
	op.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var q Q
		var b B
		if op.Query != nil {
			if err := decodeQuery(r, &q); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		if op.Body != nil {
			if err := decodeBody(w, r, &b); err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		out, err := fn(r, q, b)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if a, ok := any(out).(accepted); ok {
			w.Header().Set(MessageIDHeader, a.MessageID)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, http.StatusOK, out)
	})
	return op
}
