package local

import (
	"context"
	"fmt"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
)

// Prompt stores the user's message and starts the loop (app.Prompt).
func (c *Client) Prompt(ctx context.Context, sessionID string, in client.PromptInput) (string, error) {
	if err := c.alive(); err != nil {
		return "", err
	}
	parts, err := fromParts(in.Parts)
	if err != nil {
		return "", err
	}
	return result(messageID)(c.app.Prompt(ctx, sessionID, app.PromptInput{Agent: in.Agent,
		Model: fromModelRef(in.Model), System: in.System, Parts: parts, NoReply: in.NoReply, Files: in.Files, Terminal: in.Terminal}))
}

func messageID(m message.Message) string { return m.Info.ID }

// fromParts converts a prompt's parts: texts, whose @ mentions the app
// resolves, and files.
func fromParts(in []client.PartInput) ([]message.Part, error) {
	out := make([]message.Part, 0, len(in))
	for i, p := range in {
		switch p.Type {
		case client.PartText:
			out = append(out, session.TextPart(p.Text))
		case client.PartFile:
			if p.URL == "" {
				return nil, fmt.Errorf("part %d: a file part needs a url (file: or data:)", i)
			}
			mime := p.Mime
			if mime == "" {
				mime = "text/plain"
			}
			out = append(out, &message.FilePart{Mime: mime, Filename: p.Filename, URL: p.URL})
		default:
			return nil, fmt.Errorf("part %d: type %q: want text or file", i, p.Type)
		}
	}
	return out, nil
}

func fromModelRef(m *client.ModelRef) *message.ModelRef {
	if m == nil {
		return nil
	}
	return &message.ModelRef{ProviderID: m.ProviderID, ModelID: m.ModelID, Variant: m.Variant}
}

// Abort interrupts the session's loop and its shell command.
func (c *Client) Abort(ctx context.Context, sessionID string) error {
	return clientError(c.app.Abort(ctx, sessionID))
}

// Command runs a slash command (app.RunCommand); compact (or summarize)
// runs in the client's background work, which Close stops.
func (c *Client) Command(ctx context.Context, sessionID string, in client.CommandInput) (string, error) {
	if err := c.alive(); err != nil {
		return "", err
	}
	parts, err := fromParts(in.Parts)
	if err != nil {
		return "", err
	}
	return result(messageID)(c.app.RunCommand(ctx, sessionID, app.PromptInput{Agent: in.Agent,
		Model: fromModelRef(in.Model), Parts: parts, Files: in.Files, Terminal: in.Terminal}, in.Command, in.Arguments, c.background))
}

// Status returns the sessions of the project that are not idle.
func (c *Client) Status(ctx context.Context) (map[string]client.SessionStatus, error) {
	return result(func(active map[string]session.Status) map[string]client.SessionStatus {
		out := make(map[string]client.SessionStatus, len(active))
		for id, st := range active {
			out[id] = toStatus(st)
		}
		return out
	})(c.app.ActiveSessions(ctx))
}

// Revert restores the files changed from a message on and hides the
// messages from it on, until Unrevert or the next prompt.
func (c *Client) Revert(ctx context.Context, sessionID string, in client.RevertInput) (client.Session, error) {
	return result(toSession)(c.app.Engine.Revert(ctx, session.RevertInput{SessionID: sessionID, MessageID: in.MessageID,
		PartID: in.PartID, Force: in.Force}))
}

// Unrevert brings back what the session's revert took back.
func (c *Client) Unrevert(ctx context.Context, sessionID string) (client.Session, error) {
	return result(toSession)(c.app.Engine.Unrevert(ctx, sessionID, false))
}

// Permissions lists the pending permission requests, oldest first.
func (c *Client) Permissions(context.Context) ([]client.PermissionRequest, error) {
	return each(toPermission)(c.app.Permissions.Pending()), nil
}

// ReplyPermission answers a pending permission request.
func (c *Client) ReplyPermission(ctx context.Context, requestID string, in client.PermissionReply) error {
	return clientError(c.app.ReplyPermission(ctx, requestID, permission.Reply{
		Kind: permission.ReplyKind(in.Reply), Message: in.Message, Scope: permission.Scope(in.Scope)}))
}

// Questions lists the pending questions, oldest first.
func (c *Client) Questions(context.Context) ([]client.QuestionRequest, error) {
	return each(toQuestion)(c.app.Questions.Pending("")), nil
}

// ReplyQuestion answers pending questions.
func (c *Client) ReplyQuestion(ctx context.Context, requestID string, answers [][]string) error {
	return clientError(c.app.ReplyQuestion(ctx, requestID, answers))
}

// RejectQuestion dismisses pending questions.
func (c *Client) RejectQuestion(ctx context.Context, requestID string) error {
	return clientError(c.app.RejectQuestion(ctx, requestID))
}

// Shell runs the user's command through the engine (app.Shell), which
// records it as a user message and an assistant message holding a
// completed bash call. Closing the client stops the command.
func (c *Client) Shell(ctx context.Context, sessionID string, in client.ShellInput) (string, error) {
	if err := c.alive(); err != nil {
		return "", err
	}
	return result(messageID)(c.app.Shell(ctx, c.ctx, sessionID, app.ShellRequest{Command: in.Command, Agent: in.Agent,
		Model: fromModelRef(in.Model)}))
}

// fromRules converts the rules a client sends with a session; the app
// checks them and makes them floor rules (app.FloorRules).
func fromRules(in []client.PermissionRule) permission.Ruleset {
	return each(func(r client.PermissionRule) permission.Rule {
		return permission.Rule{Permission: r.Permission, Pattern: r.Pattern, Action: permission.Action(r.Action)}
	})(in)
}
