package tool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChangeHooks checks that write, edit and apply_patch call BeforeChange
// with every path they are about to change while the old content is still
// there, and append what AfterChange says to their output.
func TestChangeHooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		tool  string
		input map[string]any
		paths []string // relative to the directory
	}{
		{"write", "write", map[string]any{"filePath": "a.txt", "content": "new\n"}, []string{"a.txt"}},
		{"edit", "edit", map[string]any{"filePath": "a.txt", "oldString": "old", "newString": "new"}, []string{"a.txt"}},
		{"patch", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: a.txt\n*** Move to: c.txt\n@@\n-old\n+new\n*** Delete File: b.txt\n*** End Patch"},
			[]string{"a.txt", "b.txt", "c.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"a.txt": "old\n", "b.txt": "bee\n"})
			env := testEnv(t)
			var before, after []string
			env.BeforeChange = func(_ context.Context, _ *Call, paths []string) error {
				before = append(before, paths...)
				if got := readFile(t, filepath.Join(dir, "a.txt")); got != "old\n" {
					t.Errorf("BeforeChange saw a.txt = %q, want the old content", got)
				}
				return nil
			}
			env.AfterChange = func(_ context.Context, _ *Call, paths []string) string {
				after = append(after, paths...)
				return "formatted by gofmt"
			}
			res, err := run(t, env, tt.tool, dir, tt.input)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, p := range tt.paths {
				want = append(want, filepath.Join(dir, p))
			}
			slices.Sort(before)
			if !slices.Equal(before, want) || !slices.Equal(after, want) {
				t.Errorf("BeforeChange %v, AfterChange %v, want both %v", before, after, want)
			}
			if !strings.HasSuffix(res.Output, "\n\nformatted by gofmt") {
				t.Errorf("output %q does not end with the AfterChange note", res.Output)
			}
		})
	}
}

// TestBeforeChangeErrorChangesNothing checks that a failing BeforeChange
// fails the call and leaves every file as it was.
func TestBeforeChangeErrorChangesNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		tool  string
		input map[string]any
	}{
		{"write", map[string]any{"filePath": "a.txt", "content": "new\n"}},
		{"apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch"}},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"a.txt": "old\n"})
		env := testEnv(t)
		env.BeforeChange = func(context.Context, *Call, []string) error { return errors.New("disk full") }
		_, err := run(t, env, tt.tool, dir, tt.input)
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: error %v, want the BeforeChange failure", tt.tool, err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "old\n" {
			t.Errorf("%s: a.txt = %q, %v after a failed BeforeChange", tt.tool, b, err)
		}
	}
}

// TestDiffShowsFormattedContent checks that when AfterChange rewrites the
// file (a formatter), the diff in the metadata shows the final content.
func TestDiffShowsFormattedContent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		tool  string
		input map[string]any
	}{
		{"write", map[string]any{"filePath": "a.txt", "content": "new  \n"}},
		{"edit", map[string]any{"filePath": "a.txt", "oldString": "old", "newString": "new  "}},
		{"apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new  \n*** End Patch"}},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"a.txt": "old\n"})
		env := testEnv(t)
		env.AfterChange = func(_ context.Context, _ *Call, paths []string) string {
			if err := os.WriteFile(paths[0], []byte("new\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return "Formatted a.txt."
		}
		res, err := run(t, env, tt.tool, dir, tt.input)
		if err != nil {
			t.Fatal(err)
		}
		diff, _ := res.Metadata["diff"].(string)
		if !strings.Contains(diff, "+new\n") || strings.Contains(diff, "+new  ") {
			t.Errorf("%s: diff %q, want the formatted content", tt.tool, diff)
		}
		if files, ok := res.Metadata["files"].([]map[string]any); ok {
			if patch, _ := files[0]["patch"].(string); patch != diff {
				t.Errorf("%s: the file's patch %q differs from the diff %q", tt.tool, patch, diff)
			}
		}
	}
}
