package sandbox_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/sandbox"
)

// TestGuard plays a command that creates protected paths that were absent
// and replaces a protected symbolic link, then restores them.
func TestGuard(t *testing.T) {
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "codeloop.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("elsewhere", filepath.Join(project, ".claude")); err != nil {
		t.Fatal(err)
	}
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Project: project, TempDir: t.TempDir()}
	g := p.Guard()

	// What a confined command might do.
	for _, d := range []string{".git/hooks", ".codeloop/tools/locked"} {
		if err := os.MkdirAll(filepath.Join(project, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		".git/hooks/pre-commit": "#!/bin/sh\n", ".mcp.json": "{}", "codeloop.json": `{"x":1}`, "kept.txt": "x",
		".codeloop/tools/locked/evil": "x",
	} {
		if err := os.WriteFile(filepath.Join(project, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(project, ".codeloop", "tools", "locked"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(project, ".claude")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}

	changed, err := g.Restore()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range []string{".claude", ".codeloop", ".git", ".mcp.json"} {
		want = append(want, filepath.Join(project, r))
	}
	if !slices.Equal(changed, want) {
		t.Errorf("restored %q, want %q", changed, want)
	}
	for _, r := range []string{".codeloop", ".git", ".mcp.json"} {
		if _, err := os.Lstat(filepath.Join(project, r)); !os.IsNotExist(err) {
			t.Errorf("%s is still there: %v", r, err)
		}
	}
	if target, err := os.Readlink(filepath.Join(project, ".claude")); err != nil || target != "elsewhere" {
		t.Errorf(".claude: %q, %v", target, err)
	}
	// Paths that existed are the mounts' to protect, not the guard's.
	for name, body := range map[string]string{"codeloop.json": `{"x":1}`, "kept.txt": "x"} {
		if b, err := os.ReadFile(filepath.Join(project, name)); err != nil || string(b) != body {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	if changed, err := g.Restore(); err != nil || len(changed) != 0 {
		t.Errorf("a second restore changed %q, %v", changed, err)
	}
}

func TestStatusString(t *testing.T) {
	tests := []struct {
		st   sandbox.Status
		want []string
	}{
		{sandbox.Status{Available: true, Landlock: 7, Seccomp: true, MountNamespace: true},
			[]string{"available: landlock ABI v7", "seccomp", "read-only file system but the writable paths", "read-only protected paths"}},
		{sandbox.Status{Available: true, Landlock: 3, Seccomp: true, Reason: "no private mount namespace: operation not permitted"},
			[]string{"no mount namespace", "protected paths and metadata", "not enforced", "(no private mount namespace: operation not permitted)"}},
		{sandbox.Status{Reason: "no landlock"}, []string{"unavailable: no landlock"}},
	}
	for _, tt := range tests {
		got := tt.st.String()
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%+v: %q lacks %q", tt.st, got, w)
			}
		}
		if !tt.st.MountNamespace && strings.Contains(got, "read-only protected paths") {
			t.Errorf("%+v claims read-only protected paths: %q", tt.st, got)
		}
	}
}

// TestGuardStaysInside replaces the project's .git with a link to another
// repository's, as a command could where no mount pins .git: restoring must
// not remove what lies there.
func TestGuardStaysInside(t *testing.T) {
	project, other := t.TempDir(), t.TempDir()
	for _, d := range []string{filepath.Join(project, ".git"), filepath.Join(other, ".git", "modules")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Project: project, TempDir: t.TempDir()}
	g := p.Guard() // .git/modules is absent
	if err := os.Remove(filepath.Join(project, ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(other, ".git"), filepath.Join(project, ".git")); err != nil {
		t.Fatal(err)
	}
	changed, err := g.Restore()
	if _, serr := os.Stat(filepath.Join(other, ".git", "modules")); serr != nil {
		t.Fatalf("restoring removed another repository's modules: %v (restored %q, %v)", serr, changed, err)
	}
	if err == nil {
		t.Error("restoring through a link out of the project did not fail")
	}
}
