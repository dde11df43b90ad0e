package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenDamagedDatabase opens a file that is not a database: the error
// names the file and says how to move it aside.
func TestOpenDamagedDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "codeloop.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func(context.Context, string) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		s, err := open(context.Background(), path)
		if err == nil {
			s.Close()
			t.Fatalf("%s of a damaged database succeeded", name)
		}
		var we *WriteError
		if !errors.As(err, &we) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "mv "+path+" "+path+".corrupt") {
			t.Errorf("%s: %v; want the file named and how to move it aside", name, err)
		}
	}
}

// TestOpenReadOnly reads a database without writing to it: no migration,
// no write, and a write through it fails.
func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "codeloop.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PutProject(ctx, Project{ID: "p1", Worktree: "/w", TimeCreated: 1, TimeUpdated: 1}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, _ := os.ReadFile(path)
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if p, err := ro.GetProject(ctx, "p1"); err != nil || p.Worktree != "/w" {
		t.Fatalf("GetProject = %+v, %v", p, err)
	}
	if err := ro.PutProject(ctx, Project{ID: "p2", Worktree: "/x"}); err == nil {
		t.Fatal("a write through a read-only store succeeded")
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("the database file changed")
	}
	if _, err := OpenReadOnly(ctx, filepath.Join(t.TempDir(), "missing.db")); err == nil {
		t.Fatal("OpenReadOnly of a missing file succeeded")
	}
}
