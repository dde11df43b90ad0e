//go:build linux

package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeeperBetweenRuns: a run whose last one left its watcher with a
// keeper takes it back instead of walking the project, and still sees
// what the user changed while no codeloop ran: its step keeps the user's
// versions as pre-images, so undoing it restores them. Changes the keeper
// cannot vouch for make the run walk, with the same result.
func TestKeeperBetweenRuns(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	tests := []struct {
		name, between string
		walks         bool // the run after must walk
	}{
		{"nothing", "true", false},
		{"a file edited in place", "printf 'by the user\\n' >> b.txt", false},
		{"same size and modification time", "cp -p b.txt ref && printf 'KEEP\\n' > b.txt && touch -r ref b.txt && rm ref", false},
		{"a new directory of files", "mkdir -p new/deep && printf 'mine\\n' > new/deep/c.txt", false},
		{"a file deleted and one renamed", "rm b.txt && mv pkg/keep.txt pkg/moved.txt", false},
		{"a mode change", "chmod +x b.txt", false},
		{"more files than an unsaved index may name", "mkdir many && for i in $(seq 40); do printf '%s\\n' $i > many/f$i; done && printf 'by the user\\n' >> b.txt", false},
		{"an ignore file changed", "printf '*.log\\n' > .gitignore && printf 'x\\n' > pkg/x.log", true},
		{"the exclude file changed", "mkdir -p .git/info && printf '*.log\\n' > .git/info/exclude && printf 'x\\n' > pkg/x.log", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, store := t.TempDir(), t.TempDir()
			if strings.Contains(tt.name, "nothing") {
				// A store deep enough that its socket's path is longer
				// than a socket address may be.
				store = filepath.Join(store, strings.Repeat("a-long-directory-name/", 5))
			}
			sh(t, dir, "mkdir -p pkg && printf 'v1\\n' > pkg/a.txt && printf 'keep\\n' > b.txt && printf 'k\\n' > pkg/keep.txt")
			ctx := context.Background()
			open := func() *Store {
				s, err := Open(Options{Dir: store, Keeper: exe})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			var walked int64 // the walks made before the step's tool ran
			step := func(s *Store, script string) string {
				cp, _ := s.Begin(ctx, dir, "ses_k", "msg")
				if err := s.BeforeTool(ctx, cp); err != nil {
					t.Fatal(err)
				}
				walked = s.walks.full.Load()
				sh(t, dir, script)
				if _, err := s.Finish(ctx, cp); err != nil {
					t.Fatal(err)
				}
				return cp
			}
			s := open()
			t.Cleanup(func() { s.stopKeeper(dir) })
			step(s, "printf 'v2\\n' > pkg/a.txt")
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			sh(t, dir, tt.between)
			want := readTree(t, dir)
			for run := range 2 {
				s := open()
				cp := step(s, "printf 'v3\\n' > pkg/a.txt && printf 'step\\n' > b.txt && rm -rf new pkg/moved.txt && printf 'n\\n' > made.txt")
				if _, err := s.Revert(ctx, "ses_k", []string{cp}, false); err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				if got := readTree(t, dir); !treesEqual(got, want) {
					t.Errorf("run %d: after the undo the project is %v, want %v", run, got, want)
				}
				// (A step that deletes a watched directory walks after
				// it, keeper or not.)
				kept := s.walks.keeper.Load()
				if run == 0 && tt.walks {
					if walked != 1 {
						t.Errorf("run %d: %d walks before the tool, want 1", run, walked)
					}
				} else if walked != 0 || kept != 1 {
					t.Errorf("run %d: %d walks before the tool and %d watchers from the keeper, want none and 1", run, walked, kept)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func treesEqual(a, b tree) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestKeeperNotForAnotherIndex: when another process saved the index
// after the keeper was given its watcher, the next run walks.
func TestKeeperNotForAnotherIndex(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir, store := t.TempDir(), t.TempDir()
	sh(t, dir, "printf 'v1\\n' > a.txt")
	ctx := context.Background()
	run := func(keeper string, script string) *Store {
		s, err := Open(Options{Dir: store, Keeper: keeper})
		if err != nil {
			t.Fatal(err)
		}
		cp, _ := s.Begin(ctx, dir, "ses_k", "msg")
		if err := s.BeforeTool(ctx, cp); err != nil {
			t.Fatal(err)
		}
		sh(t, dir, script)
		if _, err := s.Finish(ctx, cp); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := run(exe, "printf 'v2\\n' > a.txt")
	t.Cleanup(func() { s.stopKeeper(dir) })
	// Another process without a keeper changes enough to save the index.
	run("", "for i in $(seq 40); do printf '%s\\n' $i > f$i.txt; done")
	sh(t, dir, "printf 'by the user\\n' > a.txt")
	s = run(exe, "printf 'v3\\n' > a.txt")
	if full, kept := s.walks.full.Load(), s.walks.keeper.Load(); full != 1 || kept != 0 {
		t.Errorf("%d walks and %d watchers from the keeper, want one walk", full, kept)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "v3\n" {
		t.Errorf("a.txt = %q", b)
	}
}
