package local

import (
	"context"
	"errors"
	"fmt"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/session"
)

// Shell runs the user's command through the engine, which records it as a
// user message and an assistant message holding a completed bash call.
// Closing the client stops the command.
func (c *Client) Shell(ctx context.Context, sessionID string, in client.ShellInput) (string, error) {
	if err := c.alive(); err != nil {
		return "", err
	}
	sess, err := c.app.Sessions.Get(ctx, sessionID)
	if err != nil {
		return "", notFound(err, "session "+sessionID)
	}
	agentName, ref := c.app.ShellIdentity(ctx, &sess, in.Agent, fromModelRef(in.Model))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.ctx, cancel)
	defer stop()
	m, err := c.app.Engine.Shell(ctx, session.ShellInput{SessionID: sessionID, Command: in.Command,
		Agent: agentName, Model: ref, Shell: c.app.Config.Config.Shell})
	if errors.Is(err, session.ErrBusy) {
		return "", fmt.Errorf("%w: %s", client.ErrBusy, err.Error())
	}
	if err != nil {
		return "", err
	}
	return m.Info.ID, nil
}
