package local

import (
	"context"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
)

// Shell runs the user's command through the engine (app.Shell), which
// records it as a user message and an assistant message holding a
// completed bash call. Closing the client stops the command.
func (c *Client) Shell(ctx context.Context, sessionID string, in client.ShellInput) (string, error) {
	if err := c.alive(); err != nil {
		return "", err
	}
	m, err := c.app.Shell(ctx, c.ctx, app.ShellRequest{SessionID: sessionID, Command: in.Command, Agent: in.Agent,
		Model: fromModelRef(in.Model)})
	if err != nil {
		return "", clientError(err)
	}
	return m.Info.ID, nil
}
