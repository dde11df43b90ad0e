package server

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
)

// sdkRoute is one method of OpenCode's SDK, as the vendored list has it.
type sdkRoute struct {
	Class, Method, Verb, Path string
}

// sdkWildcard matches the SDK's path parameters ({id}) and its catch-all
// (*).
var sdkWildcard = regexp.MustCompile(`\{[^}]+\}|\*`)

// TestServesEverySDKRoute checks that every route of OpenCode's SDK
// (v1 and v2 clients, testdata/opencode-sdk-1.18.33.routes.json) is
// either served or answered with a 501 that says why, and never falls
// through to a 404 or 405.
func TestServesEverySDKRoute(t *testing.T) {
	data, err := os.ReadFile("testdata/opencode-sdk-1.18.33.routes.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version string
		V1, V2  []sdkRoute
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "1.18.33" || len(doc.V1) < 50 || len(doc.V2) < 100 {
		t.Fatalf("the vendored list is not the SDK's: version %q, %d and %d routes", doc.Version, len(doc.V1), len(doc.V2))
	}
	r := newRig(t, "", Options{})
	byPattern := map[string]*operation{}
	for _, op := range r.srv.ops {
		byPattern[op.Method+" "+op.Path] = op
	}
	implemented, unsupported := 0, 0
	for client, routes := range map[string][]sdkRoute{"v1": doc.V1, "v2": doc.V2} {
		for _, rt := range routes {
			path := sdkWildcard.ReplaceAllStringFunc(rt.Path, func(w string) string {
				if w == "*" {
					return "some/file.txt"
				}
				return "x1"
			})
			req := httptest.NewRequest(rt.Verb, path, nil)
			_, pattern := r.srv.mux.Handler(req)
			op := byPattern[pattern]
			if op == nil {
				t.Errorf("%s %s.%s: %s %s is neither served nor listed as unsupported (mux pattern %q)", client, rt.Class, rt.Method, rt.Verb, rt.Path, pattern)
				continue
			}
			if op.Unsupported {
				unsupported++
				if !strings.HasPrefix(op.Summary, "Not supported: ") || len(op.Summary) < 30 {
					t.Errorf("%s %s: unsupported without a reason: %q", rt.Verb, rt.Path, op.Summary)
				}
			} else {
				implemented++
			}
		}
	}
	t.Logf("SDK routes: %d served, %d answered 501", implemented, unsupported)
}
