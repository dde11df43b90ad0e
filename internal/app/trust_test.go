package app

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/codeloop/codeloop/internal/paths"
)

// TestBuiltinsThatRunProjectCode checks that the built-in language servers
// and formatters that run a project's own code (rust-analyzer's build
// scripts, prettier's JavaScript config) are held back, and listed, until
// the project is trusted, while the others stay.
func TestBuiltinsThatRunProjectCode(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home, dir := filepath.Join(root, "home"), filepath.Join(root, "project")
	writeFiles(t, dir, map[string]string{
		"Cargo.toml": "[package]\nname = \"x\"\n", "package.json": `{"name": "x", "prettier": {}}`,
		"go.mod": "module x\n",
	})
	env := map[string]string{"HOME": home, "CODELOOP_DISABLE_MODELS_FETCH": "1", "OLLAMA_HOST": "127.0.0.1:1"}
	getenv := func(k string) string { return env[k] }
	dirs, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	open := func(trust bool) *App {
		a, err := Open(context.Background(), Options{Dir: dir, Dirs: dirs, Getenv: getenv, NoMCP: true, TrustProject: trust})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = a.Close() })
		return a
	}
	names := func(a *App) []string {
		var out []string
		for _, it := range a.Trust.Items {
			out = append(out, string(it.Kind)+" "+it.Name)
		}
		return out
	}
	servers := func(a *App) []string {
		var out []string
		for _, s := range a.LSP.Available() {
			out = append(out, s.Server)
		}
		return out
	}
	a := open(false)
	if got := names(a); !slices.Contains(got, "lsp rust") || !slices.Contains(got, "formatter prettier") || slices.Contains(got, "lsp gopls") {
		t.Errorf("held back %v, want rust-analyzer and prettier and not gopls", got)
	}
	if got := servers(a); slices.Contains(got, "rust") || !slices.Contains(got, "gopls") {
		t.Errorf("untrusted servers %v", got)
	}
	if !a.Trust.Held() {
		t.Error("the project is not said to hold anything back")
	}
	b := open(true)
	if got := servers(b); !slices.Contains(got, "rust") {
		t.Errorf("trusted servers %v, want rust-analyzer back", got)
	}
}
