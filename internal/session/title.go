package session

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
)

// titleTimeout bounds a title request.
const titleTimeout = time.Minute

// ensureTitle starts title generation for a root session that still has
// its default title and exactly one prompt typed by the user. It never
// blocks the answer; a failure leaves the default title.
func (e *Engine) ensureTitle(sess Info, msgs []message.Message) {
	if sess.ParentID != "" || !IsDefaultTitle(sess.Title) {
		return
	}
	var first *message.Message
	typed := 0
	for i := range msgs {
		m := &msgs[i]
		if m.Info.Role != message.RoleUser {
			continue
		}
		for _, p := range m.Parts {
			if tp, ok := p.(*message.TextPart); ok && !tp.Synthetic && tp.Text != "" {
				typed++
				if first == nil {
					first = m
				}
				break
			}
		}
	}
	if typed != 1 {
		return
	}
	// A later loop of the session may start while the title is still
	// being written (a compaction, a command), or just after, with the
	// session read before the title was saved: it must not ask again.
	e.mu.Lock()
	if e.titled[sess.ID] {
		e.mu.Unlock()
		return
	}
	e.titled[sess.ID] = true
	e.mu.Unlock()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		ctx, cancel := context.WithTimeout(e.bg, titleTimeout)
		defer cancel()
		if err := e.generateTitle(ctx, sess.ID, first); err != nil {
			e.cfg.Log.Warn("generating a title", "session", sess.ID, "err", err)
			e.mu.Lock()
			delete(e.titled, sess.ID) // a later loop may try again
			e.mu.Unlock()
		}
	}()
}

func (e *Engine) generateTitle(ctx context.Context, sessionID string, first *message.Message) error {
	ref := first.Info.Model
	if small, ok := e.cfg.Models.Small(ctx, ref.ProviderID); ok {
		ref = small
	}
	provider, model, err := e.cfg.Models.Model(ctx, ref)
	if err != nil {
		return err
	}
	conv := message.ToModel([]message.Message{*first}, message.ConvertOptions{ProviderID: ref.ProviderID, ModelID: ref.ModelID})
	var parts []llm.Part
	for _, m := range conv {
		for _, p := range m.Parts {
			if p.Type == llm.PartText {
				parts = append(parts, p)
			}
		}
	}
	if len(parts) == 0 {
		return nil
	}
	parts = append([]llm.Part{{Type: llm.PartText, Text: "Write the title for the conversation that starts with this message:"}}, parts...)
	temp := 0.5
	req := &llm.Request{
		Model:    model.ID,
		System:   []string{e.cfg.Texts.Title},
		Messages: []llm.Message{{Role: llm.RoleUser, Parts: parts}},
		Options:  llm.Options{MaxOutputTokens: 200, CacheKey: sessionID},
	}
	if model.Temperature {
		req.Options.Temperature = &temp
	}
	var b strings.Builder
	for ev := range provider.Stream(ctx, req) {
		switch ev.Type {
		case llm.EventTextDelta:
			b.WriteString(ev.Text)
		case llm.EventError:
			return ev.Err
		}
	}
	title := cleanTitle(b.String())
	if title == "" {
		return nil
	}
	_, err = e.sessions.Update(context.WithoutCancel(ctx), sessionID, func(s *Info) {
		if IsDefaultTitle(s.Title) {
			s.Title = title
		}
	})
	return err
}

var thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)

// cleanTitle keeps the first non-empty line of a model's answer, without
// thinking blocks and quotes, cut to 100 characters.
func cleanTitle(s string) string {
	s = thinkBlock.ReplaceAllString(s, "")
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		line = strings.Trim(line, `"'`+"`")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > 100 {
			line = string(r[:97]) + "..."
		}
		return line
	}
	return ""
}
