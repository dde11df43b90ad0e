package hook

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestToolResponse checks the shapes Claude Code's hooks read a tool's
// result in: Bash's streams, Write's and Edit's file, and the output,
// title and metadata of any other tool.
func TestToolResponse(t *testing.T) {
	meta := map[string]any{"count": 2}
	tests := []struct {
		name, id string
		input    string
		want     any
	}{
		{"bash", "bash", `{"command":"ls"}`,
			map[string]any{"stdout": "out", "stderr": "", "interrupted": false, "isImage": false}},
		{"write", "write", `{"filePath":"/p/a.go","content":"x"}`,
			map[string]any{"filePath": "/p/a.go", "success": true, "output": "out"}},
		{"edit", "edit", `{"filePath":"b.go"}`, map[string]any{"filePath": "b.go", "success": true, "output": "out"}},
		{"edit without a path", "edit", `not json`, map[string]any{"filePath": "", "success": true, "output": "out"}},
		{"other", "grep", `{"pattern":"x"}`, map[string]any{"output": "out", "title": "title", "metadata": meta}},
	}
	for _, tt := range tests {
		got := ToolResponse(tt.id, json.RawMessage(tt.input), "out", "title", meta)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: ToolResponse = %#v, want %#v", tt.name, got, tt.want)
		}
	}
}
