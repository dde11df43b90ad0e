package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/tool"
)

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 70)
	tests := []struct {
		server, tool, want string
	}{
		{"github", "create_issue", "github_create_issue"},
		{"my server", "do.thing", "my_server_do_thing"},
		{"a-b", "c/d:e", "a-b_c_d_e"},
		{"ünï", "tool", "_n__tool"},
	}
	for _, tt := range tests {
		if got := ToolName(tt.server, tt.tool); got != tt.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
	}
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	a, b := ToolName("srv", long+"a"), ToolName("srv", long+"b")
	if !valid.MatchString(a) || !valid.MatchString(b) || a == b {
		t.Errorf("long names %q and %q: want distinct valid names of at most 64 characters", a, b)
	}
	if a != ToolName("srv", long+"a") {
		t.Error("ToolName is not stable")
	}
}

func TestSanitizeSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"nil", `null`, `{"properties":{},"type":"object"}`},
		{"no properties", `{"type":"object"}`, `{"properties":{},"type":"object"}`},
		{"strips $schema", `{"$schema":"x","type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			`{"properties":{"a":{"type":"string"}},"required":["a"],"type":"object"}`},
		{"missing type", `{"properties":{"n":{"type":"number"}}}`, `{"properties":{"n":{"type":"number"}},"type":"object"}`},
		{"keeps the rest", `{"type":"object","properties":{},"additionalProperties":false,"$defs":{"x":{}}}`,
			`{"$defs":{"x":{}},"additionalProperties":false,"properties":{},"type":"object"}`},
		{"not an object", `"nonsense"`, `{"properties":{},"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in any
			if err := json.Unmarshal([]byte(tt.in), &in); err != nil {
				t.Fatal(err)
			}
			if got := string(sanitizeSchema(in)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestServerEnv(t *testing.T) {
	env := serverEnv([]string{"PATH=/bin", "HOME=/h", "=C:=x"}, map[string]string{"HOME": "/other", "TOKEN": "t"})
	slices.Sort(env)
	want := []string{"=C:=x", "HOME=/other", "PATH=/bin", "TOKEN=t"}
	if !slices.Equal(env, want) {
		t.Errorf("env = %v, want %v", env, want)
	}
}

func TestTimeouts(t *testing.T) {
	m := &Manager{}
	if got := m.callTimeout(config.MCP{}); got != DefaultCallTimeout {
		t.Errorf("default call timeout = %v", got)
	}
	if got := m.connectTimeout(config.MCP{}); got != DefaultConnectTimeout {
		t.Errorf("default connect timeout = %v", got)
	}
	m.opts.CallTimeout = time.Minute
	if got := m.callTimeout(config.MCP{}); got != time.Minute {
		t.Errorf("option call timeout = %v", got)
	}
	if got := m.callTimeout(config.MCP{Timeout: ptr(1500)}); got != 1500*time.Millisecond {
		t.Errorf("server call timeout = %v", got)
	}
	if got := m.connectTimeout(config.MCP{Timeout: ptr(1500)}); got != 1500*time.Millisecond {
		t.Errorf("server connect timeout = %v", got)
	}
}

func TestAuthStore(t *testing.T) {
	s := NewAuthStore(filepath.Join(t.TempDir(), "sub", "mcp-auth.json"))
	if _, ok, err := s.Get("x"); ok || err != nil {
		t.Fatalf("empty store: %v %v", ok, err)
	}
	exp := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	err := s.Update("x", func(e *AuthEntry) {
		e.ServerURL = "https://x/mcp"
		e.setConfig(&oauth2.Config{ClientID: "c", Endpoint: oauth2.Endpoint{TokenURL: "https://x/token"}, Scopes: []string{"a"}})
		e.setToken(&oauth2.Token{AccessToken: "at", RefreshToken: "rt", TokenType: "Bearer", Expiry: exp})
	})
	if err != nil {
		t.Fatal(err)
	}
	// A refresh without a new refresh token keeps the old one.
	if err := s.Update("x", func(e *AuthEntry) { e.setToken(&oauth2.Token{AccessToken: "at2", Expiry: exp}) }); err != nil {
		t.Fatal(err)
	}
	e, ok, err := s.Get("x")
	if !ok || err != nil || e.AccessToken != "at2" || e.RefreshToken != "rt" || !e.Expiry.Equal(exp) || e.oauthConfig().ClientID != "c" {
		t.Errorf("entry = %+v, %v, %v", e, ok, err)
	}
	if ok, err := s.Delete("x"); !ok || err != nil {
		t.Errorf("delete = %v, %v", ok, err)
	}
	if ok, _ := s.Delete("x"); ok {
		t.Error("deleted twice")
	}
}

// TestResultsTruncated cuts long text results of server tools and of
// read_mcp_resource like every tool's, keeping the full text in a file.
func TestResultsTruncated(t *testing.T) {
	dir := t.TempDir()
	m := start(t, map[string]config.MCP{"srv": {Type: "remote", URL: httpServer(t) + "/mcp"}},
		Options{Truncate: &tool.Truncator{Dir: dir, Limits: tool.Limits{MaxBytes: 8}}})
	long := "a text much longer than eight bytes"
	for _, c := range []struct{ tool, input, full string }{
		{"srv_echo", `{"text":"` + long + `"}`, long},
		{"read_mcp_resource", `{"server":"srv","uri":"test://readme"}`, "# Read me"},
	} {
		res, err := run(t, findTool(t, m, c.tool), c.input, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		path, _ := res.Metadata["outputPath"].(string)
		if res.Metadata["truncated"] != true || path == "" || strings.Contains(res.Output, c.full) {
			t.Fatalf("%s: output %q, metadata %v: want it truncated", c.tool, res.Output, res.Metadata)
		}
		if full, err := os.ReadFile(path); err != nil || string(full) != c.full {
			t.Errorf("%s: saved output %q, %v", c.tool, full, err)
		}
	}
	res, err := run(t, findTool(t, m, "srv_echo"), `{"text":"short"}`, nil)
	if err != nil || res.Output != "short" || res.Metadata["truncated"] != false {
		t.Errorf("short echo = %+v, %v", res, err)
	}
}
