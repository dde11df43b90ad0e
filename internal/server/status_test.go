package server

import (
	"encoding/json"
	"testing"
)

// TestServerStatusShapes checks GET /mcp answers an object by server name
// and GET /lsp an array, as OpenCode's clients read them, even with no
// server configured or started.
func TestServerStatusShapes(t *testing.T) {
	r := newRig(t, "", Options{})
	for _, tc := range []struct {
		path string
		want string // the JSON kind of the body
	}{
		{"/mcp", "object"},
		{"/lsp", "array"},
	} {
		code, body := r.do(r.request("GET", tc.path, ""))
		if code != 200 {
			t.Fatalf("GET %s: %d %s", tc.path, code, body)
		}
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("GET %s: %v in %q", tc.path, err, body)
		}
		kind := "other"
		switch v.(type) {
		case map[string]any:
			kind = "object"
		case []any:
			kind = "array"
		}
		if kind != tc.want {
			t.Errorf("GET %s = %s, want a JSON %s", tc.path, body, tc.want)
		}
	}
}
