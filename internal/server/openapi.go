package server

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"

	"github.com/codeloop/codeloop/internal/client"
)

// eventTypes are the events GET /event carries, for its description.
var eventTypes = []client.Event{
	client.SessionCreatedEvent{}, client.SessionUpdatedEvent{}, client.SessionDeletedEvent{},
	client.SessionStatusEvent{}, client.SessionErrorEvent{}, client.SessionCompactedEvent{},
	client.SessionIdleEvent{}, client.TurnEndedEvent{},
	client.MessageUpdatedEvent{}, client.MessageRemovedEvent{},
	client.PartUpdatedEvent{}, client.PartDeltaEvent{}, client.PartRemovedEvent{},
	client.PermissionAskedEvent{}, client.PermissionRepliedEvent{},
	client.QuestionAskedEvent{}, client.QuestionRepliedEvent{}, client.QuestionRejectedEvent{},
	client.TodoUpdatedEvent{}, client.HookNoticeEvent{}, client.EventsDroppedEvent{},
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

var pathParam = regexp.MustCompile(`\{([A-Za-z]+)(?:\.\.\.)?\}`)

// wildcards matches a pattern's wildcards, whatever their names.
var wildcards = regexp.MustCompile(`\{[^}]*\}`)

// openAPI describes ops as an OpenAPI 3.1 document, its schemas
// generated from the Go types the routes read and write.
func openAPI(ops []*operation, version string) map[string]any {
	g := &schemas{defs: map[string]any{}, named: map[string]reflect.Type{}}
	errRef := g.of(typeOf[errorBody]())
	errResp := func(why string) map[string]any {
		return map[string]any{"description": why, "content": map[string]any{"application/json": map[string]any{"schema": errRef}}}
	}
	paths := map[string]any{}
	for _, op := range ops {
		o := map[string]any{"operationId": op.ID, "summary": op.Summary}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(op.Path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		if op.Query != nil {
			for i := range op.Query.NumField() {
				f := op.Query.Field(i)
				if name := jsonName(f); name != "" {
					p := map[string]any{"name": name, "in": "query", "schema": g.of(f.Type)}
					if f.Type.Kind() == reflect.Slice {
						p["explode"] = true
					}
					params = append(params, p)
				}
			}
		}
		if params != nil {
			o["parameters"] = params
		}
		if op.Body != nil {
			o["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": g.of(op.Body)}}}
		}
		responses := map[string]any{
			"401": errResp("no token, or not this server's"),
			"403": errResp("the Host is not the server's address, or the Origin is not allowed"),
		}
		switch {
		case op.Unsupported:
			responses["501"] = errResp(strings.TrimPrefix(op.Summary, "Not supported: "))
		case op.Stream:
			var variants []any
			for _, e := range eventTypes {
				variants = append(variants, map[string]any{
					"type":     "object",
					"required": []string{"type", "properties"},
					"properties": map[string]any{
						"type":       map[string]any{"const": e.Type()},
						"properties": g.of(reflect.TypeOf(e)),
					},
				})
			}
			for _, t := range []string{TypeServerConnected, TypeServerHeartbeat} {
				variants = append(variants, map[string]any{"type": "object", "properties": map[string]any{"type": map[string]any{"const": t}, "properties": map[string]any{"type": "object"}}})
			}
			responses["200"] = map[string]any{
				"description": "server-sent events, each data line one event as {type, properties}",
				"content":     map[string]any{"text/event-stream": map[string]any{"schema": map[string]any{"oneOf": variants}}},
			}
		case op.Accepted:
			responses["204"] = map[string]any{
				"description": "accepted; the work goes on and arrives as events",
				"headers":     map[string]any{MessageIDHeader: map[string]any{"description": "the id of the stored message", "schema": map[string]any{"type": "string"}}},
			}
		default:
			responses["200"] = map[string]any{"description": "success", "content": map[string]any{"application/json": map[string]any{"schema": g.of(op.Resp)}}}
		}
		if op.Body != nil || op.Query != nil {
			responses["400"] = errResp("the request cannot be read, or the engine refused it")
		}
		if op.Body != nil {
			responses["413"] = errResp("the body is too large")
		}
		if strings.Contains(op.Path, "{") && !op.Unsupported {
			responses["404"] = errResp("no such session, message or pending request")
		}
		switch op.ID {
		case "session.shell":
			responses["409"] = errResp("the session's loop is running")
		case "session.revert", "session.unrevert":
			responses["501"] = errResp("file snapshots are not available")
		case "file.read", "file.list":
			responses["403"] = errResp("the path is outside the project, climbs with \"..\", is ignored, or is a secret file")
		}
		o["responses"] = responses
		item, _ := paths[op.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[op.Path] = item
		}
		item[strings.ToLower(op.Method)] = o
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "codeloop",
			"version":     version,
			"description": "codeloop's HTTP API: OpenCode's routes and shapes. Every request needs the server's token.",
		},
		"security": []any{map[string]any{"bearer": []string{}}, map[string]any{"basic": []string{}}},
		"paths":    paths,
		"components": map[string]any{
			"schemas": g.defs,
			"securitySchemes": map[string]any{
				"bearer": map[string]any{"type": "http", "scheme": "bearer", "description": "the token codeloop serve writes to its state file"},
				"basic":  map[string]any{"type": "http", "scheme": "basic", "description": "any user name, the token as password"},
			},
		},
	}
}

// schemas turns Go types into JSON Schema, naming each named struct in
// components.schemas.
type schemas struct {
	defs  map[string]any
	named map[string]reflect.Type
}

var rawMessage = typeOf[json.RawMessage]()

func (g *schemas) of(t reflect.Type) map[string]any {
	if t == rawMessage {
		return map[string]any{"description": "any JSON value"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.of(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		return map[string]any{"type": "array", "items": g.of(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t)
		}
		name := schemaName(t)
		if prev, seen := g.named[name]; seen {
			if prev != t {
				panic("server: two schemas named " + name + ": " + prev.String() + " and " + t.String())
			}
		} else {
			g.named[name] = t
			g.defs[name] = map[string]any{} // stops recursion
			g.defs[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	panic("server: no schema for " + t.String())
}

// schemaName names a struct in components: its Go name, with the
// server's own unexported wrappers capitalised.
func schemaName(t reflect.Type) string {
	n := t.Name()
	return strings.ToUpper(n[:1]) + n[1:]
}

// object describes a struct's JSON members; embedded structs without a
// name of their own are flattened, as encoding/json does.
func (g *schemas) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			name := jsonName(f)
			if f.Anonymous && name == "" {
				walk(f.Type)
				continue
			}
			if name == "" {
				continue
			}
			props[name] = g.of(f.Type)
			tag := f.Tag.Get("json")
			if !strings.Contains(tag, ",omitempty") && !strings.Contains(tag, ",omitzero") {
				required = append(required, name)
			}
		}
	}
	walk(t)
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}
