package tui

import (
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// testServers are three MCP servers and two language servers in various
// states.
var testServers = serversMsg{
	mcp: map[string]client.MCPStatus{
		"github":  {Status: client.MCPConnected},
		"broken":  {Status: client.MCPFailed, Error: "exec: no such file"},
		"linear":  {Status: client.MCPNeedsAuth},
		"offline": {Status: client.MCPDisabled},
	},
	lsp: []client.LSPStatus{
		{ID: "gopls", Name: "gopls", Root: ".", Status: client.LSPConnected},
		{ID: "typescript", Name: "typescript", Root: "web", Status: client.LSPError},
	},
}

// TestSidebarServers checks the sidebar lists each MCP server with its
// state and each language server with its root, and that a view without
// the sidebar says on its status line how many MCP servers are down.
func TestSidebarServers(t *testing.T) {
	m := testModel(t, 200, 60)
	sidebarSession(m)
	send(m, testServers)
	got := screen(m)
	for _, want := range []string{"MCP", "broken failed: exec: no such file", "github connected",
		"linear needs auth", "offline disabled", "LSP", "gopls", "typescript web error"} {
		if !strings.Contains(got, want) {
			t.Errorf("the sidebar lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "MCP servers down") {
		t.Errorf("the status line repeats what the sidebar shows:\n%s", got)
	}

	narrow := testModel(t, 80, 24)
	sidebarSession(narrow)
	send(narrow, testServers)
	if got := screen(narrow); !strings.Contains(got, "2 MCP servers down") {
		t.Errorf("the status line does not say two MCP servers are down:\n%s", got)
	}
	send(narrow, serversMsg{mcp: map[string]client.MCPStatus{"github": {Status: client.MCPConnected}}})
	if got := screen(narrow); strings.Contains(got, "MCP server") {
		t.Errorf("the status line still reports a server down:\n%s", got)
	}
}
