package tool

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

// TestBuiltinsDescribeThemselves checks every built-in tool says what it
// is, that only bash may change files it does not name, and the files
// the file tools' calls touch.
func TestBuiltinsDescribeThemselves(t *testing.T) {
	t.Parallel()
	for _, tl := range Builtins(testEnv(t)) {
		tr := Describe(tl)
		if tr.Kind == "" || tr.Kind == KindOther && tl.ID() != "invalid" {
			t.Errorf("%s: kind %q", tl.ID(), tr.Kind)
		}
		if want := tl.ID() != "bash"; tr.Contained != want {
			t.Errorf("%s: contained %v, want %v", tl.ID(), tr.Contained, want)
		}
	}
	dir := t.TempDir()
	r := NewRegistry(Builtins(testEnv(t))...)
	tests := []struct {
		tool  string
		input any
		want  []Touch
	}{
		{"read", map[string]any{"filePath": "a.go", "offset": 12}, []Touch{{Path: filepath.Join(dir, "a.go"), Line: 12}}},
		{"edit", map[string]any{"filePath": filepath.Join(dir, "b.go"), "oldString": "x", "newString": "y"},
			[]Touch{{Path: filepath.Join(dir, "b.go"), Write: true}}},
		{"write", map[string]any{"filePath": "sub/../c.txt", "content": "c"}, []Touch{{Path: filepath.Join(dir, "c.txt"), Write: true}}},
		{"apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Update File: old.txt\n*** Move to: moved.txt\n@@\n-a\n+b\n*** Delete File: gone.txt\n*** End Patch"},
			[]Touch{{Path: filepath.Join(dir, "new.txt"), Write: true}, {Path: filepath.Join(dir, "old.txt"), Write: true},
				{Path: filepath.Join(dir, "moved.txt"), Write: true}, {Path: filepath.Join(dir, "gone.txt"), Write: true}}},
		{"grep", map[string]any{"pattern": "x", "path": "src"}, []Touch{{Path: filepath.Join(dir, "src")}}},
		{"glob", map[string]any{"pattern": "*.go"}, nil},
		{"bash", map[string]any{"command": "rm -rf x"}, nil},
		{"edit", map[string]any{"oldString": "missing filePath"}, nil},
	}
	for _, tt := range tests {
		tl, ok := r.Lookup(tt.tool)
		if !ok {
			t.Fatalf("no %s tool", tt.tool)
		}
		in, _ := json.Marshal(tt.input)
		if got := Touches(tl, in, dir); !slices.Equal(got, tt.want) {
			t.Errorf("%s %s touches\n got %+v\nwant %+v", tt.tool, in, got, tt.want)
		}
	}
}
