//go:build unix

package tool

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNonRegularFilesRefused checks that no tool opens a named pipe: the
// open would wait for a writer that never comes, and the process would
// stop answering signals.
func TestNonRegularFilesRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	tests := []struct {
		tool  string
		input map[string]any
	}{
		{"read", map[string]any{"filePath": fifo}},
		{"edit", map[string]any{"filePath": fifo, "oldString": "a", "newString": "b"}},
		{"write", map[string]any{"filePath": fifo, "content": "x"}},
		{"apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Update File: pipe\n@@\n-a\n+b\n*** End Patch"}},
		{"grep", map[string]any{"pattern": "x", "path": fifo}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			_, err := run(t, testEnv(t), tt.tool, dir, tt.input)
			var nr *NotRegularError
			if !errors.As(err, &nr) && (err == nil || !strings.Contains(err.Error(), "named pipe (FIFO), not a regular file")) {
				t.Fatalf("want a not-a-regular-file error, got %v", err)
			}
			info, statErr := os.Lstat(fifo)
			if statErr != nil || info.Mode()&os.ModeNamedPipe == 0 {
				t.Fatalf("the named pipe was replaced: %v %v", info, statErr)
			}
		})
	}
}

// TestGrepSkipsIgnoreFilePipe searches a directory whose .ignore file is a
// named pipe: the search must not wait on it.
func TestGrepSkipsIgnoreFilePipe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "needle\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, ".ignore"), 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	env := testEnv(t)
	env.Ripgrep = "-" // the Go search reads the ignore files itself
	res, err := run(t, env, "grep", dir, map[string]any{"pattern": "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Metadata["matches"] != 1 {
		t.Fatalf("matches %v, want 1: %s", res.Metadata["matches"], res.Output)
	}
}

// TestReadRefusesSocket reads a Unix socket: refused like a named pipe.
func TestReadRefusesSocket(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Skipf("cannot listen on a Unix socket: %v", err)
	}
	defer l.Close()
	_, err = run(t, testEnv(t), "read", dir, map[string]any{"filePath": path})
	var nr *NotRegularError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), "is a socket") {
		t.Fatalf("want a not-a-regular-file error naming a socket, got %v", err)
	}
}
