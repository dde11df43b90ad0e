package local

import (
	"context"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/lsp"
	"github.com/codeloop/codeloop/internal/session"
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
	return each(func(st lsp.Status) client.LSPStatus {
		status := client.LSPError
		if st.State == lsp.Running || st.State == lsp.Starting {
			status = client.LSPConnected
		}
		return client.LSPStatus{ID: st.Server, Name: st.Server, Root: st.Root, Status: status}
	})(c.app.LanguageServers()), nil
}

// ContextUsage reports what fills a session's context window.
func (c *Client) ContextUsage(ctx context.Context, sessionID string) (client.ContextUsage, error) {
	return result(func(u session.ContextUsage) client.ContextUsage {
		out := client.ContextUsage{Limit: u.Limit, Used: u.Used, Compactable: u.Compactable, Cost: u.Cost, TurnCost: u.TurnCost,
			Parts: each(func(p session.ContextPart) client.ContextPart {
				return client.ContextPart{Kind: p.Kind, Name: p.Name, Tokens: p.Tokens}
			})(u.Parts)}
		if u.Model.ModelID != "" {
			out.Model = &client.ModelRef{ProviderID: u.Model.ProviderID, ModelID: u.Model.ModelID, Variant: u.Model.Variant}
		}
		return out
	})(c.app.Engine.ContextUsage(ctx, sessionID))
}

// SetAuth stores a provider's API key in auth.json and reads the
// providers again.
func (c *Client) SetAuth(_ context.Context, providerID string, in client.Auth) error {
	if in.Type != "" && in.Type != "api" {
		return &client.UnsupportedError{Op: "storing a " + in.Type + " credential", Reason: "only API keys can be stored here; run codeloop auth login"}
	}
	return c.app.Models.SetKey(providerID, in.Key)
}
