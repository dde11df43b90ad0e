package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/paths"
)

// TestOpenCodeToolsWithoutRuntime: with no JavaScript runtime on PATH,
// OpenCode's tool files are skipped with one problem naming them and why.
func TestOpenCodeToolsWithoutRuntime(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	files := []string{filepath.Join("p", ".opencode", "tool", "a.ts"), filepath.Join("p", ".opencode", "tool", "b.js")}
	o := extOptions{opts: Options{Dirs: paths.Dirs{Cache: t.TempDir()}}}
	tools, problems := loadJSTools(context.Background(), o, files, nil, nil)
	if len(tools) != 0 || len(problems) != 1 ||
		!strings.Contains(problems[0], "a.ts, b.js are skipped: no JavaScript runtime (bun, deno or node) is on PATH") {
		t.Errorf("tools %v, problems %q", tools, problems)
	}
}
