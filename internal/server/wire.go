package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/wire"
)

// errorBody and errorData are the error body of the API.
type (
	errorBody = wire.Error
	errorData = wire.ErrorData
)

// badRequest is an error in what the caller sent.
type badRequest struct {
	status int // 400 unless set
	field  string
	msg    string
}

func (e *badRequest) Error() string { return e.msg }

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(errorBody{Name: "UnknownError", Data: errorData{Message: "encoding the response: " + err.Error()}})
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError answers with err: the client's errors by their kind, the
// engine's refusals as 400.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	body := errorBody{Name: "BadRequestError", Data: errorData{Message: err.Error()}}
	status := http.StatusBadRequest
	var br *badRequest
	var ue *client.UnsupportedError
	switch {
	case errors.As(err, &br):
		if br.status != 0 {
			status = br.status
			body.Name = "PayloadTooLargeError"
		}
		body.Data.Field = br.field
	case errors.Is(err, client.ErrNotFound):
		status, body.Name = http.StatusNotFound, "NotFoundError"
	case errors.Is(err, client.ErrForbidden):
		status, body.Name = http.StatusForbidden, "ForbiddenError"
	case errors.Is(err, client.ErrBusy):
		status, body.Name = http.StatusConflict, "BusyError"
	case errors.As(err, &ue):
		status, body.Name = http.StatusNotImplemented, "UnsupportedError"
		body.Data.Op, body.Data.Reason = ue.Op, ue.Reason
	case errors.Is(err, client.ErrUnsupported):
		status, body.Name = http.StatusNotImplemented, "UnsupportedError"
	case errors.Is(err, client.ErrClosed), r.Context().Err() != nil:
		status, body.Name = http.StatusServiceUnavailable, "UnknownError"
	}
	if status >= 500 {
		s.log.Error("server: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeJSON(w, status, body)
}

// decodeBody reads r's JSON body into v. An empty body leaves v as it is.
// The error names the member that could not be read.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	data, err := readBody(w, r)
	if err != nil {
		return err
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return &badRequest{msg: fmt.Sprintf("the body is not valid JSON (at byte %d): %v", se.Offset, se)}
		case errors.As(err, &te):
			field := te.Field
			if field == "" {
				field = "(the body)"
			}
			return &badRequest{field: field, msg: fmt.Sprintf("field %s: want %s, got JSON %s", field, jsonKind(te.Type), te.Value)}
		}
		return &badRequest{msg: "reading the body: " + err.Error()}
	}
	return nil
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyWait))
	data, err := io.ReadAll(r.Body)
	var me *http.MaxBytesError
	if errors.As(err, &me) {
		return nil, &badRequest{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("the body is larger than the limit of %d bytes", me.Limit)}
	}
	if err != nil {
		return nil, &badRequest{msg: "reading the body: " + err.Error()}
	}
	return data, nil
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.String()
}

// decodeQuery fills the fields of the struct v points to from r's query
// parameters, named by the fields' json tags.
func decodeQuery(r *http.Request, v any) error {
	q := r.URL.Query()
	rv := reflect.ValueOf(v).Elem()
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		name := jsonName(f)
		if name == "" || !q.Has(name) {
			continue
		}
		raw := q.Get(name)
		fv := rv.Field(i)
		switch fv.Kind() {
		case reflect.String:
			fv.SetString(raw)
		case reflect.Bool:
			b, err := strconv.ParseBool(raw)
			if err != nil {
				return &badRequest{field: name, msg: fmt.Sprintf("query parameter %s: want true or false, got %q", name, raw)}
			}
			fv.SetBool(b)
		case reflect.Int, reflect.Int64:
			n, err := strconv.ParseInt(raw, 10, 64)
			if err != nil || n < 0 {
				return &badRequest{field: name, msg: fmt.Sprintf("query parameter %s: want a whole number, got %q", name, raw)}
			}
			fv.SetInt(n)
		case reflect.Slice:
			fv.Set(reflect.ValueOf(q[name]))
		}
	}
	return nil
}

// jsonName is the name a struct field has in JSON, "" for none.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" && !f.Anonymous {
		name = f.Name
	}
	return name
}
