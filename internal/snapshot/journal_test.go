package snapshot

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/codeloop/codeloop/internal/id"
)

// TestRecoverKilledStep leaves a step open as a killed process does, after
// its tools changed files, and checks that another store on the same
// directory closes it with Recover: the patch names the changed files, a
// revert restores them exactly, and recovering again gives the same patch.
func TestRecoverKilledStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, work := t.TempDir(), t.TempDir()
	for name, content := range map[string]string{"a.txt": "old a\n", "same.txt": "same\n"} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	killed, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	cp, err := killed.Begin(ctx, work, "ses_1", "msg_1")
	if err != nil {
		t.Fatal(err)
	}
	toolWrite(t, killed, "ses_1", filepath.Join(work, "a.txt"), "new a\n")
	toolWrite(t, killed, "ses_1", filepath.Join(work, "sub", "new.txt"), "created\n")
	// The tool was killed before it wrote same.txt.
	if err := killed.BeforeChange(ctx, "ses_1", []string{filepath.Join(work, "same.txt")}); err != nil {
		t.Fatal(err)
	}
	// The process dies here: no Finish, no Close.

	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if c := s.Collect(); c.Objects != 0 {
		t.Errorf("a collection removed %d objects an open step needs", c.Objects)
	}
	want := []string{filepath.Join(work, "a.txt"), filepath.Join(work, "sub", "new.txt")}
	for range 2 {
		patch, err := s.Recover(ctx, cp)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(patch.Files, want) {
			t.Fatalf("recovered patch %v, want %v", patch.Files, want)
		}
	}
	if _, err := s.Revert(ctx, "ses_1", []string{cp}, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "a.txt")); string(b) != "old a\n" {
		t.Errorf("a.txt after the revert = %q", b)
	}
	if _, err := os.Stat(filepath.Join(work, "sub", "new.txt")); !os.IsNotExist(err) {
		t.Errorf("sub/new.txt is still there after the revert: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "open", "*", "*")); len(left) > 0 {
		t.Errorf("journals left after recovery: %v", left)
	}
	if patch, err := s.Recover(ctx, id.Ascending(id.Snapshot)); err != nil || len(patch.Files) != 0 {
		t.Errorf("recovering an unknown step: %v, %v", patch, err)
	}
}

// TestFinishDropsJournal checks that a step closed normally leaves no
// journal behind.
func TestFinishDropsJournal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, work := openStore(t), t.TempDir()
	cp, err := s.Begin(ctx, work, "ses_1", "msg_1")
	if err != nil {
		t.Fatal(err)
	}
	toolWrite(t, s, "ses_1", filepath.Join(work, "a.txt"), "a\n")
	if left, _ := filepath.Glob(filepath.Join(s.dir, "open", "ses_1", cp+".json")); len(left) != 1 {
		t.Fatalf("no journal while the step is open: %v", left)
	}
	if _, err := s.Finish(ctx, cp); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(s.dir, "open", "*", "*")); len(left) > 0 {
		t.Errorf("journals left after Finish: %v", left)
	}
}
