package snapshot

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitChanged lists the paths git sees changed in the worktree dir since
// its last commit, renames as a deletion and a creation.
func gitChanged(t *testing.T, dir string) []string {
	t.Helper()
	cmd := exec.Command("git", "status", "--porcelain", "--no-renames", "-uall")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git status: %v", err)
	}
	var paths []string
	for line := range strings.Lines(string(out)) {
		paths = append(paths, strings.TrimSpace(line[3:]))
	}
	slices.Sort(paths)
	return paths
}

// TestChangeDetection runs a shell step that changes the project in one
// way and checks that the step's patch names exactly the files git sees
// changed, and that reverting it leaves git nothing to report: with the
// change watcher and without it, in the process that made the last
// snapshot and in a new one that starts from the saved index.
func TestChangeDetection(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	tests := []struct {
		name, script string
	}{
		{"a file in a deep directory", "printf 'changed\\n' >> a/b/c/d/e/deep.txt"},
		{"same size and modification time", "cp -p a/same.txt ref && printf 'BBBB\\n' > a/same.txt && touch -r ref a/same.txt && rm ref"},
		{"a deleted directory", "rm -r a/b/c"},
		{"a renamed file", "mv top.txt moved.txt"},
		{"a renamed directory", "mv a/b a/renamed"},
		{"a new directory with files", "mkdir -p n/m && printf 'x\\n' > n/m/x.txt && printf 'y\\n' > n/y.txt"},
		{"a mode change", "chmod +x a/same.txt"},
	}
	for _, tt := range tests {
		for _, mode := range []struct {
			name            string
			noWatch, reopen bool
		}{{"watch", false, false}, {"walk", true, false}, {"new process", false, true}} {
			t.Run(tt.name+"/"+mode.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				sh(t, dir, `mkdir -p a/b/c/d/e a/b/x && printf 'deep\n' > a/b/c/d/e/deep.txt && printf 'AAAA\n' > a/same.txt &&
					printf 'top\n' > top.txt && printf 'sib\n' > a/b/x/sib.txt && printf 'c\n' > a/b/c/c.txt &&
					git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init`)
				storeDir := t.TempDir()
				s, err := Open(Options{Dir: storeDir, NoWatch: mode.noWatch})
				if err != nil {
					t.Fatal(err)
				}
				defer func() { s.Close() }()
				ctx := context.Background()
				step := func(script string) (string, Patch) {
					cp, _ := s.Begin(ctx, dir, "ses_c", "msg")
					if err := s.BeforeTool(ctx, cp); err != nil {
						t.Fatal(err)
					}
					sh(t, dir, script)
					p, err := s.Finish(ctx, cp)
					if err != nil {
						t.Fatal(err)
					}
					return cp, p
				}
				step("true") // the first snapshot
				if mode.reopen {
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
					if s, err = Open(Options{Dir: storeDir}); err != nil {
						t.Fatal(err)
					}
				}
				cp, p := step(tt.script)
				var got []string
				for _, f := range p.Files {
					r, _ := filepath.Rel(dir, f)
					got = append(got, filepath.ToSlash(r))
				}
				if changed := gitChanged(t, dir); !slices.Equal(got, changed) {
					t.Errorf("the step found %q changed, git %q (skipped %v)", got, changed, p.Skipped)
				}
				if len(p.Skipped) > 0 {
					t.Errorf("skipped %v", p.Skipped)
				}
				if _, err := s.Revert(ctx, "ses_c", []string{cp}, false); err != nil {
					t.Fatal(err)
				}
				if changed := gitChanged(t, dir); len(changed) > 0 {
					t.Errorf("after the revert git sees %q changed", changed)
				}
			})
		}
	}
}
