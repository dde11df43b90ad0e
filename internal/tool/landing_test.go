//go:build unix

package tool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/permission"
)

// swapAsker lets every request through and, when the edit is asked about
// (after the external_directory and protected-path checks looked at the
// paths), replaces the project's directory d with a symbolic link to to,
// as a command still running in the background could.
type swapAsker struct {
	t       *testing.T
	d, to   string
	swapped bool
}

func (a *swapAsker) Ask(_ context.Context, req permission.Request) error {
	if req.Permission == "edit" && !a.swapped {
		a.swapped = true
		if err := os.RemoveAll(a.d); err != nil {
			a.t.Fatal(err)
		}
		if err := os.Symlink(a.to, a.d); err != nil {
			a.t.Fatal(err)
		}
	}
	return nil
}

// TestWriteLandsWhereChecked swaps a directory of the project for a
// symbolic link, to a directory outside it or to .git, between the
// permission check and the write of write, edit and apply_patch: the
// tools must refuse to write (or remove) there, since nobody was asked
// about it, and leave the outside directory and .git as they were.
func TestWriteLandsWhereChecked(t *testing.T) {
	tests := []struct {
		name, tool string
		input      map[string]any
		existing   bool // d/f.txt exists before, with "old\n"
	}{
		{"write", "write", map[string]any{"filePath": "d/f.txt", "content": "pwned\n"}, false},
		{"edit", "edit", map[string]any{"filePath": "d/f.txt", "oldString": "old", "newString": "pwned"}, true},
		{"apply_patch add", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: d/f.txt\n+pwned\n*** End Patch"}, false},
		{"apply_patch update", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: d/f.txt\n@@\n-old\n+pwned\n*** End Patch"}, true},
		{"apply_patch delete", "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Delete File: d/f.txt\n*** End Patch"}, true},
	}
	for _, tt := range tests {
		for _, into := range []string{"outside", ".git"} {
			t.Run(tt.name+" into "+into, func(t *testing.T) {
				root := t.TempDir()
				project := filepath.Join(root, "project")
				to := filepath.Join(root, "outside")
				if into == ".git" {
					to = filepath.Join(project, ".git", "hooks")
				}
				files := map[string]string{"project/.git/HEAD": "ref: refs/heads/main\n", "outside/keep": "keep\n", "project/.git/hooks/keep": "keep\n"}
				if tt.existing {
					files["project/d/f.txt"] = "old\n"
					files["outside/f.txt"] = "old\n"
					files["project/.git/hooks/f.txt"] = "old\n"
				} else if err := os.MkdirAll(filepath.Join(project, "d"), 0o755); err != nil {
					t.Fatal(err)
				}
				writeFiles(t, root, files)
				call, _ := newCall(t, tt.tool, project, tt.input)
				call.Asker = &swapAsker{t: t, d: filepath.Join(project, "d"), to: to}
				_, err := toolByID(t, testEnv(t), tt.tool).Run(context.Background(), call)
				if err == nil || !strings.Contains(err.Error(), "changed after the check") {
					t.Errorf("the write went through the swapped directory: err = %v", err)
				}
				data, rerr := os.ReadFile(filepath.Join(to, "f.txt"))
				switch {
				case tt.existing && (rerr != nil || string(data) != "old\n"):
					t.Errorf("%s/f.txt was changed: %q, %v", into, data, rerr)
				case !tt.existing && rerr == nil:
					t.Errorf("%s/f.txt was created: %q", into, data)
				}
				entries, _ := os.ReadDir(to)
				for _, e := range entries {
					if strings.Contains(e.Name(), ".codeloop-") {
						t.Errorf("a staged file was left in %s: %s", into, e.Name())
					}
				}
			})
		}
	}
}
