package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tailscale/hujson"

	"github.com/codeloop/codeloop/internal/mcp"
)

func mcpCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

// readJSONC parses a JSONC file into v.
func readJSONC(t *testing.T, file string, v any) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b) // Standardize blanks the comments in place
	std, err := hujson.Standardize(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(std, v); err != nil {
		t.Fatal(err)
	}
	return text
}

func TestMCPAdd(t *testing.T) {
	home, proj := isolate(t)
	file := filepath.Join(proj, "codeloop.jsonc")
	if err := os.WriteFile(file, []byte("{\n  // my model\n  \"model\": \"a/b\",\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := mcpCLI(t, "mcp", "add", "remote1", "--url", "https://example.com/mcp", "--header", "Authorization=Bearer {env:TOKEN}", "--no-oauth"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := mcpCLI(t, "mcp", "add", "local1", "--env", "ROOT=/srv", "--timeout", "2000", "--", "npx", "-y", "server-x", "--flag"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var cfg struct {
		Model string                    `json:"model"`
		MCP   map[string]map[string]any `json:"mcp"`
	}
	text := readJSONC(t, file, &cfg)
	if !strings.Contains(text, "// my model") || cfg.Model != "a/b" {
		t.Errorf("the existing content was not kept:\n%s", text)
	}
	r, l := cfg.MCP["remote1"], cfg.MCP["local1"]
	if r["type"] != "remote" || r["url"] != "https://example.com/mcp" || r["oauth"] != false ||
		r["headers"].(map[string]any)["Authorization"] != "Bearer {env:TOKEN}" {
		t.Errorf("remote1 = %v", r)
	}
	if l["type"] != "local" || strings.Join(toStrings(l["command"]), " ") != "npx -y server-x --flag" ||
		l["environment"].(map[string]any)["ROOT"] != "/srv" || l["timeout"] != float64(2000) {
		t.Errorf("local1 = %v", l)
	}

	// The file still loads as config.
	if out, errOut, code := mcpCLI(t, "debug", "config"); code != 0 || !strings.Contains(out, "remote1") {
		t.Errorf("debug config: exit %d: %s", code, errOut)
	}

	if _, errOut, code := mcpCLI(t, "mcp", "add", "remote1", "--url", "https://other"); code == 0 || !strings.Contains(errOut, "--force") {
		t.Errorf("adding twice: exit %d: %s", code, errOut)
	}
	if _, errOut, code := mcpCLI(t, "mcp", "add", "remote1", "--url", "https://other", "--force"); code != 0 {
		t.Errorf("--force: exit %d: %s", code, errOut)
	}
	readJSONC(t, file, &cfg)
	if cfg.MCP["remote1"]["url"] != "https://other" {
		t.Errorf("remote1 after --force = %v", cfg.MCP["remote1"])
	}

	for _, bad := range [][]string{
		{"mcp", "add", "x"},
		{"mcp", "add", "x", "--url", "u", "--", "cmd"},
		{"mcp", "add", "x", "--header", "nokv", "--url", "u"},
		{"mcp", "add", "x", "extra"},
	} {
		if _, _, code := mcpCLI(t, bad...); code == 0 {
			t.Errorf("%v succeeded", bad)
		}
	}

	if _, errOut, code := mcpCLI(t, "mcp", "add", "g", "--global", "--url", "https://g"); code != 0 {
		t.Fatalf("--global: exit %d: %s", code, errOut)
	}
	readJSONC(t, filepath.Join(home, ".config", "codeloop", "codeloop.json"), &cfg)
	if cfg.MCP["g"]["url"] != "https://g" {
		t.Errorf("global = %v", cfg.MCP)
	}
}

func toStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

func TestMCPListAndDebug(t *testing.T) {
	_, proj := isolate(t)
	srv := sdk.NewServer(&sdk.Implementation{Name: "clitest", Version: "0.1"}, &sdk.ServerOptions{Instructions: "Be nice."})
	srv.AddTool(&sdk.Tool{Name: "ping", Description: "Answers pong", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "pong"}}}, nil
		})
	srv.AddPrompt(&sdk.Prompt{Name: "review", Arguments: []*sdk.PromptArgument{{Name: "file", Required: true}}},
		func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	conf := `{"mcp": {
		"up": {"type": "remote", "url": "` + ts.URL + `"},
		"down": {"type": "remote", "url": "http://127.0.0.1:1/mcp", "oauth": false},
		"off": {"type": "local", "command": ["nothing"], "enabled": false}
	}}`
	if err := os.WriteFile(filepath.Join(proj, "codeloop.json"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	// Untrusted, the project's servers are listed as held back and none
	// is started.
	if out, errOut, code := mcpCLI(t, "mcp", "list"); code != 0 || !regexp.MustCompile(`(?m)^up +- +held-back`).MatchString(out) {
		t.Fatalf("untrusted list: exit %d: %s%s", code, out, errOut)
	}
	if _, errOut, code := mcpCLI(t, "trust"); code != 0 {
		t.Fatalf("trust: exit %d: %s", code, errOut)
	}
	out, errOut, code := mcpCLI(t, "mcp", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("list output:\n%s", out)
	}
	want := map[string][]string{"down": {"remote", "failed", "-"}, "off": {"local", "disabled", "-"}, "up": {"remote", "connected", "1"}}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if w := want[f[0]]; w == nil || f[1] != w[0] || f[2] != w[1] || f[3] != w[2] {
			t.Errorf("line %q, want %v", line, w)
		}
	}

	out, errOut, code = mcpCLI(t, "mcp", "debug", "up")
	if code != 0 {
		t.Fatalf("debug: exit %d: %s", code, errOut)
	}
	for _, s := range []string{"status:    connected", "transport: streamable-http", "clitest 0.1", "Be nice.", "up_ping", "Answers pong", "/up:review $1=file"} {
		if !strings.Contains(out, s) {
			t.Errorf("debug output lacks %q:\n%s", s, out)
		}
	}
	if _, errOut, code := mcpCLI(t, "mcp", "debug", "down"); code == 0 || !strings.Contains(errOut, `MCP server "down"`) {
		t.Errorf("debug down: exit %d: %s", code, errOut)
	}
	if _, errOut, code := mcpCLI(t, "mcp", "debug", "nosuch"); code == 0 || !strings.Contains(errOut, "configured: down, off, up") {
		t.Errorf("debug nosuch: exit %d: %s", code, errOut)
	}
}

func TestMCPLogout(t *testing.T) {
	home, _ := isolate(t)
	store := mcp.NewAuthStore(filepath.Join(home, ".local", "share", "codeloop", "mcp-auth.json"))
	if err := store.Update("srv", func(e *mcp.AuthEntry) { e.ServerURL, e.AccessToken = "https://x", "t" }); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := mcpCLI(t, "mcp", "logout", "srv")
	if code != 0 || !strings.Contains(out, "Removed") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if _, ok, _ := store.Get("srv"); ok {
		t.Error("the entry is still stored")
	}
	if out, _, _ := mcpCLI(t, "mcp", "logout", "srv"); !strings.Contains(out, "No credentials") {
		t.Errorf("second logout: %s", out)
	}
}
