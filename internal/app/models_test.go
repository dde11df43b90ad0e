package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/provider"
	"github.com/codeloop/codeloop/internal/session"
)

// openTestApp opens an app on a fresh home and project holding config.
func openTestApp(t *testing.T, config string) *App {
	t.Helper()
	return openTestAppWith(t, config, nil, false)
}

// openTestAppWith opens an app on a fresh home and a project holding
// config and files, connecting its MCP servers when withMCP is set.
func openTestAppWith(t *testing.T, config string, files map[string]string, withMCP bool) *App {
	t.Helper()
	root := t.TempDir()
	home, dir := filepath.Join(root, "home"), filepath.Join(root, "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(dir, "opencode.json"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, dir, files)
	env := map[string]string{"HOME": home, "CODELOOP_DISABLE_MODELS_FETCH": "1", "OLLAMA_HOST": "127.0.0.1:1"}
	getenv := func(k string) string { return env[k] }
	dirs, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), Options{Dir: dir, Dirs: dirs, Getenv: getenv, NoMCP: !withMCP, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

const twoModels = `{
  "provider": {"local": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:1/v1"},
                         "models": {"big": {}, "small": {}}}},
  "model": "local/big",
  "agent": {"tiny": {"mode": "primary", "model": "local/small"}}
}`

func TestPickModel(t *testing.T) {
	t.Parallel()
	ref := func(s string) *message.ModelRef { r, _ := ParseModel(s); return &r }
	used := &session.Info{Model: &session.ModelInfo{ProviderID: "local", ID: "small"}}
	tests := []struct {
		name     string
		config   string
		explicit *message.ModelRef
		agent    string
		sess     *session.Info
		want     string
		noModel  bool // a *NoModelError
		notFound bool // a *provider.NotFoundError
	}{
		{name: "nothing configured", noModel: true},
		{name: "explicit model of no provider", explicit: ref("anthropic/claude-sonnet-4-5"), notFound: true},
		{name: "config model", config: twoModels, want: "local/big"},
		{name: "explicit wins", config: twoModels, explicit: ref("local/small"), agent: "tiny", want: "local/small"},
		{name: "agent's model", config: twoModels, agent: "tiny", want: "local/small"},
		{name: "session's model", config: twoModels, sess: used, want: "local/small"},
		{name: "unknown model", config: twoModels, explicit: ref("local/huge"), notFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := openTestApp(t, tt.config)
			got, err := a.PickModel(context.Background(), tt.explicit, tt.agent, tt.sess)
			var nm *NoModelError
			var nf *provider.NotFoundError
			switch {
			case tt.noModel && !errors.As(err, &nm), tt.notFound && !errors.As(err, &nf):
				t.Fatalf("error %v (%T)", err, err)
			case tt.want != "" && (err != nil || got.ProviderID+"/"+got.ModelID != tt.want):
				t.Fatalf("got %+v, %v; want %s", got, err, tt.want)
			}
		})
	}
}

func TestMentions(t *testing.T) {
	t.Parallel()
	a := openTestApp(t, "")
	if err := os.WriteFile(filepath.Join(a.Dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text       string
		withAgents bool
		want       []string // "file:<name>:<mime>" or "agent:<name>"
	}{
		{"see @main.go.", true, []string{"file:main.go:text/plain"}},
		{"see @. and @missing.go", true, []string{"file:.:application/x-directory"}},
		{"ask @explore and @general", true, []string{"agent:explore", "agent:general"}},
		{"ask @explore", false, nil},
		// Primary and hidden agents cannot take a hand-over.
		{"ask @build, @plan and @compaction", true, nil},
		{"mail me@example.com about `@main.go`", true, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range a.Mentions(tt.text, a.Dir, tt.withAgents) {
			switch p := p.(type) {
			case *message.FilePart:
				got = append(got, "file:"+p.Filename+":"+p.Mime)
			case *message.AgentPart:
				got = append(got, "agent:"+p.Name)
			}
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("Mentions(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
