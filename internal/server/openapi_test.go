package server

import (
	"encoding/json"
	"github.com/codeloop/codeloop/internal/client/wire"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// doc fetches GET /doc.
func doc(t *testing.T, r *rig) map[string]any {
	t.Helper()
	got, text := r.do(r.request("GET", "/doc", ""))
	if got != 200 {
		t.Fatalf("GET /doc: %d %s", got, text)
	}
	var spec map[string]any
	if err := json.Unmarshal([]byte(text), &spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestOpenAPIDescribesEveryRoute: every route the server answers is in
// the description with its operation id, parameters and responses, and
// the description names no route the server does not answer.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	r := newRig(t, "", Options{})
	spec := doc(t, r)
	if spec["openapi"] != "3.1.0" {
		t.Errorf("openapi %v", spec["openapi"])
	}
	paths := spec["paths"].(map[string]any)
	described := 0
	for path, item := range paths {
		for method, o := range item.(map[string]any) {
			described++
			i := slices.IndexFunc(r.srv.ops, func(op *operation) bool {
				return op.Path == path && strings.EqualFold(op.Method, method)
			})
			if i < 0 {
				t.Errorf("%s %s is described but not served", method, path)
				continue
			}
			op, desc := r.srv.ops[i], o.(map[string]any)
			if desc["operationId"] != op.ID || desc["summary"] == "" {
				t.Errorf("%s %s: operationId %v", method, path, desc["operationId"])
			}
			resp := desc["responses"].(map[string]any)
			for _, code := range []string{"401", "403"} {
				if resp[code] == nil {
					t.Errorf("%s %s: response %s is not described", method, path, code)
				}
			}
			if op.Unsupported && resp["501"] == nil {
				t.Errorf("%s %s is not supported but describes no 501", method, path)
			}
			if resp["200"] == nil && resp["204"] == nil && !op.Unsupported {
				t.Errorf("%s %s describes no success", method, path)
			}
			params, _ := desc["parameters"].([]any)
			for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
				if !slices.ContainsFunc(params, func(p any) bool {
					pm := p.(map[string]any)
					return pm["name"] == m[1] && pm["in"] == "path"
				}) {
					t.Errorf("%s %s: path parameter %s is not described", method, path, m[1])
				}
			}
			if op.Body != nil && desc["requestBody"] == nil {
				t.Errorf("%s %s: its body is not described", method, path)
			}
		}
	}
	if described != len(r.srv.ops) {
		t.Errorf("%d operations described, %d served", described, len(r.srv.ops))
	}
	// Every operation the mux routes is one the description names.
	for _, op := range r.srv.ops {
		req := r.request(op.Method, fill(op.Path, map[string]string{"sessionID": "ses_x", "messageID": "msg_x", "requestID": "per_x", "permissionID": "per_x"}), "")
		_, h := r.srv.mux.Handler(req)
		if h != op.Method+" "+op.Path {
			t.Errorf("%s %s is routed by %q", op.Method, op.Path, h)
		}
	}
}

// TestOpenAPISchemas: the schemas follow the Go types: every reference
// resolves, required members are those always written, and the event
// stream lists every event.
func TestOpenAPISchemas(t *testing.T) {
	r := newRig(t, "", Options{})
	spec := doc(t, r)
	schemas := spec["components"].(map[string]any)["schemas"].(map[string]any)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				name := strings.TrimPrefix(ref, "#/components/schemas/")
				if schemas[name] == nil {
					t.Errorf("reference %s does not resolve", ref)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(spec)

	// Each schema has the members of its Go type.
	for name, typ := range map[string]reflect.Type{
		"Session": typeOf[client.Session](), "Message": typeOf[client.Message](), "Part": typeOf[client.Part](),
		"PromptInput": typeOf[client.PromptInput](), "PermissionRequest": typeOf[client.PermissionRequest](),
	} {
		s := schemas[name].(map[string]any)
		props := s["properties"].(map[string]any)
		fields := 0
		for i := range typ.NumField() {
			if jsonName(typ.Field(i)) != "" {
				fields++
			}
		}
		if len(props) != fields {
			t.Errorf("%s: %d properties, the type has %d JSON fields", name, len(props), fields)
		}
	}
	session := schemas["Session"].(map[string]any)
	req := session["required"].([]any)
	for _, want := range []string{"id", "projectID", "directory", "title", "time"} {
		if !slices.Contains(req, any(want)) {
			t.Errorf("Session: %s is not required", want)
		}
	}
	if slices.Contains(req, any("parentID")) {
		t.Error("Session: parentID, which is omitted when empty, is required")
	}
	asked := schemas["PermissionAskedEvent"].(map[string]any)["properties"].(map[string]any)
	if asked["permission"] == nil || asked["PermissionRequest"] != nil {
		t.Errorf("PermissionAskedEvent is not flattened as its JSON is: %v", asked)
	}

	stream := spec["paths"].(map[string]any)["/event"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)
	variants := stream["content"].(map[string]any)["text/event-stream"].(map[string]any)["schema"].(map[string]any)["oneOf"].([]any)
	var types []string
	for _, v := range variants {
		types = append(types, v.(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)["const"].(string))
	}
	for _, e := range eventTypes {
		data, err := client.MarshalEvent(e)
		if err != nil {
			t.Fatal(err)
		}
		back, err := client.UnmarshalEvent(data)
		if err != nil || back == nil || back.Type() != e.Type() {
			t.Errorf("%s does not round-trip: %v", e.Type(), err)
		}
	}
	for _, want := range []string{client.TypeSessionStatus, client.TypePartDelta, client.TypePermissionAsked, TypeServerConnected, TypeServerHeartbeat} {
		if !slices.Contains(types, want) {
			t.Errorf("the event stream does not describe %s", want)
		}
	}
}

// TestServesEveryWireRoute checks that the server answers exactly the
// routes of the wire contract the remote client calls.
func TestServesEveryWireRoute(t *testing.T) {
	r := newRig(t, "", Options{})
	served := map[string]string{}
	for _, op := range r.srv.ops {
		served[op.ID] = op.Method + " " + op.Path
	}
	for _, rt := range wire.Routes() {
		if got, ok := served[rt.ID]; !ok || got != rt.Method+" "+rt.Pattern {
			t.Errorf("wire route %s (%s %s) is served as %q", rt.ID, rt.Method, rt.Pattern, got)
		}
		delete(served, rt.ID)
	}
	// An unsupported route is answered with a 501 unless a wire route
	// serves it for real.
	for _, u := range wire.Unsupported() {
		if got, ok := served[u.ID]; ok && got == u.Method+" "+u.Pattern {
			delete(served, u.ID)
			continue
		}
		if !slices.ContainsFunc(wire.Routes(), func(rt wire.Route) bool {
			return rt.Method == u.Method && wildcards.ReplaceAllString(rt.Pattern, "{}") == wildcards.ReplaceAllString(u.Pattern, "{}")
		}) {
			t.Errorf("unsupported route %s (%s %s) is not answered", u.ID, u.Method, u.Pattern)
		}
	}
	for id, at := range served {
		t.Errorf("the server answers %s (%s), which the wire contract does not list", id, at)
	}
}
