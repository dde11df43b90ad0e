package session

import (
	"context"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
)

// Pruning clears the output of old tool calls from the context (the model
// then sees message.ClearedOutput). The numbers are OpenCode's:
const (
	// pruneProtect tokens of the newest tool output are always kept.
	pruneProtect = 40_000
	// pruneMinimum is the least a prune must free to be worth doing.
	pruneMinimum = 20_000
	// pruneAutoShare is the share of the usable context the last step must
	// fill before pruning runs when compaction.prune is unset: pruning
	// rewrites the middle of the history, so the provider's prompt cache
	// is lost once; it pays off only when the context is large.
	pruneAutoShare = 0.5
)

// pruneProtected are tools whose output is never pruned.
func pruneProtected(toolID string) bool { return toolID == "skill" }

// selectPrune walks a history from the newest message back and returns the
// completed tool calls to clear: those beyond the newest pruneProtect
// tokens of tool output, outside the last two user turns, newer than the
// last summary and than the last part already cleared. It returns nothing
// unless they add up to more than pruneMinimum tokens.
func selectPrune(msgs []message.Message) []*message.ToolPart {
	var total, pruned int64
	var out []*message.ToolPart
	turns := 0
scan:
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Info.Role == message.RoleUser {
			turns++
		}
		if turns < 2 {
			continue
		}
		if m.Info.Role == message.RoleAssistant && m.Info.Summary {
			break
		}
		for j := len(m.Parts) - 1; j >= 0; j-- {
			tp, ok := m.Parts[j].(*message.ToolPart)
			if !ok || tp.State.Status != message.ToolCompleted || pruneProtected(tp.Tool) {
				continue
			}
			if tp.State.Time.Compacted != 0 {
				break scan
			}
			n := estimate(len(tp.State.Output))
			total += n
			if total > pruneProtect {
				pruned += n
				out = append(out, tp)
			}
		}
	}
	if pruned <= pruneMinimum {
		return nil
	}
	return out
}

// shouldPrune applies compaction.prune: true always prunes, false never;
// unset prunes when the last step filled at least pruneAutoShare of the
// usable context.
func (e *Engine) shouldPrune(t message.Tokens, m llm.Model) bool {
	if p := e.cfg.Compaction.Prune; p != nil {
		return *p
	}
	if m.Limit.Context == 0 {
		return false
	}
	usable := m.Limit.Context - int64(maxOutputTokens(m))
	if m.Limit.Input > 0 {
		usable = m.Limit.Input
	}
	return float64(t.Count()) >= pruneAutoShare*float64(usable)
}

// prune clears old tool output of a session after its loop ended.
func (e *Engine) prune(ctx context.Context, sessionID string) error {
	v, err := e.sessions.View(ctx, sessionID)
	if err != nil {
		return err
	}
	// The stored view holds the newest user and finished messages.
	l := message.FindLatest(v.Stored)
	if l.Finished == nil || l.User == nil {
		return nil
	}
	_, model, err := e.cfg.Models.Model(ctx, l.User.Info.Model)
	if err != nil || !e.shouldPrune(l.Finished.Info.Tokens, model) {
		return nil
	}
	msgs := v.Stored
	if v.From != "" {
		// selectPrune may walk past the last summary into older turns.
		if msgs, err = e.sessions.Messages(ctx, sessionID); err != nil {
			return err
		}
	}
	now := e.cfg.Now().UnixMilli()
	for _, tp := range selectPrune(msgs) {
		tp.State.Time.Compacted = now
		if err := e.sessions.PutPart(ctx, tp); err != nil {
			return err
		}
	}
	return nil
}
