package tool

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/approval"
	"github.com/codeloop/codeloop/internal/permission"
)

func TestProtectedPath(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cwd := filepath.Join(root, "pkg", "sub")
	writeFiles(t, root, map[string]string{"pkg/sub/main.go": "package sub\n"})
	tests := []struct {
		path      string
		protected bool
	}{
		{".git/config", true},
		{".git/hooks/pre-commit", true},
		{".GIT/config", true},
		{"vendor/lib/.git/config", true},
		{"codeloop.json", true},
		{"codeloop.jsonc", true},
		{"opencode.json", true},
		{"opencode.jsonc", true},
		{".mcp.json", true},
		{".codeloop/agent/x.md", true},
		{".opencode/plugin/p.ts", true},
		{".claude/settings.json", true},
		{"pkg/codeloop.json", true},
		{"pkg/sub/.mcp.json", true},
		{"pkg/sub/.claude/x", true},
		{"other/codeloop.json", false},
		{"pkg/sub/deeper/opencode.json", false},
		{"main.go", false},
		{".gitignore", false},
		{"docs/codeloop.json.md", false},
		{"codeloop", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			why, ok := ProtectedPath(root, cwd, filepath.Join(root, filepath.FromSlash(tt.path)))
			if ok != tt.protected || ok && why == "" {
				t.Errorf("ProtectedPath = %q, %v; want %v", why, ok, tt.protected)
			}
		})
	}
}

func TestProtectedGitFile(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	base := t.TempDir()
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	gitRun := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// A repository whose git directory has no .git in its path.
	sep := filepath.Join(base, "store", "repo-data")
	if err := os.MkdirAll(filepath.Join(base, "store"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(main, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(main, "init", "-q", "--separate-git-dir="+sep)
	gitRun(main, "commit", "-q", "--allow-empty", "-m", "init")
	gitRun(main, "worktree", "add", "-q", wt)
	for _, tt := range []struct {
		worktree, path string
	}{
		{main, filepath.Join(sep, "config")},
		{main, filepath.Join(sep, "hooks", "pre-commit")},
		{wt, filepath.Join(sep, "config")},
		{wt, filepath.Join(sep, "worktrees", "wt", "HEAD")},
	} {
		if _, ok := ProtectedPath(tt.worktree, tt.worktree, tt.path); !ok {
			t.Errorf("%s is not protected in %s", tt.path, tt.worktree)
		}
	}
	if _, ok := ProtectedPath(main, main, filepath.Join(base, "store", "other")); ok {
		t.Error("a sibling of the git directory is protected")
	}
}

func TestProtectedSymlink(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".git/config": "[core]\n"})
	if err := os.Symlink(".git", filepath.Join(root, "g")); err != nil {
		t.Skip(err)
	}
	if _, ok := ProtectedPath(root, root, filepath.Join(root, "g", "config")); !ok {
		t.Error("a path through a link to .git is not protected")
	}
}

func TestEditProtected(t *testing.T) {
	t.Parallel()
	type edit struct {
		tool  string
		input func(dir string) map[string]any
		file  string // the protected file it changes
	}
	edits := []edit{
		{tool: "edit", file: ".git/config", input: func(dir string) map[string]any {
			return map[string]any{"filePath": filepath.Join(dir, ".git/config"), "oldString": "bare = false", "newString": "bare = true"}
		}},
		{tool: "write", file: ".codeloop/x", input: func(dir string) map[string]any {
			return map[string]any{"filePath": filepath.Join(dir, ".codeloop/x"), "content": "new\n"}
		}},
		{tool: "apply_patch", file: "opencode.json", input: func(string) map[string]any {
			return map[string]any{"patchText": "*** Begin Patch\n*** Add File: opencode.json\n+{}\n*** Update File: main.go\n@@\n-package main\n+package main // x\n*** End Patch"}
		}},
	}
	modes := []struct {
		name    string
		opts    approval.Options
		reply   permission.ReplyKind
		changed bool
		errText string
	}{
		{name: "approved", reply: permission.ReplyOnce, changed: true},
		{name: "always approves this change only", reply: permission.ReplyAlways, changed: true},
		{name: "rejected", reply: permission.ReplyReject, errText: "rejected"},
		{name: "auto", opts: approval.Options{AutoApprove: true, NonInteractive: true}, errText: "user's approval"},
	}
	for _, e := range edits {
		for _, m := range modes {
			t.Run(e.tool+"/"+m.name, func(t *testing.T) {
				dir := t.TempDir()
				writeFiles(t, dir, map[string]string{".git/config": "[core]\n\tbare = false\n", "main.go": "package main\n"})
				u := newUserAsker(t, m.opts, allowAll, m.reply)
				call := callWith(t, e.tool, dir, e.input(dir), u)
				before, _ := os.ReadFile(filepath.Join(dir, e.file))
				_, err := toolByID(t, testEnv(t), e.tool).Run(context.Background(), call)
				if m.errText != "" {
					if err == nil || !strings.Contains(err.Error(), m.errText) {
						t.Fatalf("err = %v, want one with %q", err, m.errText)
					}
				} else if err != nil {
					t.Fatal(err)
				}
				after, _ := os.ReadFile(filepath.Join(dir, e.file))
				if changed := string(after) != string(before); changed != m.changed {
					t.Fatalf("changed = %v, want %v", changed, m.changed)
				}
				var edits []permission.Request
				for _, r := range u.seen() {
					if r.Permission == "edit" {
						edits = append(edits, r)
					}
				}
				if len(edits) != 1 || !edits[0].Protected || len(edits[0].Always) != 0 || !strings.Contains(edits[0].Reason, e.file) {
					t.Fatalf("edit requests %+v", edits)
				}
				if m.reply == permission.ReplyAlways {
					// A second change is asked again; rejected this time.
					u.setReply(permission.ReplyReject)
					in := map[string]any{"filePath": filepath.Join(dir, e.file), "content": "again\n"}
					call := callWith(t, "write", dir, in, u)
					if _, err := toolByID(t, testEnv(t), "write").Run(context.Background(), call); err == nil ||
						!strings.Contains(err.Error(), "rejected") {
						t.Fatalf("a second protected change: %v", err)
					}
				}
			})
		}
	}
	// A plain file under an allow-all rule and --auto is changed unasked.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"main.go": "package main\n"})
	u := newUserAsker(t, approval.Options{AutoApprove: true, NonInteractive: true}, allowAll, "")
	call := callWith(t, "write", dir, map[string]any{"filePath": filepath.Join(dir, "main.go"), "content": "x\n"}, u)
	if _, err := toolByID(t, testEnv(t), "write").Run(context.Background(), call); err != nil {
		t.Fatal(err)
	}
}
