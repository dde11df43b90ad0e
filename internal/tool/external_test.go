package tool

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestExternalDirs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	project := filepath.Join(root, "project")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(project, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A link inside the project that points out of it.
	if err := os.Symlink(outside, filepath.Join(project, "escape")); err != nil {
		t.Fatal(err)
	}
	// A dangling link inside the project: writing through it would create
	// a file outside.
	if err := os.Symlink(filepath.Join(outside, "not-yet"), filepath.Join(project, "dangling")); err != nil {
		t.Fatal(err)
	}
	slash := filepath.ToSlash
	tests := []struct {
		name    string
		targets []target
		want    []string
	}{
		{"inside", []target{{path: filepath.Join(project, "sub", "a.go")}}, nil},
		{"the project itself", []target{{path: project, isDir: true}}, nil},
		{"outside file", []target{{path: filepath.Join(outside, "a.txt")}}, []string{slash(outside) + "/*"}},
		{"outside dir", []target{{path: outside, isDir: true}}, []string{slash(outside) + "/*"}},
		{"dot-dot cannot escape", []target{{path: absPath(project, "sub/../../outside/x")}}, []string{slash(outside) + "/*"}},
		{"symlink resolved", []target{{path: filepath.Join(project, "escape", "secret")}}, []string{slash(outside) + "/*"}},
		{"dangling symlink resolved", []target{{path: filepath.Join(project, "dangling")}}, []string{slash(outside) + "/*"}},
		{"not yet existing, inside", []target{{path: filepath.Join(project, "new", "deep", "f")}}, nil},
		{"deduplicated", []target{{path: filepath.Join(outside, "a")}, {path: filepath.Join(outside, "b")}}, []string{slash(outside) + "/*"}},
		{"sibling with common prefix", []target{{path: project + "2/x"}}, []string{slash(project+"2") + "/*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := externalDirs(project, project, tt.targets...)
			if !slices.Equal(got, tt.want) {
				t.Errorf("externalDirs = %v, want %v", got, tt.want)
			}
		})
	}
	// A worktree of "/" (no project) does not make everything internal.
	if got := externalDirs(project, "/", target{path: filepath.Join(outside, "x")}); len(got) != 1 {
		t.Errorf("worktree / counted as the project: %v", got)
	}
}
