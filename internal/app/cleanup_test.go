package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/tool"
)

// TestOpenSweepsOldToolOutputs checks that the app removes saved tool
// outputs past their retention when it starts, and keeps recent ones.
func TestOpenSweepsOldToolOutputs(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home, dir := filepath.Join(root, "home"), filepath.Join(root, "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "CODELOOP_DISABLE_MODELS_FETCH": "1", "OLLAMA_HOST": "127.0.0.1:1"}
	getenv := func(k string) string { return env[k] }
	dirs, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	out := dirs.ToolOutput()
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	old, recent := filepath.Join(out, "tool_old"), filepath.Join(out, "tool_recent")
	for _, f := range []string{old, recent} {
		if err := os.WriteFile(f, []byte("output"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-tool.OutputRetention - time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), Options{Dir: dir, Dirs: dirs, Getenv: getenv, NoMCP: true})
	if err != nil {
		t.Fatal(err)
	}
	// Close waits for the sweep that Open started.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an output older than the retention is still there: %v", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("a recent output was removed: %v", err)
	}
}
