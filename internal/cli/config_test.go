package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// isolate points every directory codeloop reads at a temporary tree and
// returns the home and project directories.
func isolate(t *testing.T) (home, proj string) {
	t.Helper()
	root := t.TempDir()
	home, proj = filepath.Join(root, "home"), filepath.Join(root, "proj")
	for _, d := range []string{home, filepath.Join(proj, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
		"CODELOOP_DATA_DIR", "CODELOOP_CONFIG_DIR", "CODELOOP_CACHE_DIR", "CODELOOP_STATE_DIR",
		"CODELOOP_CONFIG", "OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "CODELOOP_CONFIG_CONTENT", "OPENCODE_CONFIG_CONTENT",
		"OPENCODE_PERMISSION", "CODELOOP_PERMISSION", "CODELOOP_DISABLE_PROJECT_CONFIG", "OPENCODE_DISABLE_PROJECT_CONFIG"} {
		t.Setenv(k, "")
	}
	t.Chdir(proj)
	return home, proj
}

func TestDebugConfig(t *testing.T) {
	_, proj := isolate(t)
	file := filepath.Join(proj, "opencode.jsonc")
	if err := os.WriteFile(file, []byte("{\n  // c\n  \"model\": \"a/b\",\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"debug", "config"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	text := out.String()
	body, rest, _ := strings.Cut(text, "\n\n")
	var cfg map[string]any
	if err := json.Unmarshal([]byte(body), &cfg); err != nil || cfg["model"] != "a/b" {
		t.Errorf("config JSON = %s (%v)", body, err)
	}
	if !strings.Contains(rest, "model") || !strings.Contains(rest, file) {
		t.Errorf("sources section = %q, want model from %s", rest, file)
	}

	if err := os.WriteFile(file, []byte("{\n  \"modle\": \"a/b\"\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	if code := Run(context.Background(), []string{"debug", "config"}, strings.NewReader(""), &out, &errOut); code != exitError {
		t.Fatalf("exit %d, want %d", code, exitError)
	}
	if want := file + `:2:3: unknown key "modle" in config (did you mean "model"?)`; !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr = %q, want %q", errOut.String(), want)
	}
}

func TestSchemaCommand(t *testing.T) {
	isolate(t)
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"schema"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var s struct {
		Schema     string                     `json:"$schema"`
		Additional *bool                      `json:"additionalProperties"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" || s.Additional == nil || *s.Additional {
		t.Errorf("schema head = %q, additionalProperties %v", s.Schema, s.Additional)
	}
	for _, key := range []string{"model", "provider", "permission", "mcp", "agent", "command", "lsp", "experimental"} {
		if _, ok := s.Properties[key]; !ok {
			t.Errorf("schema lacks %q", key)
		}
	}
}

// TestDebugConfigMasksSecrets checks that no secret of the config reaches
// the output of debug config in clear: provider keys and headers, MCP
// environments and headers, OAuth client secrets.
func TestDebugConfigMasksSecrets(t *testing.T) {
	_, proj := isolate(t)
	secrets := []string{"sk-ant-api03-verysecretvalue1234", "Bearer tok-abcdefghijkl5678", "ghp_secretgithubtoken9012",
		"x-api-secret-value-3456", "oauth-client-secret-7890"}
	cfg := `{
  "model": "anthropic/claude",
  "provider": {"anthropic": {"options": {"apiKey": "` + secrets[0] + `", "headers": {"Authorization": "` + secrets[1] + `", "x-api-key": "` + secrets[3] + `"}}}},
  "mcp": {
    "gh": {"type": "local", "command": ["gh-mcp"], "environment": {"GITHUB_TOKEN": "` + secrets[2] + `"}},
    "remote": {"type": "remote", "url": "https://example.com/mcp", "oauth": {"clientId": "visible-client-id", "clientSecret": "` + secrets[4] + `"}}
  }
}`
	if err := os.WriteFile(filepath.Join(proj, "opencode.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	// Untrusted, the project's servers and provider settings are listed as
	// held back, masked too.
	if code := Run(context.Background(), []string{"debug", "config"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, s := range secrets {
		if strings.Contains(out.String(), s) {
			t.Errorf("debug config of the untrusted project prints the secret %q in clear", s)
		}
	}
	if !strings.Contains(out.String(), "held back until the project is trusted") || !strings.Contains(out.String(), "gh-mcp") {
		t.Errorf("debug config does not list what is held back:\n%s", out.String())
	}
	if code := Run(context.Background(), []string{"trust"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("trust: exit %d: %s", code, errOut.String())
	}
	out.Reset()
	if code := Run(context.Background(), []string{"debug", "config"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, s := range secrets {
		if strings.Contains(out.String(), s) {
			t.Errorf("debug config prints the secret %q in clear", s)
		}
	}
	for _, visible := range []string{"anthropic/claude", "visible-client-id", "https://example.com/mcp", "gh-mcp"} {
		if !strings.Contains(out.String(), visible) {
			t.Errorf("debug config hides %q, which is not a secret", visible)
		}
	}
}

// TestDebugConfigProxy: debug config says which proxy requests go
// through, with its password masked.
func TestDebugConfigProxy(t *testing.T) {
	isolate(t)
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HTTPS_PROXY": "", "https_proxy": "", "HTTP_PROXY": "", "http_proxy": ""}, "proxy: none\n"},
		{map[string]string{"HTTPS_PROXY": "http://ann:s3cret@proxy.corp:3128", "NO_PROXY": "localhost,.corp"},
			"proxy: https: http://ann:***@proxy.corp:3128 (HTTPS_PROXY); no proxy for localhost,.corp (NO_PROXY)\n"},
	}
	for _, tt := range tests {
		for k, v := range tt.env {
			t.Setenv(k, v)
		}
		var out, errOut bytes.Buffer
		if code := Run(context.Background(), []string{"debug", "config"}, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
		if !strings.Contains(out.String(), tt.want) || strings.Contains(out.String(), "s3cret") {
			t.Errorf("output lacks %q:\n%s", tt.want, out.String())
		}
	}
}
