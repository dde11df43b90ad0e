package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/waitfor"
)

// TestAnalyzeShell checks the bash tool's permission analysis: only paths
// known from the text go to the external-directory check, and a
// configured shell's own syntax is used.
func TestAnalyzeShell(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cmd, shell string
		paths            []string
		patterns         []string
		unanalysable     bool
	}{
		{name: "static paths", cmd: "cat /etc/hostname > out.txt", paths: []string{"out.txt", "/etc/hostname"},
			patterns: []string{"cat /etc/hostname > out.txt"}},
		{name: "loop variable", cmd: "for f in *.go; do cat $f; done", patterns: []string{"cat $f"}},
		{name: "variable in a path", cmd: `x=etc; cat "/$x/hostname" ~/notes > "$out"`, paths: []string{"/", "~/notes"},
			patterns: []string{`cat "/$x/hostname" ~/notes > "$out"`}},
		{name: "bash parses bash", cmd: "print -r -- ${(U)x}", unanalysable: true},
		{name: "zsh parses zsh", cmd: "print -r -- ${(U)x}", shell: "/usr/bin/zsh", patterns: []string{"print -r -- ${(U)x}"}},
		{name: "fish is not analysed", cmd: "ls", shell: "/usr/bin/fish", unanalysable: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := analyzeShell(tt.cmd, tt.shell, "")
			if !slices.Equal(got.Paths, tt.paths) {
				t.Errorf("paths %q, want %q", got.Paths, tt.paths)
			}
			if got.Unanalysable != tt.unanalysable || (got.Unanalysable && got.Reason == "") {
				t.Errorf("unanalysable %v (%q), want %v", got.Unanalysable, got.Reason, tt.unanalysable)
			}
			if !tt.unanalysable && !slices.Equal(got.Patterns, tt.patterns) {
				t.Errorf("patterns %q, want %q", got.Patterns, tt.patterns)
			}
		})
	}
}

// catalogJSON is a minimal models.dev catalog.
const catalogJSON = `{"acme": {"id": "acme", "name": "Acme", "env": ["ACME_KEY"], "npm": "@ai-sdk/openai-compatible",
  "api": "https://acme.test/v1", "models": {"fast": {"id": "fast", "name": "Fast", "tool_call": true,
  "limit": {"context": 128000, "output": 8000}}}}}`

// openCatalogApp opens an app whose model catalog comes from url, with env
// added to the environment.
func openCatalogApp(t *testing.T, home, url string, env map[string]string) (*App, paths.Dirs) {
	t.Helper()
	vars := map[string]string{"HOME": home, "CODELOOP_MODELS_URL": url, "OLLAMA_HOST": "127.0.0.1:1"}
	for k, v := range env {
		vars[k] = v
	}
	getenv := func(k string) string { return vars[k] }
	dirs, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), Options{Dir: dir, Dirs: dirs, Getenv: getenv, NoMCP: true, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	return a, dirs
}

// TestRefreshCatalog checks that opening the app refreshes a stale model
// catalog in the background, leaves a fresh one alone, and fetches nothing
// when fetching is turned off.
func TestRefreshCatalog(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(catalogJSON))
	}))
	defer srv.Close()

	t.Run("off", func(t *testing.T) {
		a, dirs := openCatalogApp(t, t.TempDir(), srv.URL, map[string]string{"CODELOOP_DISABLE_MODELS_FETCH": "1"})
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("%d fetches with fetching turned off", n)
		}
		if _, err := os.Stat(filepath.Join(dirs.Cache, "models.json")); err == nil {
			t.Error("a catalog was cached with fetching turned off")
		}
	})

	t.Run("stale then fresh", func(t *testing.T) {
		home := t.TempDir()
		a, dirs := openCatalogApp(t, home, srv.URL, nil)
		cached := filepath.Join(dirs.Cache, "models.json")
		if !waitfor.Within(waitfor.Deadline, func() bool {
			data, err := os.ReadFile(cached)
			return err == nil && string(data) == catalogJSON
		}) {
			t.Fatalf("no catalog cached after %d fetches", hits.Load())
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		before := hits.Load()
		b, _ := openCatalogApp(t, home, srv.URL, nil)
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if n := hits.Load(); n != before {
			t.Errorf("a fresh catalog was fetched again (%d fetches)", n-before)
		}
	})
}

// TestCloseStopsCatalogRefresh closes the app while the catalog server has
// not answered: Close cancels the fetch instead of waiting for its
// 10-second timeout.
func TestCloseStopsCatalogRefresh(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	a, dirs := openCatalogApp(t, t.TempDir(), srv.URL, nil)
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the catalog was not fetched")
	}
	closed := make(chan error, 1)
	go func() { closed <- a.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("Close waited for the catalog fetch")
	}
	if _, err := os.Stat(filepath.Join(dirs.Cache, "models.json")); err == nil {
		t.Error("a cancelled fetch cached a catalog")
	}
}

func TestChunkTimeout(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{Provider: map[string]config.Provider{
		"set":      {Options: config.ProviderOptions{ChunkTimeout: &config.Timeout{Millis: 1500}}},
		"disabled": {Options: config.ProviderOptions{ChunkTimeout: &config.Timeout{Disabled: true}}},
		"unset":    {},
	}}
	for id, want := range map[string]time.Duration{"set": 1500 * time.Millisecond, "disabled": -1, "unset": 0, "unknown": 0} {
		if got := chunkTimeout(cfg, id); got != want {
			t.Errorf("chunkTimeout(%q) = %v, want %v", id, got, want)
		}
	}
}
