package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
)

// Compaction defaults.
const (
	defaultTailTurns   = 2
	summaryToolOutput  = 2_000 // characters of each tool output sent to the summariser
	minPreserveRecent  = 2_000
	maxPreserveRecent  = 8_000
	compactionAgent    = "compaction"
	compactionContinue = "compaction_continue"
)

// compaction summarises a session's history into one assistant message.
type compaction struct {
	e    *Engine
	sess Info
	msgs []message.Message // the history as FilterCompacted gives it
	user *message.Message  // the message holding the compaction part
	part *message.CompactionPart
}

// estimate is OpenCode's token estimate: a token per four characters.
func estimate(n int) int64 { return int64((n + 2) / 4) }

// messageTokens estimates what a message costs in the context.
func messageTokens(m *message.Message) int64 {
	n := 0
	for _, p := range m.Parts {
		switch p := p.(type) {
		case *message.TextPart:
			n += len(p.Text)
		case *message.ReasoningPart:
			n += len(p.Text)
		case *message.ToolPart:
			n += len(p.State.Input) + len(p.State.Output) + len(p.State.Error)
		}
	}
	return estimate(n)
}

func (c *compaction) run(ctx context.Context) (bool, error) {
	e := c.e
	ref := c.user.Info.Model
	agent, err := e.cfg.Agents.Agent(ctx, compactionAgent)
	if err != nil {
		agent = &Agent{Name: compactionAgent, Mode: "primary", Hidden: true}
	}
	if agent.Model != nil {
		ref = *agent.Model
	}
	provider, model, err := e.cfg.Models.Model(ctx, ref)
	if err != nil {
		return true, fmt.Errorf("model %s: %w", ref, err)
	}

	previous, history := c.split()
	var replay *message.Message
	if c.part.Overflow {
		history, replay = holdBack(history)
	} else if tail := c.tail(history, model); tail > 0 && tail < len(history) {
		c.part.TailStartID = history[tail].Info.ID
		history = history[:tail]
		if err := e.sessions.PutPart(ctx, c.part); err != nil {
			return true, err
		}
	}

	info := &message.Info{
		ID: id.Ascending(id.Message), SessionID: c.sess.ID, Role: message.RoleAssistant,
		Time: message.Time{Created: e.cfg.Now().UnixMilli()}, ParentID: c.user.Info.ID,
		ModelID: ref.ModelID, ProviderID: ref.ProviderID, Mode: compactionAgent, Agent: compactionAgent,
		Path: message.Path{Cwd: e.cfg.Directory, Root: e.cfg.Worktree}, Summary: true,
	}
	system := agent.Prompt
	if system == "" {
		system = e.cfg.Texts.Compaction
	}
	conv := message.ToModel(forSummary(history), message.ConvertOptions{ProviderID: ref.ProviderID, ModelID: ref.ModelID})
	conv = append(conv, llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: c.prompt(previous)}}})
	req := &llm.Request{Model: model.ID, System: []string{system}, Messages: conv,
		Options: llm.Options{MaxOutputTokens: maxOutputTokens(model), CacheKey: c.sess.ID}}

	p := e.newProcessor(ctx, info)
	p.provider, p.model, p.agent, p.summary = provider, model, agent, true
	retries := 0
	p.retries = &retries
	out, err := p.process(ctx, req)
	if err != nil {
		return true, err
	}
	if out == outStop || ctx.Err() != nil {
		return true, nil
	}
	if replay != nil {
		return false, c.replay(ctx, replay)
	}
	if c.part.Auto {
		return false, c.resume(ctx)
	}
	return false, nil
}

// split returns the previous summary, if the history starts with one, and
// the messages to summarise: everything older than the compaction message.
func (c *compaction) split() (string, []message.Message) {
	msgs := c.msgs
	previous := ""
	if len(msgs) >= 2 && compactionOf(&msgs[0]) != nil && msgs[1].Info.Summary && msgs[0].Info.ID != c.user.Info.ID {
		previous = textOf(&msgs[1])
		msgs = msgs[2:]
	}
	var history []message.Message
	for _, m := range msgs {
		if m.Info.ID < c.user.Info.ID {
			history = append(history, m)
		}
	}
	return previous, history
}

func compactionOf(m *message.Message) *message.CompactionPart {
	for _, p := range m.Parts {
		if cp, ok := p.(*message.CompactionPart); ok {
			return cp
		}
	}
	return nil
}

func textOf(m *message.Message) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if tp, ok := p.(*message.TextPart); ok && !tp.Ignored {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}

// typed reports whether a user message holds text the user wrote.
func typed(m *message.Message) bool {
	if m.Info.Role != message.RoleUser || compactionOf(m) != nil {
		return false
	}
	for _, p := range m.Parts {
		if tp, ok := p.(*message.TextPart); ok && !tp.Synthetic && !tp.Ignored && tp.Text != "" {
			return true
		}
	}
	return false
}

// holdBack removes the newest typed user message, on which the context
// overflowed, and what followed it, to replay it after the summary.
func holdBack(history []message.Message) ([]message.Message, *message.Message) {
	for i := len(history) - 1; i >= 0; i-- {
		if typed(&history[i]) {
			m := history[i]
			return history[:i], &m
		}
	}
	return history, nil
}

// tail returns the index of the first message kept verbatim: the start of
// the last tail_turns user turns that fit in preserve_recent_tokens, or
// len(history) when none fits.
func (c *compaction) tail(history []message.Message, model llm.Model) int {
	cfg := c.e.cfg.Compaction
	turns := defaultTailTurns
	if cfg.TailTurns != nil {
		turns = *cfg.TailTurns
	}
	if turns <= 0 {
		return len(history)
	}
	budget := int64(0)
	if cfg.PreserveRecentTokens != nil {
		budget = int64(*cfg.PreserveRecentTokens)
	} else {
		usable := model.Limit.Context - int64(maxOutputTokens(model))
		if model.Limit.Input > 0 {
			usable = model.Limit.Input
		}
		budget = min(max(usable/4, minPreserveRecent), maxPreserveRecent)
	}
	start, used, seen := len(history), int64(0), 0
	for i := len(history) - 1; i >= 0 && seen < turns; i-- {
		used += messageTokens(&history[i])
		if used > budget {
			break
		}
		if history[i].Info.Role == message.RoleUser && compactionOf(&history[i]) == nil {
			start = i
			seen++
		}
	}
	return start
}

// forSummary prepares a history for the summariser: media become a note
// and tool outputs are cut.
func forSummary(history []message.Message) []message.Message {
	out := make([]message.Message, len(history))
	for i, m := range history {
		out[i].Info = m.Info
		for _, p := range m.Parts {
			switch p := p.(type) {
			case *message.FilePart:
				if p.Mime == "text/plain" || p.Mime == "application/x-directory" {
					continue
				}
				out[i].Parts = append(out[i].Parts, &message.TextPart{PartBase: p.PartBase, Text: mediaNote(p)})
			case *message.ToolPart:
				c := *p
				c.State.Attachments = nil
				if r := []rune(c.State.Output); len(r) > summaryToolOutput {
					c.State.Output = string(r[:summaryToolOutput]) + "\n[output cut]"
				}
				out[i].Parts = append(out[i].Parts, &c)
			default:
				out[i].Parts = append(out[i].Parts, p)
			}
		}
	}
	return out
}

func mediaNote(p *message.FilePart) string {
	name := p.Filename
	if name == "" {
		name = "file"
	}
	return fmt.Sprintf("[Attached %s: %s]", p.Mime, name)
}

// prompt is the request that ends the summariser's history.
func (c *compaction) prompt(previous string) string {
	return c.e.cfg.Texts.CompactionPrompt(previous)
}

// replay posts the held-back message again after the summary, with media
// replaced by a note.
func (c *compaction) replay(ctx context.Context, m *message.Message) error {
	info := m.Info
	info.ID = id.Ascending(id.Message)
	info.Time.Created = c.e.cfg.Now().UnixMilli()
	if err := c.e.sessions.PutMessage(ctx, info); err != nil {
		return err
	}
	for _, p := range forSummary([]message.Message{*m})[0].Parts {
		cp, err := message.Clone(p)
		if err != nil {
			return err
		}
		b := cp.Base()
		b.ID, b.MessageID = id.Ascending(id.Part), info.ID
		if err := c.e.sessions.PutPart(ctx, cp); err != nil {
			return err
		}
	}
	return nil
}

// resume adds the synthetic message that lets the loop carry on after an
// automatic compaction.
func (c *compaction) resume(ctx context.Context) error {
	info := message.Info{
		ID: id.Ascending(id.Message), SessionID: c.sess.ID, Role: message.RoleUser,
		Time: message.Time{Created: c.e.cfg.Now().UnixMilli()}, Agent: c.user.Info.Agent, Model: c.user.Info.Model,
	}
	if err := c.e.sessions.PutMessage(ctx, info); err != nil {
		return err
	}
	return c.e.sessions.PutPart(ctx, &message.TextPart{
		PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: c.sess.ID, MessageID: info.ID},
		Text:     c.e.cfg.Texts.Continue, Synthetic: true, Metadata: map[string]any{compactionContinue: true},
	})
}
