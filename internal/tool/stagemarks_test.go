package tool

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestStageMarks checks that a start walks the project for staged files
// of killed writes only when a mark of an ended process names the project
// (or when no mark was ever kept), and that a process's own mark goes with
// its Close.
func TestStageMarks(t *testing.T) {
	ctx := context.Background()
	root, data := t.TempDir(), t.TempDir()
	dir := filepath.Join(data, "staging")
	other := t.TempDir()
	leftover := func() string {
		t.Helper()
		p := filepath.Join(root, "sub", ".main.go.codeloop-"+strconv.Itoa(deadPID(t))+"-1.tmp")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	markOf := func(pid int, project string) string {
		t.Helper()
		p := filepath.Join(dir, strconv.Itoa(pid)+"-"+projectKey(filepath.Clean(project)))
		if err := os.WriteFile(p, []byte(project+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	m := NewStageMarks(dir, root)

	// No mark was ever kept: the first start looks, as before marks.
	first := leftover()
	if got := m.Sweep(ctx); len(got) != 1 || exists(first) {
		t.Fatalf("first sweep removed %v; the leftover is still there: %v", got, exists(first))
	}

	// Marks kept, none of an ended process: no walk.
	unmarked := leftover()
	if got := m.Sweep(ctx); got != nil || !exists(unmarked) {
		t.Fatalf("a sweep without marks removed %v", got)
	}

	// Marks of a live process and of an ended one in another project: no walk.
	live := markOf(os.Getpid(), root) // this process runs
	elsewhere := markOf(deadPID(t), other)
	if got := m.Sweep(ctx); got != nil || !exists(unmarked) {
		t.Fatalf("a sweep with only a live mark and another project's removed %v", got)
	}
	_ = os.Remove(live)

	// A mark of an ended process in this project: the walk runs, the mark goes.
	dead := markOf(deadPID(t), root)
	if got := m.Sweep(ctx); len(got) != 1 || exists(unmarked) || exists(dead) {
		t.Fatalf("sweep after a killed writer removed %v; leftover there %v, mark there %v", got, exists(unmarked), exists(dead))
	}
	if !exists(elsewhere) {
		t.Errorf("another project's mark was removed")
	}

	// A process's own mark: made once before its first write, gone at Close.
	if err := m.Mark(); err != nil {
		t.Fatal(err)
	}
	if !exists(m.own) {
		t.Fatalf("Mark left no mark at %s", m.own)
	}
	if err := m.Mark(); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if exists(m.own) {
		t.Errorf("Close left the process's mark")
	}
}
