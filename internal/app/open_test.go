package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/paths"
)

// TestOpenFailsCleanly opens apps whose set-up fails after the app was
// created: Open returns the error (and closes what it opened) instead of
// panicking.
func TestOpenFailsCleanly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, config, want string
	}{
		{"default agent is a sub-agent", `{"default_agent": "explore"}`, `"explore" is a subagent`},
		{"default agent is hidden", `{"default_agent": "title"}`, `"title"`},
		{"default agent does not exist", `{"default_agent": "nosuch"}`, `"nosuch"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			home, dir := filepath.Join(root, "home"), filepath.Join(root, "project")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "opencode.json"), []byte(tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"HOME": home, "CODELOOP_DISABLE_MODELS_FETCH": "1", "OLLAMA_HOST": "127.0.0.1:1"}
			getenv := func(k string) string { return env[k] }
			dirs, err := paths.Resolve(getenv)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Open(context.Background(), Options{Dir: dir, Dirs: dirs, Getenv: getenv, NoMCP: true})
			if err == nil {
				a.Close()
				t.Fatal("Open succeeded")
			}
			if a != nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open = %v, %v; want nil and an error saying %s", a, err, tt.want)
			}
		})
	}
}
