package local

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
)

// Prompt stores the user's message and starts the loop (app.SendPrompt).
func (c *Client) Prompt(ctx context.Context, sessionID string, in client.PromptInput) (string, error) {
	if err := c.alive(); err != nil {
		return "", err
	}
	if _, err := c.app.Sessions.Get(ctx, sessionID); err != nil {
		return "", notFound(err, "session "+sessionID)
	}
	parts, err := c.parts(in.Parts)
	if err != nil {
		return "", err
	}
	m, err := c.app.SendPrompt(ctx, session.PromptInput{
		SessionID: sessionID, Agent: in.Agent, Model: fromModelRef(in.Model), System: in.System, Parts: parts, NoReply: in.NoReply,
		Files: in.Files, Terminal: in.Terminal,
	})
	if err != nil {
		return "", err
	}
	return m.Info.ID, nil
}

// parts turns a prompt's parts into the engine's: each text with the
// files, agents and resources its @ mentions name, then the files.
func (c *Client) parts(in []client.PartInput) ([]message.Part, error) {
	var out []message.Part
	for i, p := range in {
		switch p.Type {
		case client.PartText:
			if strings.TrimSpace(p.Text) == "" {
				continue
			}
			out = append(out, session.TextPart(p.Text))
			out = append(out, c.app.Mentions(p.Text, c.app.Dir, true)...)
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
	if len(out) == 0 {
		return nil, errors.New("the message is empty: write some text or attach a file")
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
	if _, err := c.GetSession(ctx, sessionID); err != nil {
		return err
	}
	c.app.Engine.Cancel(sessionID)
	return nil
}

// Command expands a slash command and sends it (app.ExpandPrompt, then
// app.SendPrompt, which keeps the command's allowed tools to its turn).
// compact (or summarize) summarises the session's history in the
// background instead.
func (c *Client) Command(ctx context.Context, sessionID string, in client.CommandInput) (string, error) {
	if err := c.alive(); err != nil {
		return "", err
	}
	if _, err := c.app.Sessions.Get(ctx, sessionID); err != nil {
		return "", notFound(err, "session "+sessionID)
	}
	if app.IsCompact(in.Command) {
		err := c.app.Compact(ctx, sessionID, c.background)
		if errors.Is(err, session.ErrBusy) {
			return "", fmt.Errorf("%w: %s", client.ErrBusy, err.Error())
		}
		return "", err
	}
	p, err := c.app.ExpandPrompt(ctx, session.PromptInput{SessionID: sessionID, Agent: in.Agent, Model: fromModelRef(in.Model),
		Files: in.Files, Terminal: in.Terminal}, in.Command, in.Arguments)
	if err != nil {
		return "", err
	}
	if len(in.Parts) > 0 {
		files, err := c.parts(in.Parts)
		if err != nil {
			return "", err
		}
		p.Parts = append(p.Parts, files...)
	}
	m, err := c.app.SendPrompt(ctx, p)
	if err != nil {
		return "", err
	}
	return m.Info.ID, nil
}

// Status returns the sessions of the project that are not idle.
func (c *Client) Status(ctx context.Context) (map[string]client.SessionStatus, error) {
	list, err := c.app.Sessions.List(ctx, store.SessionFilter{ProjectID: c.app.ProjectID})
	if err != nil {
		return nil, err
	}
	out := map[string]client.SessionStatus{}
	for _, s := range list {
		st := c.app.Engine.Status(s.ID)
		if st.Type != session.StatusIdle {
			out[s.ID] = toStatus(st)
		}
	}
	return out, nil
}

// Revert restores the files changed from a message on and hides the
// messages from it on, until Unrevert or the next prompt.
func (c *Client) Revert(ctx context.Context, sessionID string, in client.RevertInput) (client.Session, error) {
	s, err := c.app.Engine.Revert(ctx, session.RevertInput{SessionID: sessionID, MessageID: in.MessageID,
		PartID: in.PartID, Force: in.Force})
	if err != nil {
		return client.Session{}, revertError("revert", err)
	}
	return toSession(s), nil
}

// Unrevert brings back what the session's revert took back.
func (c *Client) Unrevert(ctx context.Context, sessionID string) (client.Session, error) {
	s, err := c.app.Engine.Unrevert(ctx, sessionID, false)
	if err != nil {
		return client.Session{}, revertError("unrevert", err)
	}
	return toSession(s), nil
}

// revertError maps the engine's revert errors to the client's.
func revertError(op string, err error) error {
	var busy *session.BusyError
	switch {
	case errors.Is(err, session.ErrSnapshotsOff):
		return &client.UnsupportedError{Op: op, Reason: err.Error()}
	case errors.As(err, &busy):
		return fmt.Errorf("%w: %s", client.ErrBusy, err.Error())
	}
	return notFound(err, "session")
}

// Permissions lists the pending permission requests, oldest first.
func (c *Client) Permissions(context.Context) ([]client.PermissionRequest, error) {
	pending := c.app.Permissions.Pending()
	out := make([]client.PermissionRequest, len(pending))
	for i, r := range pending {
		out[i] = toPermission(r)
	}
	return out, nil
}

// ReplyPermission answers a pending permission request.
func (c *Client) ReplyPermission(ctx context.Context, requestID string, in client.PermissionReply) error {
	switch in.Reply {
	case client.ReplyOnce, client.ReplyAlways, client.ReplyReject:
	default:
		return fmt.Errorf("permission reply %q: want once, always or reject", in.Reply)
	}
	switch in.Scope {
	case "", client.ScopeSession, client.ScopeProject, client.ScopeGlobal:
	default:
		return fmt.Errorf("permission scope %q: want session, project or global", in.Scope)
	}
	err := c.app.Permissions.Reply(ctx, requestID, permission.Reply{
		Kind: permission.ReplyKind(in.Reply), Message: in.Message, Scope: permission.Scope(in.Scope),
	})
	if errors.Is(err, permission.ErrUnknownRequest) {
		return fmt.Errorf("%w: permission request %s is not pending", client.ErrNotFound, requestID)
	}
	return err
}

// Questions lists the pending questions, oldest first.
func (c *Client) Questions(context.Context) ([]client.QuestionRequest, error) {
	pending := c.app.Questions.Pending("")
	out := make([]client.QuestionRequest, len(pending))
	for i, q := range pending {
		out[i] = toQuestion(q)
	}
	return out, nil
}

func (c *Client) questionPending(requestID string) error {
	for _, q := range c.app.Questions.Pending("") {
		if q.ID == requestID {
			return nil
		}
	}
	return fmt.Errorf("%w: question %s is not waiting for an answer", client.ErrNotFound, requestID)
}

// ReplyQuestion answers pending questions.
func (c *Client) ReplyQuestion(ctx context.Context, requestID string, answers [][]string) error {
	if err := c.questionPending(requestID); err != nil {
		return err
	}
	return c.app.Questions.Reply(ctx, requestID, answers)
}

// RejectQuestion dismisses pending questions.
func (c *Client) RejectQuestion(ctx context.Context, requestID string) error {
	if err := c.questionPending(requestID); err != nil {
		return err
	}
	return c.app.Questions.Reject(ctx, requestID)
}
