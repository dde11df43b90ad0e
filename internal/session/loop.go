package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// outputTokenMax bounds the output tokens asked for in one step.
const outputTokenMax = 32_000

// loopState is what a session's loop carries from one iteration to the next.
type loopState struct {
	step       int
	retries    int
	recovered  bool
	stopBlocks int // stop hooks that kept the turn going, in a row

	// What the last step said, for the turn's end: its message, and
	// whether the loop stopped on a rejection, the step limit or a hook.
	last     *message.Info
	user     *message.Message
	rejected bool
	maxSteps bool
	halted   bool
	answered bool // the last step produced text or a tool call
	// compacted says the loop compacted the history because it crossed
	// the context limit, and no step has fit since: another compaction
	// would summarise the same history, so it is not made again.
	compacted bool
	// overflowed says the provider refused a request of this turn as too
	// large and the history was compacted for it: a second refusal in the
	// turn (the model read the same oversized output again) ends it.
	overflowed bool
}

// finished reports the exit rule: the newest assistant message answers the
// newest user message and ended for a reason other than calling tools.
func finished(l message.Latest) bool {
	a := l.Assistant
	if a == nil || l.User == nil || a.Info.ID < l.User.Info.ID {
		return false
	}
	switch a.Info.Finish {
	case "", string(llm.FinishToolCalls), string(llm.FinishUnknown):
		return false
	}
	for _, p := range a.Parts {
		if _, ok := p.(*message.ToolPart); ok {
			return false // some providers say "stop" after calling tools
		}
	}
	return true
}

// loop runs steps until the session's newest prompt is answered, the
// context ends, or a step says stop.
func (e *Engine) loop(ctx context.Context, sessionID string, st *loopState) error {
	st.compacted, st.overflowed = false, false
	for ctx.Err() == nil {
		e.setStatus(sessionID, Status{Type: StatusBusy})
		if !st.recovered {
			st.recovered = true
			if err := e.recover(ctx, sessionID); err != nil {
				return err
			}
		}
		v, err := e.sessions.View(ctx, sessionID)
		if err != nil {
			return err
		}
		msgs := v.Model
		l := message.FindLatest(msgs)
		if l.User == nil {
			return errors.New("the session has no message to answer")
		}
		st.user = l.User
		if finished(l) {
			st.compacted, st.overflowed = false, false
			if again, err := e.stopHooks(ctx, sessionID, st, l); err != nil || !again {
				return err
			}
			continue
		}
		st.step++
		sess, err := e.sessions.Get(ctx, sessionID)
		if err != nil {
			return err
		}
		if st.step == 1 {
			all := v.Stored
			if v.From != "" && sess.ParentID == "" && IsDefaultTitle(sess.Title) && typedPrompts(v.Stored) < 2 {
				// Whether to ask for a title depends on the messages a
				// compaction hid too, unless those since are enough to
				// say no.
				if all, err = e.sessions.Messages(ctx, sessionID); err != nil {
					return err
				}
			}
			e.ensureTitle(sess, all)
		}

		if len(l.Tasks) > 0 {
			switch task := l.Tasks[0].(type) {
			case *message.SubtaskPart:
				if err := e.runSubtask(ctx, sess, l.User, task); err != nil {
					return err
				}
			case *message.CompactionPart:
				stop, err := e.compact(ctx, sess, msgs, l.User, task)
				if err != nil || stop {
					return err
				}
			}
			continue
		}

		provider, model, err := e.cfg.Models.Model(ctx, l.User.Info.Model)
		if err != nil {
			return fmt.Errorf("model %s: %w", l.User.Info.Model, err)
		}
		if f := l.Finished; f != nil && !f.Info.Summary && !st.compacted && e.overflow(f.Info.Tokens, model) {
			if err := e.createCompaction(ctx, sessionID, l.User, true, false); err != nil {
				return err
			}
			st.compacted = true
			continue
		}

		out, err := e.step(ctx, st, sess, msgs, l, provider, model)
		if err != nil {
			return err
		}
		switch out {
		case outStop:
			return nil
		case outCompact:
			if st.compacted {
				// The step's input was too large right after a
				// compaction: another would not make it smaller. The
				// step was answered; the next one fails if it does not
				// fit (see processor.steps).
				continue
			}
			fallthrough
		case outOverflow:
			if err := e.createCompaction(ctx, sessionID, l.User, true, out == outOverflow); err != nil {
				return err
			}
			st.compacted = true
			st.overflowed = st.overflowed || out == outOverflow
		default:
			st.compacted = false
		}
	}
	return nil
}

// step runs one model step in a new assistant message.
func (e *Engine) step(ctx context.Context, st *loopState, sess Info, msgs []message.Message, l message.Latest,
	provider llm.Provider, model llm.Model) (outcome, error) {
	user := l.User
	agent, err := e.cfg.Agents.Agent(ctx, user.Info.Agent)
	if err != nil {
		return outStop, err
	}
	lastStep := agent.Steps > 0 && st.step >= agent.Steps
	if e.cfg.Reminders != nil {
		msgs = e.cfg.Reminders.Remind(agent, msgs)
	}
	if st.step > 1 && l.Finished != nil {
		msgs = wrapQueued(msgs, l.Finished.Info.ID)
	}
	rules := permission.Merge(agent.Permission, sess.Permission, rulesOfTurn(user.Info))

	info := &message.Info{
		ID: id.Ascending(id.Message), SessionID: sess.ID, Role: message.RoleAssistant,
		Time: message.Time{Created: e.cfg.Now().UnixMilli()}, ParentID: user.Info.ID,
		ModelID: user.Info.Model.ModelID, ProviderID: user.Info.Model.ProviderID,
		Mode: agent.Name, Agent: agent.Name, Variant: user.Info.Model.Variant,
		Path: message.Path{Cwd: e.cfg.Directory, Root: e.cfg.Worktree},
	}
	tools, err := e.resolveTools(ctx, sess.ID, agent, model, rules, user.Info.Tools())
	if err != nil {
		return outStop, err
	}
	ids := make([]string, 0, len(tools))
	specs := make([]llm.ToolSpec, 0, len(tools))
	for _, t := range tools {
		if t.ID() == InvalidTool {
			continue
		}
		ids = append(ids, t.ID())
		specs = append(specs, llm.ToolSpec{Name: t.ID(), Description: t.Description(), Schema: t.Schema()})
	}
	system, err := e.system(ctx, SystemInput{SessionID: sess.ID, Agent: agent, Model: model,
		Directory: e.cfg.Directory, Worktree: e.cfg.Worktree, Tools: ids}, user)
	if err != nil {
		return outStop, err
	}
	conv := message.ToModel(msgs, message.ConvertOptions{
		ProviderID: user.Info.Model.ProviderID, ModelID: user.Info.Model.ModelID,
		ToolResultMedia: e.cfg.ToolResultMedia != nil && e.cfg.ToolResultMedia(user.Info.Model.ProviderID),
	})
	opts, err := e.options(ctx, sess, agent, model, user)
	if err != nil {
		return outStop, err
	}
	req := &llm.Request{Model: model.ID, System: system, Messages: conv, Tools: specs, Options: opts}
	if lastStep {
		req.Messages = append(req.Messages, llm.Message{Role: llm.RoleAssistant,
			Parts: []llm.Part{{Type: llm.PartText, Text: e.cfg.Texts.MaxSteps}}})
		if len(specs) > 0 {
			req.Options.ToolChoice = "none"
		}
	}

	p := e.newProcessor(ctx, info)
	p.provider, p.model, p.agent, p.rules, p.lastStep = provider, model, agent, rules, lastStep
	p.sandbox = sess.Sandbox
	p.compacted = st.compacted || st.overflowed
	p.retries = &st.retries
	p.tools = make(map[string]tool.Tool, len(tools))
	for _, t := range tools {
		p.tools[t.ID()] = t
	}
	p.turn = turnCalls(msgs, user.Info.ID)
	p.msgs = msgs
	out, err := p.process(ctx, req)
	st.record(p, lastStep && out == outContinue, out == outContinue && p.halted())
	if err != nil {
		return outStop, err
	}
	if lastStep && out == outContinue {
		out = outStop // the agent has used all its steps
	}
	if out == outContinue && p.halted() {
		out = outStop // a hook said stop
	}
	return out, nil
}

// typedPrompts counts the user messages with text the user typed, as
// ensureTitle does: a title is asked for when there is exactly one.
func typedPrompts(msgs []message.Message) int {
	n := 0
	for i := range msgs {
		if msgs[i].Info.Role != message.RoleUser {
			continue
		}
		for _, p := range msgs[i].Parts {
			if tp, ok := p.(*message.TextPart); ok && !tp.Synthetic && tp.Text != "" {
				n++
				break
			}
		}
	}
	return n
}

// resolveTools lists the tools of a step, sorted by id, without those the
// rules deny outright or the user switched off.
func (e *Engine) resolveTools(ctx context.Context, sessionID string, agent *Agent, model llm.Model,
	rules permission.Ruleset, off map[string]bool) ([]tool.Tool, error) {
	if e.cfg.Tools == nil {
		return nil, nil
	}
	all, err := e.cfg.Tools.Tools(ctx, ToolQuery{SessionID: sessionID, Agent: agent, Model: model, Rules: rules})
	if err != nil {
		return nil, fmt.Errorf("listing tools: %w", err)
	}
	names := make([]string, 0, len(all))
	for _, t := range all {
		names = append(names, t.ID())
	}
	disabled := permission.Disabled(names, rules)
	out := make([]tool.Tool, 0, len(all))
	for _, t := range all {
		if disabled[t.ID()] || off[t.ID()] {
			continue
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b tool.Tool) int {
		switch {
		case a.ID() < b.ID():
			return -1
		case a.ID() > b.ID():
			return 1
		}
		return 0
	})
	return out, nil
}

// system builds the system prompt: the builder's (or the agent's prompt
// alone), then the message's own system text.
func (e *Engine) system(ctx context.Context, in SystemInput, user *message.Message) ([]string, error) {
	var out []string
	if e.cfg.System != nil {
		s, err := e.cfg.System.System(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("building the system prompt: %w", err)
		}
		out = s
	} else if in.Agent.Prompt != "" {
		out = []string{in.Agent.Prompt}
	}
	if sys := user.Info.System(); sys != "" {
		out = append(slices.Clip(out), sys)
	}
	return out, nil
}

// options are the request settings of a step: the model's defaults (when
// Models implements ModelParams), the agent's sampling values and
// provider options over them, and the session id as the cache key.
func (e *Engine) options(ctx context.Context, sess Info, agent *Agent, model llm.Model, user *message.Message) (llm.Options, error) {
	var o llm.Options
	if mp, ok := e.cfg.Models.(ModelParams); ok {
		p, err := mp.Params(ctx, user.Info.Model)
		if err != nil {
			return o, fmt.Errorf("model %s: %w", user.Info.Model, err)
		}
		o = p
	}
	if o.MaxOutputTokens == 0 {
		o.MaxOutputTokens = maxOutputTokens(model)
	}
	o.Variant = user.Info.Model.Variant
	o.CacheKey = sess.ID
	if model.Temperature && agent.Temperature != nil {
		o.Temperature = agent.Temperature
	}
	if agent.TopP != nil {
		o.TopP = agent.TopP
	}
	if len(agent.Options) > 0 {
		merged := make(map[string]any, len(o.ProviderOptions)+len(agent.Options))
		for k, v := range o.ProviderOptions {
			merged[k] = v
		}
		for k, v := range agent.Options {
			merged[k] = v
		}
		o.ProviderOptions = merged
	}
	return o, nil
}

func maxOutputTokens(m llm.Model) int {
	if m.Limit.Output > 0 && m.Limit.Output < outputTokenMax {
		return int(m.Limit.Output)
	}
	return outputTokenMax
}

// recover marks what a crashed or killed process left unfinished: calls
// that never ended become interrupted errors and their messages aborted;
// the snapshots of their steps are closed (see recoverPatch), and the
// sub-agents cut short are repaired the same way.
// It runs once when a session's loop starts, and before a revert, when no
// other loop of the session can be writing, and reads only the unfinished messages, which
// the store indexes.
func (e *Engine) recover(ctx context.Context, sessionID string) error {
	ids, err := e.sessions.store.UnfinishedAssistants(ctx, sessionID)
	if err != nil {
		return err
	}
	now := e.cfg.Now().UnixMilli()
	var children []string
	for _, messageID := range ids {
		msg, err := e.sessions.Message(ctx, messageID)
		if err != nil {
			return err
		}
		m := &msg
		if m.Info.Role != message.RoleAssistant || m.Info.Time.Completed != 0 || m.Info.Error != nil {
			continue
		}
		for _, p := range m.Parts {
			tp, ok := p.(*message.ToolPart)
			if !ok || (tp.State.Status != message.ToolPending && tp.State.Status != message.ToolRunning) {
				continue
			}
			st := &tp.State
			if child, _ := st.Metadata["sessionId"].(string); tp.Tool == TaskTool && child != "" {
				children = append(children, child) // the sub-agent was cut short too
			}
			st.Status = message.ToolError
			st.Error = "Tool execution aborted"
			if st.Metadata == nil {
				st.Metadata = map[string]any{}
			}
			st.Metadata[message.MetadataInterrupted] = true
			if st.Time.Start == 0 {
				st.Time.Start = now
			}
			st.Time.End = now
			if err := e.sessions.PutPart(ctx, tp); err != nil {
				return err
			}
		}
		if err := e.recoverPatch(ctx, m); err != nil {
			return err
		}
		if m.Info.Finish == "" {
			m.Info.Error = message.Aborted()
		}
		m.Info.Time.Completed = now
		if err := e.sessions.PutMessage(ctx, m.Info); err != nil {
			return err
		}
	}
	for _, child := range children {
		if err := e.recover(ctx, child); err != nil {
			return err
		}
	}
	return nil
}

// record keeps what a step's end says for the turn's.
func (st *loopState) record(p *processor, maxSteps, halted bool) {
	p.w.mu.Lock()
	info := *p.w.info
	st.rejected = p.blocked
	st.answered = false
	for _, part := range p.w.parts {
		switch part := part.(type) {
		case *message.TextPart:
			if b := p.w.texts[part]; strings.TrimSpace(part.Text) != "" || b != nil && strings.TrimSpace(b.String()) != "" {
				st.answered = true
			}
		case *message.ToolPart:
			st.answered = true
		}
	}
	p.w.mu.Unlock()
	st.last, st.maxSteps, st.halted = &info, maxSteps, halted
}

// turnEnd says why the turn ended: err is what the loop returned and
// aborted whether it was stopped.
func (st *loopState) turnEnd(sessionID string, err error, aborted bool) TurnEndedEvent {
	ev := TurnEndedEvent{SessionID: sessionID, Reason: TurnCompleted}
	last := st.last
	switch {
	case aborted:
		ev.Reason = TurnAborted
	case err != nil:
		ev.Reason, ev.Error = TurnError, message.FromError(err)
	case last != nil && last.Error != nil:
		ev.Error = last.Error
		switch last.Error.Name {
		case message.ErrAborted:
			ev.Reason = TurnAborted
		case message.ErrContentFilter:
			ev.Reason = TurnContentFilter
		default:
			ev.Reason = TurnError
		}
	case st.rejected:
		ev.Reason = TurnRejected
	case st.maxSteps:
		ev.Reason = TurnMaxSteps
	case st.halted:
		ev.Reason = TurnStopped
	case last != nil && last.Finish == string(llm.FinishLength):
		ev.Reason = TurnLength
	case last != nil && !last.Summary && !st.answered:
		ev.Reason = TurnEmpty
	}
	if ev.Reason == TurnCompleted && st.user != nil {
		for _, p := range st.user.Parts {
			if t, ok := p.(*message.TextPart); ok && t.Synthetic {
				if why, ok := t.Metadata[AttachErrorKey].(string); ok {
					ev.Reason, ev.Detail = TurnAttachmentFailed, why
					break
				}
			}
		}
	}
	return ev
}

// recoverPatch closes the checkpoint of a step a killed process left
// open, and adds the patch part the step would have ended with, so that
// a revert of the message restores what its tools changed.
func (e *Engine) recoverPatch(ctx context.Context, m *message.Message) error {
	if e.cfg.Snapshots == nil {
		return nil
	}
	cp := ""
	for _, p := range m.Parts {
		switch p := p.(type) {
		case *message.StepStartPart:
			cp = p.Snapshot
		case *message.PatchPart:
			if p.Hash == cp {
				return nil // the step was closed
			}
		}
	}
	if cp == "" {
		return nil
	}
	patch, err := e.cfg.Snapshots.Recover(ctx, cp)
	if err != nil {
		e.cfg.Log.Warn("closing the snapshot of an interrupted step", "checkpoint", cp, "err", err)
		return nil
	}
	if len(patch.Files) == 0 && len(patch.Skipped) == 0 {
		return nil
	}
	part := &message.PatchPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: m.Info.SessionID, MessageID: m.Info.ID},
		Hash: cp, Files: patch.Files}
	for _, sk := range patch.Skipped {
		part.Skipped = append(part.Skipped, sk.Path+": "+sk.Reason)
	}
	return e.sessions.PutPart(ctx, part)
}
