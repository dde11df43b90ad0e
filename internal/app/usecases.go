package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
)

// The use cases every front end shares live here, once: sending a prompt,
// running a slash command, running the user's shell command. Front ends
// (through client/local) translate their input into these and the
// engine's events back; none of them picks a model, scopes a command's
// tools or records anything itself.

// PromptInput is a prompt to a session, as the engine takes it.
type PromptInput = session.PromptInput

// SendPrompt stores the user's message and starts the loop, without
// waiting for the answer. It picks the model first (in.Model, else the
// agent's, the session's or the default) and checks it can be used, so a
// prompt no model can answer fails before anything is stored; the model
// is then recorded as recently used. in.Allow, a command's allowed tools,
// is narrowed to what the agent's and the session's rules do not deny and
// kept on the message, so it holds for this turn only, even if codeloop
// is killed during it.
func (a *App) SendPrompt(ctx context.Context, in session.PromptInput) (message.Message, error) {
	sess, err := a.Sessions.Get(ctx, in.SessionID)
	if err != nil {
		return message.Message{}, err
	}
	return a.send(ctx, &sess, in)
}

// send is SendPrompt to the session sess.
func (a *App) send(ctx context.Context, sess *session.Info, in session.PromptInput) (message.Message, error) {
	ref, err := a.PickModel(ctx, in.Model, in.Agent, sess)
	if err != nil {
		return message.Message{}, err
	}
	in.Model = &ref
	if len(in.Allow) > 0 {
		if in.Allow, err = a.TurnRules(in.Agent, sess.Permission, in.Allow); err != nil {
			return message.Message{}, err
		}
	}
	// The message is stored whole even if the caller goes away meanwhile.
	m, err := a.Engine.Send(context.WithoutCancel(ctx), in)
	if err != nil {
		return message.Message{}, err
	}
	_ = a.Models.Use(ref.String())
	return m, nil
}

// Prompt sends what the user wrote to the session sessionID (SendPrompt;
// in.SessionID is set to it): in.Parts are the user's texts, each followed here by the files, agents and
// resources its @ mentions name, and attached files. Blank texts are left
// out; a prompt with nothing left is refused.
func (a *App) Prompt(ctx context.Context, sessionID string, in PromptInput) (message.Message, error) {
	sess, err := a.session(ctx, sessionID)
	if err != nil {
		return message.Message{}, err
	}
	in.SessionID = sessionID
	if in.Parts = a.userParts(in.Parts); len(in.Parts) == 0 {
		return message.Message{}, errors.New("the message is empty: write some text or attach a file")
	}
	return a.send(ctx, &sess, in)
}

// userParts drops the blank texts of parts a user wrote and adds after
// each text the parts its @ mentions name.
func (a *App) userParts(parts []message.Part) []message.Part {
	var out []message.Part
	for _, p := range parts {
		t, ok := p.(*message.TextPart)
		if !ok {
			out = append(out, p)
			continue
		}
		if strings.TrimSpace(t.Text) == "" {
			continue
		}
		out = append(out, p)
		out = append(out, a.Mentions(t.Text, a.Dir, true)...)
	}
	return out
}

// RunCommand runs the slash command name with args in the session
// sessionID (base.SessionID is set to it): compact
// (or summarize) summarises the session's history in the background (run
// starts background work, see Compact) and returns no message; any other
// command is expanded (ExpandPrompt) and sent (SendPrompt), with the
// user's parts in base.Parts (see Prompt) added to its own.
func (a *App) RunCommand(ctx context.Context, sessionID string, base PromptInput, name, args string,
	run func(func(context.Context)) bool) (message.Message, error) {
	sess, err := a.session(ctx, sessionID)
	if err != nil {
		return message.Message{}, err
	}
	if IsCompact(name) {
		return message.Message{}, a.Compact(ctx, sessionID, run)
	}
	base.SessionID = sessionID
	extra := a.userParts(base.Parts)
	if len(base.Parts) > 0 && len(extra) == 0 {
		return message.Message{}, errors.New("the message is empty: write some text or attach a file")
	}
	in, err := a.ExpandPrompt(ctx, base, name, args)
	if err != nil {
		return message.Message{}, err
	}
	in.Parts = append(in.Parts, extra...)
	return a.send(ctx, &sess, in)
}

// ShellRequest is a user's shell command, with the agent and model asked
// for, if any (see ShellIdentity).
type ShellRequest struct {
	Command string
	Agent   string
	Model   *message.ModelRef
}

// Shell runs the user's shell command in the session sessionID through the engine,
// which records it as a user message and an assistant message holding a
// completed bash call; the configured shell runs it. The command stops
// when ctx or stop ends (stop is the front end's lifetime).
func (a *App) Shell(ctx, stop context.Context, sessionID string, in ShellRequest) (message.Message, error) {
	sess, err := a.session(ctx, sessionID)
	if err != nil {
		return message.Message{}, err
	}
	agentName, ref := a.ShellIdentity(ctx, &sess, in.Agent, in.Model)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(stop, cancel)()
	return a.Engine.Shell(ctx, session.ShellInput{SessionID: sessionID, Command: in.Command,
		Agent: agentName, Model: ref, Shell: a.Config.Config.Shell})
}

// ReplyQuestion answers a pending question; the error wraps
// store.ErrNotFound when it is not pending.
func (a *App) ReplyQuestion(ctx context.Context, requestID string, answers [][]string) error {
	if err := a.questionPending(requestID); err != nil {
		return err
	}
	return a.Questions.Reply(ctx, requestID, answers)
}

// RejectQuestion dismisses a pending question; the error wraps
// store.ErrNotFound when it is not pending.
func (a *App) RejectQuestion(ctx context.Context, requestID string) error {
	if err := a.questionPending(requestID); err != nil {
		return err
	}
	return a.Questions.Reject(ctx, requestID)
}

func (a *App) questionPending(requestID string) error {
	for _, q := range a.Questions.Pending("") {
		if q.ID == requestID {
			return nil
		}
	}
	return &NotFoundError{What: "question " + requestID + " waiting for an answer"}
}

// IsCompact reports whether a command name asks to summarise the session
// (/compact, or its older name /summarize) rather than to send a prompt.
func IsCompact(name string) bool {
	switch strings.TrimPrefix(strings.TrimSpace(name), "/") {
	case "compact", "summarize":
		return true
	}
	return false
}

// ExpandPrompt expands the slash command name for the caller's agent into
// the prompt it sends: its text and mentioned files, its agent and model
// (the caller's model wins when set), and its allowed tools, which
// SendPrompt keeps to the command's own turn. base carries what the front
// end adds (the session, its files and terminal).
func (a *App) ExpandPrompt(ctx context.Context, base session.PromptInput, name, args string) (session.PromptInput, error) {
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	exp, err := a.ExpandCommand(ctx, name, args, base.Agent)
	if err != nil {
		return base, err
	}
	in := base
	if exp.Agent != "" {
		in.Agent = exp.Agent
	}
	if ref, ok := ParseModel(exp.Model); ok && in.Model == nil {
		ref.Variant = exp.Variant
		in.Model = &ref
	}
	in.Parts = exp.Parts()
	in.Allow = exp.Allow
	return in, nil
}

// Compact checks that the session can be summarised and summarises it in
// the background (run is where the background work runs; it reports false
// when it cannot start any). The outcome arrives as events.
func (a *App) Compact(ctx context.Context, sessionID string, run func(func(context.Context)) bool) error {
	if a.Engine.Busy(sessionID) {
		return fmt.Errorf("compacting session %s: %w", sessionID, session.ErrBusy)
	}
	msgs, err := a.Sessions.Messages(ctx, sessionID)
	if err != nil {
		return err
	}
	if message.FindLatest(msgs).User == nil {
		return fmt.Errorf("session %s has nothing to compact yet", sessionID)
	}
	run(func(ctx context.Context) {
		// A failure of the loop is published as session.error by the engine.
		_ = a.Engine.Compact(ctx, sessionID)
	})
	return nil
}

// Revert restores the files the session changed from a message on and
// hides the messages from it on, until Unrevert or the next prompt. It
// returns the files restored.
func (a *App) Revert(ctx context.Context, sessionID, messageID string, force bool) ([]string, error) {
	info, err := a.Engine.Revert(ctx, session.RevertInput{SessionID: sessionID, MessageID: messageID, Force: force})
	if err != nil {
		return nil, noSession(err, sessionID)
	}
	var st session.RevertState
	if err := json.Unmarshal(info.Revert, &st); err != nil {
		return nil, fmt.Errorf("reading the revert of session %s: %w", sessionID, err)
	}
	return st.Files, nil
}

// Unrevert brings back what the session's revert took back; it reports
// false when the session was not reverted.
func (a *App) Unrevert(ctx context.Context, sessionID string, force bool) (bool, error) {
	before, err := a.Sessions.Get(ctx, sessionID)
	if err != nil {
		return false, noSession(err, sessionID)
	}
	if len(before.Revert) == 0 {
		return false, nil
	}
	if _, err := a.Engine.Unrevert(ctx, sessionID, force); err != nil {
		return false, noSession(err, sessionID)
	}
	return true, nil
}

// ReplyPermission answers a pending permission request; the error wraps
// permission.ErrUnknownRequest when it is not pending.
func (a *App) ReplyPermission(ctx context.Context, requestID string, r permission.Reply) error {
	switch r.Kind {
	case permission.ReplyOnce, permission.ReplyAlways, permission.ReplyReject:
	default:
		return fmt.Errorf("permission reply %q: want once, always or reject", r.Kind)
	}
	switch r.Scope {
	case "", permission.ScopeSession, permission.ScopeProject, permission.ScopeGlobal:
	default:
		return fmt.Errorf("permission scope %q: want session, project or global", r.Scope)
	}
	return a.Permissions.Reply(ctx, requestID, r)
}
