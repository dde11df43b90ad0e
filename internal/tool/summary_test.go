package tool

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltinsSummariseCalls checks that every built-in tool gives a
// one-line summary of a typical call from its own arguments, and that a
// tool that does not describe itself is summarised by its arguments.
func TestBuiltinsSummariseCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := testEnv(t)
	env.Search = NewSearch("", "", nil)
	typical := map[string]any{
		"invalid":     map[string]any{"tool": "nosuch", "error": "no such tool"},
		"question":    map[string]any{"questions": []any{map[string]any{"question": "Which one?", "header": "Pick", "options": []any{}}}},
		"bash":        map[string]any{"command": "go test ./...\ngo vet ./...", "description": "run the tests"},
		"read":        map[string]any{"filePath": filepath.Join(dir, "src", "a.go"), "offset": 3},
		"glob":        map[string]any{"pattern": "**/*.go"},
		"grep":        map[string]any{"pattern": "func main", "include": "*.go"},
		"edit":        map[string]any{"filePath": filepath.Join(dir, "b.go"), "oldString": "x", "newString": "y"},
		"write":       map[string]any{"filePath": "c.txt", "content": "c"},
		"webfetch":    map[string]any{"url": "https://example.com/doc"},
		"todowrite":   map[string]any{"todos": []any{map[string]any{"content": "a", "status": "completed", "priority": "high"}, map[string]any{"content": "b", "status": "pending", "priority": "low"}}},
		"apply_patch": map[string]any{"patchText": "*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Update File: old.txt\n*** Move to: moved.txt\n@@\n-a\n+b\n*** Delete File: gone.txt\n*** End Patch"},
		"websearch":   map[string]any{"query": "go generics"},
		"codesearch":  map[string]any{"query": "net/http client timeouts"},
	}
	want := map[string]string{
		"invalid":     "nosuch",
		"question":    "Pick",
		"bash":        "go test ./... …",
		"read":        filepath.Join("src", "a.go"),
		"glob":        "**/*.go",
		"grep":        "func main",
		"edit":        "b.go",
		"write":       "c.txt",
		"webfetch":    "https://example.com/doc",
		"todowrite":   "1 of 2 done",
		"apply_patch": "A new.txt, R old.txt → moved.txt, D gone.txt",
		"websearch":   "go generics",
		"codesearch":  "net/http client timeouts",
	}
	for _, tl := range Builtins(env) {
		in, ok := typical[tl.ID()]
		if !ok {
			t.Errorf("%s: no typical call in this test", tl.ID())
			continue
		}
		raw, _ := json.Marshal(in)
		d, ok := tl.(Describer)
		if !ok {
			t.Errorf("%s does not describe itself", tl.ID())
			continue
		}
		if own := d.Summary(raw, dir); own == "" {
			t.Errorf("%s gives no summary of %s", tl.ID(), raw)
		}
		if got := Summary(tl, raw, dir); got != want[tl.ID()] {
			t.Errorf("%s summary = %q, want %q", tl.ID(), got, want[tl.ID()])
		}
	}
}

// plainTool is a tool that does not describe itself, as an MCP or custom
// tool.
type plainTool struct{ Tool }

func TestSummaryFallsBackToArguments(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", summaryLimit+10)
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{"compact JSON", `{ "a": 1,  "b": ["c"] }`, `{"a":1,"b":["c"]}`},
		{"no arguments", `{}`, ""},
		{"nothing", ``, ""},
		{"too long", `{"a":"` + long + `"}`, `{"a":"` + long[:summaryLimit-6] + " …"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Summary(plainTool{}, json.RawMessage(tt.input), "/"); got != tt.want {
				t.Errorf("Summary(%s) = %q, want %q", tt.input, got, tt.want)
			}
		})
	}
}
