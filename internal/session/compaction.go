package session

import (
	"context"
	"fmt"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
)

// autoCompaction reports whether overflowing sessions are compacted
// (compaction.auto, default true).
func (e *Engine) autoCompaction() bool {
	return e.cfg.Compaction.Auto == nil || *e.cfg.Compaction.Auto
}

// overflow reports whether a step's tokens leave too little room for the
// next one. The usable room is the input limit less the reserve when the
// model has one, else the context less the output allowance; the reserve is
// compaction.reserved or min(20,000, output allowance).
func (e *Engine) overflow(t message.Tokens, m llm.Model) bool {
	return IsOverflow(t, m.Limit, e.autoCompaction(), e.cfg.Compaction.Reserved)
}

// IsOverflow is the overflow rule; see Engine.overflow. It is false when
// auto is off or the context limit is unknown.
func IsOverflow(t message.Tokens, limit llm.Limit, auto bool, reserved *int) bool {
	if !auto || limit.Context == 0 {
		return false
	}
	count := t.Count()
	maxOut := int64(maxOutputTokens(llm.Model{Limit: limit}))
	res := min(20_000, maxOut)
	if reserved != nil {
		res = int64(*reserved)
	}
	var usable int64
	if limit.Input > 0 {
		usable = max(0, limit.Input-res)
	} else {
		usable = max(0, limit.Context-maxOut)
	}
	return count >= usable
}

// createCompaction adds a user message asking for a compaction, addressed
// like user.
func (e *Engine) createCompaction(ctx context.Context, sessionID string, user *message.Message, auto, overflow bool) error {
	info := message.Info{
		ID: id.Ascending(id.Message), SessionID: sessionID, Role: message.RoleUser,
		Time: message.Time{Created: e.cfg.Now().UnixMilli()}, Agent: user.Info.Agent, Model: user.Info.Model,
	}
	if err := e.sessions.PutMessage(ctx, info); err != nil {
		return err
	}
	return e.sessions.PutPart(ctx, &message.CompactionPart{
		PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sessionID, MessageID: info.ID},
		Auto:     auto, Overflow: overflow,
	})
}

// compact runs a pending compaction. It reports whether the loop must stop.
func (e *Engine) compact(ctx context.Context, sess Info, msgs []message.Message, user *message.Message, part *message.CompactionPart) (bool, error) {
	e.preCompactHooks(ctx, sess, part)
	c := compaction{e: e, sess: sess, msgs: msgs, user: user, part: part}
	stop, err := c.run(ctx)
	if err == nil && !stop && e.cfg.Bus != nil {
		e.cfg.Bus.Publish(ctx, bus.Event{Type: bus.SessionCompacted, SessionID: sess.ID, Properties: CompactedEvent{SessionID: sess.ID}})
	}
	return stop, err
}

// Compact summarises a session's history now, as the /compact command
// asks, and waits until it is done.
func (e *Engine) Compact(ctx context.Context, sessionID string) error {
	if e.Busy(sessionID) {
		return fmt.Errorf("session %s is busy", sessionID)
	}
	msgs, err := e.sessions.Messages(ctx, sessionID)
	if err != nil {
		return err
	}
	l := message.FindLatest(msgs)
	if l.User == nil {
		return fmt.Errorf("session %s has nothing to compact", sessionID)
	}
	if err := e.createCompaction(ctx, sessionID, l.User, false, false); err != nil {
		return err
	}
	e.start(sessionID, nil, nil)
	_, err = e.Wait(ctx, sessionID)
	return err
}

// stillTooLarge says why a request failed as too large right after the
// history was compacted for it, naming the largest part of the history
// (a tool's output, a message's text), which the compaction could not
// make smaller.
func stillTooLarge(reason string, msgs []message.Message) string {
	what, size := "", 0
	for i := range msgs {
		m := &msgs[i]
		if m.Info.Summary {
			continue
		}
		for _, p := range m.Parts {
			var n int
			var d string
			switch p := p.(type) {
			case *message.ToolPart:
				n, d = len(p.State.Input)+len(p.State.Output)+len(p.State.Error), "the "+p.Tool+" call "+p.CallID+" and its output"
			case *message.TextPart:
				n, d = len(p.Text), "the text of a user message"
				if p.Synthetic {
					n, d = len(p.Text), "text added to a user message (an attached file or command output)"
				}
				if m.Info.Role == message.RoleAssistant {
					d = "a text of the assistant"
				}
			case *message.ReasoningPart:
				n, d = len(p.Text), "the reasoning of the assistant"
			}
			if n > size {
				what, size = d, n
			}
		}
	}
	msg := "the request still does not fit the model's context window after the conversation was compacted (" + reason + ")"
	if what != "" {
		msg += fmt.Sprintf("; the largest part is %s, about %d tokens", what, estimate(size))
	}
	return msg + ": shorten it, or use a model with a larger context window"
}
