package tool

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deadPID returns the id of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestSweepStaged leaves staged files of running processes and removes
// those of ended ones, and old ones of the form without a process id.
func TestSweepStaged(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dead, live := strconv.Itoa(deadPID(t)), strconv.Itoa(os.Getpid())
	old := time.Now().Add(-2 * StagedMaxAge)
	files := []struct {
		path    string
		aged    bool
		removed bool
	}{
		{".a.go.codeloop-" + dead + "-123.tmp", false, true},
		{"sub/dir/.b.txt.codeloop-" + dead + "-9.tmp", false, true},
		{".c.go.codeloop-" + live + "-5.tmp", true, false},               // a live process writes it
		{".d.go.codeloop-4567.tmp", false, false},                        // older form, new
		{"sub/.e.go.codeloop-4567.tmp", true, true},                      // older form, old
		{"node_modules/.f.js.codeloop-" + dead + "-1.tmp", false, false}, // not swept
		{"g.go.codeloop-" + dead + "-1.tmp", false, false},               // not hidden: not ours
		{".h.go.codeloop-" + dead + "-1.tmp.bak", false, false},
		{"main.go", true, false},
	}
	for _, f := range files {
		p := filepath.Join(root, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if f.aged {
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	removed := SweepStaged(context.Background(), root)
	for _, f := range files {
		_, err := os.Stat(filepath.Join(root, f.path))
		if gone := os.IsNotExist(err); gone != f.removed {
			t.Errorf("%s: removed %v, want %v", f.path, gone, f.removed)
		}
		if slices.Contains(removed, filepath.Join(root, f.path)) != f.removed {
			t.Errorf("%s: reported removed %v, want %v", f.path, !f.removed, f.removed)
		}
	}
}

// TestStagedFileNamesWriter checks that a staged file names the process
// writing it, so that a sweep leaves it.
func TestStagedFileNamesWriter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := stageFile(filepath.Join(dir, "x.txt"), []byte("new"), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(s.tmp)
	m := stagedName.FindStringSubmatch(name)
	if m == nil || m[1] != strconv.Itoa(os.Getpid()) || !strings.HasPrefix(name, ".x.txt.") {
		t.Fatalf("staged file %q does not name this process %d", name, os.Getpid())
	}
	if removed := SweepStaged(context.Background(), dir); len(removed) != 0 {
		t.Errorf("the sweep removed a file being written: %v", removed)
	}
	if err := s.commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "x.txt")); err != nil || string(b) != "new" {
		t.Errorf("x.txt = %q, %v", b, err)
	}
}
