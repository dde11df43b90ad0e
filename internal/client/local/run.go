package local

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
)

// Prompt stores the user's message and starts the loop. The model is
// checked first, so a prompt no model can answer fails before anything is
// stored, with an error that says how to make one available.
func (c *Client) Prompt(ctx context.Context, sessionID string, in client.PromptInput) (string, error) {
	if err := c.alive(); err != nil {
		return "", err
	}
	sess, err := c.app.Sessions.Get(ctx, sessionID)
	if err != nil {
		return "", notFound(err, "session "+sessionID)
	}
	parts, err := c.parts(in.Parts)
	if err != nil {
		return "", err
	}
	ref, err := c.app.PickModel(ctx, fromModelRef(in.Model), in.Agent, &sess)
	if err != nil {
		return "", err
	}
	// The message is stored whole even if the caller goes away meanwhile.
	m, err := c.app.Engine.Send(context.WithoutCancel(ctx), session.PromptInput{
		SessionID: sessionID, Agent: in.Agent, Model: &ref, System: in.System, Parts: parts, NoReply: in.NoReply,
		Files: in.Files, Terminal: in.Terminal,
	})
	if err != nil {
		return "", err
	}
	_ = c.app.Models.Use(ref.String())
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

// Command expands a slash command and sends it. compact (or summarize)
// summarises the session's history in the background instead.
func (c *Client) Command(ctx context.Context, sessionID string, in client.CommandInput) (string, error) {
	if err := c.alive(); err != nil {
		return "", err
	}
	sess, err := c.app.Sessions.Get(ctx, sessionID)
	if err != nil {
		return "", notFound(err, "session "+sessionID)
	}
	name := strings.TrimPrefix(strings.TrimSpace(in.Command), "/")
	if name == "compact" || name == "summarize" {
		return "", c.compact(ctx, sessionID)
	}
	exp, err := c.app.ExpandCommand(ctx, name, in.Arguments, in.Agent)
	if err != nil {
		return "", err
	}
	agentName := exp.Agent
	if agentName == "" {
		agentName = in.Agent
	}
	model := fromModelRef(in.Model)
	if ref, ok := app.ParseModel(exp.Model); ok && model == nil {
		ref.Variant = exp.Variant
		model = &ref
	}
	ref, err := c.app.PickModel(ctx, model, agentName, &sess)
	if err != nil {
		return "", err
	}
	added, err := c.allowTurn(ctx, sess, agentName, exp.Allow)
	if err != nil {
		return "", err
	}
	m, err := c.app.Engine.Send(context.WithoutCancel(ctx), session.PromptInput{
		SessionID: sessionID, Agent: agentName, Model: &ref, Parts: exp.Parts(), Files: in.Files, Terminal: in.Terminal,
	})
	if err != nil {
		c.endTurn(sessionID, added)
		return "", err
	}
	_ = c.app.Models.Use(ref.String())
	if len(added) > 0 && !c.background(func(ctx context.Context) {
		_, _ = c.app.Engine.Wait(ctx, sessionID)
		c.endTurn(sessionID, added)
	}) {
		c.endTurn(sessionID, added)
	}
	return m.Info.ID, nil
}

// compact checks that the session can be summarised and summarises it in
// the background; the outcome arrives as events.
func (c *Client) compact(ctx context.Context, sessionID string) error {
	if c.app.Engine.Busy(sessionID) {
		return fmt.Errorf("compacting session %s: %w", sessionID, client.ErrBusy)
	}
	msgs, err := c.app.Sessions.Messages(ctx, sessionID)
	if err != nil {
		return err
	}
	if message.FindLatest(msgs).User == nil {
		return fmt.Errorf("session %s has nothing to compact yet", sessionID)
	}
	c.background(func(ctx context.Context) {
		// A failure of the loop is published as session.error by the engine.
		_ = c.app.Engine.Compact(ctx, sessionID)
	})
	return nil
}

// allowTurn adds to the session the command's allowed-tool rules that its
// agent's and its own rules do not deny, and returns those it added.
func (c *Client) allowTurn(ctx context.Context, sess session.Info, agentName string, allow permission.Ruleset) (permission.Ruleset, error) {
	if len(allow) == 0 {
		return nil, nil
	}
	rules, err := c.app.TurnRules(agentName, sess.Permission, allow)
	if err != nil {
		return nil, err
	}
	var added permission.Ruleset
	for _, r := range rules {
		if !slices.Contains(sess.Permission, r) && !slices.Contains(added, r) {
			added = append(added, r)
		}
	}
	if len(added) == 0 {
		return nil, nil
	}
	_, err = c.app.Sessions.Update(ctx, sess.ID, func(s *session.Info) { s.Permission = append(s.Permission, added...) })
	return added, err
}

// endTurn takes the rules allowTurn added off the session again.
func (c *Client) endTurn(sessionID string, added permission.Ruleset) {
	if len(added) == 0 {
		return
	}
	_, _ = c.app.Sessions.Update(context.Background(), sessionID, func(s *session.Info) {
		s.Permission = slices.DeleteFunc(s.Permission, func(r permission.Rule) bool { return slices.Contains(added, r) })
	})
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
