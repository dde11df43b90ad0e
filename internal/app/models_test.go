package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/provider"
	"github.com/codeloop/codeloop/internal/session"
)

// openTestApp opens an app on a fresh home and project holding config.
func openTestApp(t *testing.T, config string) *App {
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
	env := map[string]string{"HOME": home, "CODELOOP_DISABLE_MODELS_FETCH": "1", "OLLAMA_HOST": "127.0.0.1:1"}
	getenv := func(k string) string { return env[k] }
	dirs, err := paths.Resolve(getenv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(context.Background(), Options{Dir: dir, Dirs: dirs, Getenv: getenv, NoMCP: true})
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
