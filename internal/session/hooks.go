package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/hook"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// HookBlockedError is a call or prompt a hook refused.
type HookBlockedError struct {
	Event  string
	Reason string
}

func (e *HookBlockedError) Error() string {
	switch e.Event {
	case hook.UserPromptSubmit:
		return "a UserPromptSubmit hook refused the prompt: " + e.Reason
	case hook.PreToolUse:
		return "a PreToolUse hook blocked this call: " + e.Reason
	}
	return fmt.Sprintf("a %s hook stopped the agent: %s", e.Event, e.Reason)
}

// maxStopBlocks bounds how many times in a row stop hooks may keep a turn
// going.
const maxStopBlocks = 8

// metaHookHalt marks, in a call's metadata, that a hook stopped the agent.
const metaHookHalt = "hookHalt"

// reminder wraps hook text for the model.
func reminder(texts []string) string {
	return "<system-reminder>\n" + strings.Join(texts, "\n") + "\n</system-reminder>"
}

// preToolHooks runs the PreToolUse hooks of a call. It may change the
// call's arguments (recording them on the part) and its asker; an error
// refuses the call.
func (p *processor) preToolHooks(ctx context.Context, part *message.ToolPart, call *tool.Call) (string, error) {
	if p.e.cfg.Hooks == nil {
		return "", nil
	}
	r := p.e.runHook(ctx, toolHookInput(hook.PreToolUse, call))
	if r.Halt {
		p.haltCall(part, r.HaltReason)
		return "", &HookBlockedError{Event: hook.PreToolUse, Reason: orDefault(r.HaltReason, "a hook stopped the agent")}
	}
	if r.Block {
		return "", &HookBlockedError{Event: hook.PreToolUse, Reason: r.Reason}
	}
	if in := r.UpdatedInput; len(in) > 0 && json.Valid(in) && in[0] == '{' {
		call.Input = in
		p.w.mu.Lock()
		part.State.Input = in
		p.w.touch(part)
		p.w.mu.Unlock()
		p.w.flush(true)
	}
	switch r.Permission {
	case "allow":
		call.Asker = hookAllowed{rules: p.rules}
	case "ask":
		perm := tool.PermissionOf(call.Tool)
		req := permission.Request{SessionID: call.SessionID, Permission: perm, Patterns: []string{call.Tool},
			Tool:     &permission.ToolRef{MessageID: call.MessageID, CallID: call.ID},
			Metadata: map[string]any{"tool": call.Tool, "input": call.Input, "reason": "a PreToolUse hook asks to confirm this call"}}
		// A deny rule still refuses the call; anything else is asked.
		if err := (hookAllowed{rules: p.rules}).Ask(ctx, req); err != nil {
			return "", err
		}
		ask := append(slices.Clone(p.rules), permission.Rule{Permission: perm, Pattern: "*", Action: permission.Ask})
		if err := p.e.cfg.Permissions.Ask(ctx, ask, req); err != nil {
			return "", err
		}
	}
	if len(r.Context) > 0 {
		return reminder(r.Context), nil
	}
	return "", nil
}

// postToolHooks runs the PostToolUse (or, for a failed call,
// PostToolUseFailure) hooks of a call and folds what they say into its
// result.
func (p *processor) postToolHooks(ctx context.Context, part *message.ToolPart, call *tool.Call, started time.Time,
	res *tool.Result, err error, pre string) (*tool.Result, error) {
	if p.e.cfg.Hooks == nil || ctx.Err() != nil {
		return res, err
	}
	if _, blocked := err.(*HookBlockedError); blocked {
		return res, err
	}
	in := postToolHookInput(call, started, res, err)
	r := p.e.runHook(ctx, in)
	var notes []string
	if pre != "" {
		notes = append(notes, pre)
	}
	if r.Block {
		notes = append(notes, reminder([]string{in.Event + " hook feedback: " + r.Reason}))
	}
	if len(r.Context) > 0 {
		notes = append(notes, reminder(r.Context))
	}
	if r.Halt {
		p.haltCall(part, r.HaltReason)
	}
	if err != nil {
		if len(notes) > 0 {
			err = &hookNotedError{err: err, notes: strings.Join(notes, "\n")}
		}
		return res, err
	}
	if r.Halt {
		// The result's metadata replaces the part's: keep the mark there.
		if res.Metadata == nil {
			res.Metadata = map[string]any{}
		}
		res.Metadata[metaHookHalt] = orDefault(r.HaltReason, "a hook stopped the agent")
	}
	if r.UpdatedOutput != nil {
		res.Output = *r.UpdatedOutput
	}
	if len(notes) > 0 {
		res.Output = strings.TrimRight(res.Output, "\n") + "\n\n" + strings.Join(notes, "\n")
	}
	return res, nil
}

// hookNotedError is a tool's failure with what hooks said about it.
type hookNotedError struct {
	err   error
	notes string
}

func (e *hookNotedError) Error() string { return e.err.Error() + "\n\n" + e.notes }
func (e *hookNotedError) Unwrap() error { return e.err }

// haltCall records on the call that a hook stopped the agent, so the loop
// ends after this step.
func (p *processor) haltCall(part *message.ToolPart, reason string) {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	if part.State.Metadata == nil {
		part.State.Metadata = map[string]any{}
	}
	part.State.Metadata[metaHookHalt] = orDefault(reason, "a hook stopped the agent")
	p.w.touch(part)
}

// halted reports whether a hook stopped the agent during the step.
func (p *processor) halted() bool {
	p.w.mu.Lock()
	defer p.w.mu.Unlock()
	for _, part := range p.order {
		if _, ok := part.State.Metadata[metaHookHalt]; ok {
			return true
		}
	}
	return false
}

// hookAllowed checks a call a hook allowed: deny rules still refuse it,
// nothing is asked.
type hookAllowed struct{ rules permission.Ruleset }

func (a hookAllowed) Ask(_ context.Context, req permission.Request) error {
	for _, pat := range req.Patterns {
		if r, ok := permission.Evaluate(req.Permission, pat, a.rules); ok && r.Action == permission.Deny {
			return &permission.DeniedError{Permission: req.Permission, Pattern: pat, Rule: r}
		}
	}
	return nil
}

// promptHooks runs the UserPromptSubmit hooks of a prompt from the user
// (not a sub-agent's): they may refuse it or add context to it.
func (e *Engine) promptHooks(ctx context.Context, in PromptInput) (PromptInput, error) {
	if e.cfg.Hooks == nil || in.NoReply {
		return in, nil
	}
	sess, err := e.sessions.Get(ctx, in.SessionID)
	if err != nil {
		return in, err
	}
	if sess.ParentID != "" {
		return in, nil
	}
	var text []string
	for _, p := range in.Parts {
		if t, ok := p.(*message.TextPart); ok && !t.Synthetic && t.Text != "" {
			text = append(text, t.Text)
		}
	}
	pre := e.sessionStartHooks(ctx, in.SessionID)
	r := e.runHook(ctx, hook.Input{Event: hook.UserPromptSubmit, SessionID: in.SessionID, Cwd: e.cfg.Directory,
		Prompt: strings.Join(text, "\n")})
	r.Context = append(pre, r.Context...)
	if r.Block || r.Halt {
		return in, &HookBlockedError{Event: hook.UserPromptSubmit, Reason: orDefault(r.Reason, orDefault(r.HaltReason, "no reason given"))}
	}
	if len(r.Context) > 0 {
		parts := append([]message.Part(nil), in.Parts...)
		in.Parts = append(parts, &message.TextPart{Text: reminder(r.Context), Synthetic: true})
	}
	return in, nil
}

// stopHooks runs the Stop (SubagentStop in a sub-agent's session) hooks
// when a turn is answered. When one blocks, it stores its reason as the
// next instruction and returns true: the loop takes another step.
func (e *Engine) stopHooks(ctx context.Context, sessionID string, st *loopState, l message.Latest) (bool, error) {
	if e.cfg.Hooks == nil || st.step == 0 || l.Assistant == nil {
		return false, nil
	}
	sess, err := e.sessions.Get(ctx, sessionID)
	if err != nil {
		return false, err
	}
	in := hook.Input{Event: hook.Stop, SessionID: sessionID, Cwd: e.cfg.Directory, StopHookActive: st.stopBlocks > 0}
	if sess.ParentID != "" {
		in.Event, in.AgentType = hook.SubagentStop, l.User.Info.Agent
	}
	var text []string
	for _, p := range l.Assistant.Parts {
		if t, ok := p.(*message.TextPart); ok && !t.Synthetic && t.Text != "" {
			text = append(text, t.Text)
		}
	}
	in.LastAssistantMessage = strings.Join(text, "\n")
	r := e.runHook(ctx, in)
	if !r.Block || r.Halt || ctx.Err() != nil {
		st.stopBlocks = 0
		return false, nil
	}
	if st.stopBlocks >= maxStopBlocks {
		e.cfg.Log.Warn("stop hooks blocked too many times in a row; the turn ends", "session", sessionID, "blocks", st.stopBlocks)
		st.stopBlocks = 0
		return false, nil
	}
	st.stopBlocks++
	model := l.User.Info.Model
	_, err = e.createUserMessage(ctx, PromptInput{SessionID: sessionID, Agent: l.User.Info.Agent, Model: &model,
		Parts: []message.Part{&message.TextPart{Text: in.Event + " hook feedback:\n" + r.Reason, Synthetic: true}}})
	if err != nil {
		return false, err
	}
	return true, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// preCompactHooks runs the PreCompact hooks before a compaction summarises
// the session. They are told whether the user or the loop started it; what
// they print is for the user (the log and the bus), not the model.
func (e *Engine) preCompactHooks(ctx context.Context, sess Info, part *message.CompactionPart) {
	if e.cfg.Hooks == nil {
		return
	}
	trigger := "manual"
	if part.Auto {
		trigger = "auto"
	}
	e.runHook(ctx, hook.Input{Event: hook.PreCompact, SessionID: sess.ID, Cwd: e.cfg.Directory, Trigger: trigger})
}
