package session

import (
	"context"
	"fmt"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
)

// ChildInput asks for a sub-agent run in a child session.
type ChildInput struct {
	ParentID string
	// SessionID is a child of ParentID to continue; empty (or not such a
	// child) for a new one.
	SessionID  string
	Title      string
	Agent      string
	Permission permission.Ruleset
	Model      *message.ModelRef
	Prompt     string
	// Parts follow the prompt's text in the child's message (the files it
	// mentions).
	Parts []message.Part
	// Started is called with the child's id before it runs.
	Started func(sessionID string)
}

// RunChild sends a prompt to a child session and waits for its answer. It
// returns the child's id and the text of its last answer. Cancelling ctx
// aborts the child; RunChild returns once it has stopped.
func (e *Engine) RunChild(ctx context.Context, in ChildInput) (string, string, error) {
	parent, err := e.sessions.Get(ctx, in.ParentID)
	if err != nil {
		return "", "", err
	}
	sid := ""
	if in.SessionID != "" {
		if s, err := e.sessions.Get(ctx, in.SessionID); err == nil && s.ParentID == in.ParentID {
			sid = s.ID
		}
	}
	if sid == "" {
		child, err := e.sessions.Create(ctx, CreateInput{
			ProjectID: parent.ProjectID, Directory: parent.Directory, ParentID: parent.ID,
			Title: in.Title, Permission: in.Permission, Sandbox: parent.Sandbox,
		})
		if err != nil {
			return "", "", err
		}
		sid = child.ID
	}
	if in.Started != nil {
		in.Started(sid)
	}
	if _, err := e.Send(ctx, PromptInput{SessionID: sid, Agent: in.Agent, Model: in.Model,
		Parts: append([]message.Part{TextPart(in.Prompt)}, in.Parts...), Files: e.fileSystem(in.ParentID),
		Terminal: e.terminal(in.ParentID)}); err != nil {
		return sid, "", err
	}
	last, err := e.Wait(ctx, sid)
	if ctx.Err() != nil {
		e.Cancel(sid)
		_, _ = e.Wait(context.WithoutCancel(ctx), sid)
		return sid, "", ctx.Err()
	}
	if err != nil {
		return sid, "", err
	}
	if last.Info.Error != nil && !message.IsAborted(last.Info.Error) {
		return sid, "", fmt.Errorf("the sub-agent failed: %w", last.Info.Error)
	}
	text := ""
	for _, p := range last.Parts {
		if tp, ok := p.(*message.TextPart); ok && tp.Text != "" && !tp.Synthetic {
			text = tp.Text
		}
	}
	return sid, text, nil
}

// CallerInfo describes a session calling a sub-agent.
type CallerInfo struct {
	Depth      int // the session's number of ancestors
	Permission permission.Ruleset
	Model      message.ModelRef
}

// Caller describes the session sessionID and the model of its message
// messageID, for the task tool.
func (e *Engine) Caller(ctx context.Context, sessionID, messageID string) (CallerInfo, error) {
	sess, err := e.sessions.Get(ctx, sessionID)
	if err != nil {
		return CallerInfo{}, err
	}
	c := CallerInfo{Permission: sess.Permission}
	for p := sess.ParentID; p != "" && c.Depth < 64; c.Depth++ {
		s, err := e.sessions.Get(ctx, p)
		if err != nil {
			break
		}
		p = s.ParentID
	}
	if m, err := e.sessions.Message(ctx, messageID); err == nil {
		c.Model = message.ModelRef{ProviderID: m.Info.ProviderID, ModelID: m.Info.ModelID, Variant: m.Info.Variant}
		if m.Info.Role == message.RoleUser {
			c.Model = m.Info.Model
		}
	}
	return c, nil
}
