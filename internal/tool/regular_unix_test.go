//go:build unix

package tool

import (
	"errors"
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
	t.Run("grep", func(t *testing.T) {
		res, err := run(t, testEnv(t), "grep", dir, map[string]any{"pattern": "x", "path": fifo})
		if err == nil && res != nil && res.Metadata["matches"] != 0 {
			t.Fatalf("grep on a named pipe: %+v", res)
		}
	})
}
