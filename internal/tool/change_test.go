package tool

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFileToolsReportChanges checks that every tool that changes files
// lists what it changed in one shape under ChangesKey, whole texts
// included, beside OpenCode's own metadata.
func TestFileToolsReportChanges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tool  string
		input func(dir string) map[string]any
		want  func(dir string) []Change
	}{
		{"edit", "edit",
			func(dir string) map[string]any {
				return map[string]any{"filePath": filepath.Join(dir, "a.txt"), "oldString": "one", "newString": "uno"}
			},
			func(dir string) []Change {
				return []Change{{Path: filepath.Join(dir, "a.txt"), Type: ChangeUpdate, Before: "one\ntwo\n", After: "uno\ntwo\n", Whole: true}}
			}},
		{"write a new file", "write",
			func(dir string) map[string]any {
				return map[string]any{"filePath": filepath.Join(dir, "new.txt"), "content": "fresh\n"}
			},
			func(dir string) []Change {
				return []Change{{Path: filepath.Join(dir, "new.txt"), Type: ChangeAdd, After: "fresh\n", Whole: true}}
			}},
		{"write over a file", "write",
			func(dir string) map[string]any {
				return map[string]any{"filePath": filepath.Join(dir, "a.txt"), "content": "replaced\n"}
			},
			func(dir string) []Change {
				return []Change{{Path: filepath.Join(dir, "a.txt"), Type: ChangeUpdate, Before: "one\ntwo\n", After: "replaced\n", Whole: true}}
			}},
		{"apply_patch", "apply_patch",
			func(string) map[string]any {
				return map[string]any{"patchText": "*** Begin Patch\n*** Add File: added.txt\n+hi\n*** Update File: a.txt\n*** Move to: moved.txt\n@@\n-two\n+deux\n*** Delete File: gone.txt\n*** End Patch"}
			},
			func(dir string) []Change {
				return []Change{
					{Path: filepath.Join(dir, "added.txt"), Type: ChangeAdd, After: "hi\n", Whole: true},
					{Path: filepath.Join(dir, "a.txt"), MovePath: filepath.Join(dir, "moved.txt"), Type: ChangeMove, Before: "one\ntwo\n", After: "one\ndeux\n", Whole: true},
					{Path: filepath.Join(dir, "gone.txt"), Type: ChangeDelete, Before: "bye\n", Whole: true},
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"a.txt": "one\ntwo\n", "gone.txt": "bye\n"})
			res, err := run(t, testEnv(t), tt.tool, dir, tt.input(dir))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := res.Metadata["diff"].(string); !ok {
				t.Errorf("OpenCode's diff key is gone: %v", res.Metadata)
			}
			got, ok := res.Metadata[ChangesKey].([]Change)
			if !ok {
				t.Fatalf("metadata %s = %#v, want []Change", ChangesKey, res.Metadata[ChangesKey])
			}
			want := tt.want(dir)
			if len(got) != len(want) {
				t.Fatalf("got %d changes, want %d: %+v", len(got), len(want), got)
			}
			for i := range want {
				g := got[i]
				if !strings.Contains(g.Patch, "@@") {
					t.Errorf("change %d has no diff: %q", i, g.Patch)
				}
				g.Patch = ""
				if g != want[i] {
					t.Errorf("change %d\n got %+v\nwant %+v", i, g, want[i])
				}
			}
		})
	}
}

func TestLargeChangesCarryThePatchOnly(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("line\n", wholeTextLimit/5+1)
	c := newChange(ChangeUpdate, "/p", "", "@@ -1 +1 @@\n-a\n+b\n", big, big+"x")
	if c.Whole || c.Before != "" || c.After != "" || c.Patch == "" {
		t.Errorf("a large change carries %+v", c)
	}
	if c := newChange(ChangeUpdate, "/p", "", "d", "a", "b"); !c.Whole || c.Before != "a" || c.After != "b" {
		t.Errorf("a small change carries %+v", c)
	}
}
