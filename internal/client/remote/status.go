package remote

import (
	"context"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/wire"
)

// MCPStatus reports the state of every configured MCP server by name.
func (c *Client) MCPStatus(ctx context.Context) (map[string]client.MCPStatus, error) {
	var out map[string]client.MCPStatus
	_, err := c.do(ctx, request{route: wire.MCPStatus, out: &out})
	return out, err
}

// LSPStatus lists the language servers started so far.
func (c *Client) LSPStatus(ctx context.Context) ([]client.LSPStatus, error) {
	var out []client.LSPStatus
	_, err := c.do(ctx, request{route: wire.LSPStatus, out: &out})
	return out, err
}

// ContextUsage reports what fills a session's context window.
func (c *Client) ContextUsage(ctx context.Context, sessionID string) (client.ContextUsage, error) {
	var out client.ContextUsage
	_, err := c.do(ctx, request{route: wire.SessionContext, params: []string{sessionID}, out: &out})
	return out, err
}

// SetAuth is not offered over the API yet: a key is stored on the
// server's machine.
func (c *Client) SetAuth(context.Context, string, client.Auth) error {
	return &client.UnsupportedError{Op: "storing a key through the server", Reason: "run codeloop auth login on the server's machine"}
}
