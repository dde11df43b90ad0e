package app

import (
	"context"
	"errors"
	"time"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/mcp"
	"github.com/codeloop/codeloop/internal/tool"
)

// errNoMCP is the failure of a resource read when MCP servers are off.
var errNoMCP = errors.New("no MCP server is running")

// mcpResources reads the MCP resources user messages attach
// (@<server>:<uri>) for the session engine.
type mcpResources struct {
	mcp *mcp.Manager
	// wait bounds how long a read waits for a server still connecting.
	wait time.Duration
}

// ReadResource reads uri from server. A server still making its first
// connection is waited for (at most the MCP start-up wait), since a prompt
// is often stored before the servers are up.
func (r mcpResources) ReadResource(ctx context.Context, server, uri string) (string, []tool.Attachment, error) {
	if r.mcp == nil {
		return "", nil, errNoMCP
	}
	rc, err := r.mcp.ReadResource(ctx, server, uri)
	var nc *mcp.NotConnectedError
	if errors.As(err, &nc) && nc.Status.State == mcp.StateConnecting {
		r.mcp.WaitReady(ctx, r.wait)
		rc, err = r.mcp.ReadResource(ctx, server, uri)
	}
	if err != nil {
		return "", nil, err
	}
	return rc.Text, rc.Attachments, nil
}

// resolver resolves the @ mentions of a prompt: paths relative to dir, and
// the resources of the enabled MCP servers.
func (a *App) resolver(dir string) agent.Resolver {
	r := agent.Resolver{Worktree: dir, Home: a.Dirs.Home}
	if a.MCP != nil {
		for _, s := range a.MCP.Servers() {
			if s.Status.State != mcp.StateDisabled {
				r.Servers = append(r.Servers, s.Name)
			}
		}
	}
	return r
}
