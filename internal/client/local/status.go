package local

import (
	"context"
	"path/filepath"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/lsp"
)

// MCPStatus reports the state of every configured MCP server by name.
func (c *Client) MCPStatus(context.Context) (map[string]client.MCPStatus, error) {
	out := map[string]client.MCPStatus{}
	if c.app.MCP == nil {
		return out, nil
	}
	for name, st := range c.app.MCP.Status() {
		out[name] = client.MCPStatus{Status: string(st.State), Error: st.Error}
	}
	return out, nil
}

// LSPStatus lists the language servers started so far, their roots
// relative to the project's directory.
func (c *Client) LSPStatus(context.Context) ([]client.LSPStatus, error) {
	out := []client.LSPStatus{}
	if c.app.LSP == nil {
		return out, nil
	}
	for _, st := range c.app.LSP.Status() {
		root := st.Root
		if rel, err := filepath.Rel(c.app.Dir, st.Root); err == nil {
			root = filepath.ToSlash(rel)
		}
		status := client.LSPError
		if st.State == lsp.Running || st.State == lsp.Starting {
			status = client.LSPConnected
		}
		out = append(out, client.LSPStatus{ID: st.Server, Name: st.Server, Root: root, Status: status})
	}
	return out, nil
}
