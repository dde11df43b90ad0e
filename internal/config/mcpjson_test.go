package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/trust"
)

// TestMCPJSON reads Claude Code's .mcp.json from the project root and a
// directory below it as the project's mcp key: held back, with file and
// line, until trusted; in the trusted view with ${VAR} expanded.
func TestMCPJSON(t *testing.T) {
	t.Parallel()
	tr := newTree(t, true)
	tr.write(t, map[string]string{
		"proj/.mcp.json": `{
  "mcpServers": {
    "files": {"command": "npx", "args": ["-y", "server-files", "${ROOT:-/srv}"], "env": {"TOKEN": "${TOKEN}"}},
    "docs": {"type": "http", "url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
    "events": {"type": "sse", "url": "https://events.example/sse"}
  }
}`,
		"proj/sub/.mcp.json": `{"mcpServers": {"below": {"type": "stdio", "command": "./below"}}}`,
		"proj/opencode.json": `{"mcp": {"docs": {"type": "remote", "url": "https://override.example/mcp"}}}`,
	})
	l, err := tr.load(t, map[string]string{"TOKEN": "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Config.MCP) != 0 {
		t.Errorf("untrusted: servers in force: %v", l.Config.MCP)
	}
	lines := map[string]string{}
	for _, it := range l.HeldBack {
		if it.Kind == trust.KindMCP {
			lines[it.Name] = filepath.Base(it.File) + ":" + strings.Repeat("I", it.Line)
			if strings.Contains(it.Detail, "s3cret") {
				t.Errorf("an item carries a substituted secret: %v", it)
			}
		}
	}
	want := map[string]string{"files": ".mcp.json:III", "events": ".mcp.json:IIIII", "below": ".mcp.json:I",
		"docs": "opencode.json:I"}
	for name, w := range want {
		if lines[name] != w {
			t.Errorf("held-back %s at %q, want %q (all: %v)", name, lines[name], w, lines)
		}
	}
	if !slices.Contains(l.ProjectFiles, filepath.Join(tr.proj, ".mcp.json")) {
		t.Error(".mcp.json is not one of the project's files")
	}

	l.Use(true)
	m := l.Config.MCP
	if f := m["files"]; f.Type != "local" || !slices.Equal(f.Command, []string{"npx", "-y", "server-files", "/srv"}) ||
		f.Environment["TOKEN"] != "s3cret" {
		t.Errorf("files = %+v", f)
	}
	if d := m["docs"]; d.Type != "remote" || d.URL != "https://override.example/mcp" {
		t.Errorf("docs = %+v, want opencode.json's to win", d)
	}
	if e := m["events"]; e.Type != "remote" || e.URL != "https://events.example/sse" {
		t.Errorf("events = %+v", e)
	}
	if b := m["below"]; b.Type != "local" || !slices.Equal(b.Command, []string{"./below"}) {
		t.Errorf("below = %+v", b)
	}
}

func TestMCPJSONInvalid(t *testing.T) {
	t.Parallel()
	tr := newTree(t, true)
	tr.write(t, map[string]string{"proj/.mcp.json": `{"mcpServers": {"x": {"command": 3}}}`})
	_, err := tr.load(t, nil)
	if err == nil || !strings.Contains(err.Error(), ".mcp.json") {
		t.Errorf("err = %v, want one naming .mcp.json", err)
	}
}

// TestClaudeUserMCP reads the user's servers from ~/.claude.json, and
// those the user added for this project, as the user's own; other
// projects' servers are not read, and CODELOOP_DISABLE_CLAUDE_CODE turns
// the file off.
func TestClaudeUserMCP(t *testing.T) {
	t.Parallel()
	tr := newTree(t, true)
	tr.write(t, map[string]string{"home/.claude.json": `{
  "numStartups": 3,
  "mcpServers": {"mine": {"command": "my-server", "args": ["--${MODE:-fast}"]}},
  "projects": {
    "` + tr.proj + `": {"mcpServers": {"here": {"type": "http", "url": "http://127.0.0.1:7000/mcp"}}},
    "/elsewhere": {"mcpServers": {"there": {"command": "other"}}}
  }
}`})
	tests := []struct {
		env  map[string]string
		want []string
	}{
		{nil, []string{"here", "mine"}},
		{map[string]string{"CODELOOP_DISABLE_CLAUDE_CODE": "1"}, nil},
	}
	for _, tt := range tests {
		l, err := tr.load(t, tt.env)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for name := range l.Config.MCP {
			got = append(got, name)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("env %v: servers %v, want %v", tt.env, got, tt.want)
		}
		if len(l.HeldBack) != 0 {
			t.Errorf("the user's servers are held back: %v", l.HeldBack)
		}
		if tt.want != nil && !slices.Equal(l.Config.MCP["mine"].Command, []string{"my-server", "--fast"}) {
			t.Errorf("mine = %+v", l.Config.MCP["mine"])
		}
	}
}
