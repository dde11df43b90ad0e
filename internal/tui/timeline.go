package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// openTimeline lists the user's messages of the session, oldest first,
// to jump to one; older messages not read yet are read on the way.
func (m *Model) openTimeline() tea.Cmd {
	if m.sess == nil {
		return m.notify("there are no messages to jump to yet", true)
	}
	c, ctx, id, now := m.c, m.ctx, m.sess.ID, m.now()
	return func() tea.Msg {
		msgs, err := c.Messages(ctx, id, client.MessagesOptions{})
		if err != nil {
			return listMsg{err: err}
		}
		return listMsg{dialog: timelineDialog(msgs, now)}
	}
}

// timelineDialog lists the messages the user typed, each with its
// position and time, the newest selected.
func timelineDialog(msgs []client.Message, now time.Time) *listDialog {
	d := &listDialog{title: "Timeline", pick: func(m *Model, it listItem) tea.Cmd {
		m.jump = it.value
		return m.continueJump()
	}}
	n := 0
	for _, msg := range msgs {
		if msg.Info.Role != client.RoleUser {
			continue
		}
		e := userEntryOf(msg.Info.ID, msg.Parts)
		text := strings.Join(e.texts, " ")
		if text == "" && len(e.files) > 0 {
			text = "[" + strings.Join(e.files, ", ") + "]"
		}
		if text == "" {
			continue
		}
		n++
		label := strings.Join(strings.Fields(text), " ")
		if r := []rune(label); len(r) > 120 {
			label = string(r[:119]) + "…"
		}
		detail := fmt.Sprintf("#%d", n)
		if msg.Info.Time.Created > 0 {
			detail += " · " + ago(now, time.UnixMilli(msg.Info.Time.Created))
		}
		it := listItem{label: label, detail: detail, value: msg.Info.ID}
		if label != text {
			it.preview = text // the whole of a long or many-line message
		}
		d.items = append(d.items, it)
	}
	if len(d.items) == 0 {
		d.text = []string{"You have sent no message in this session yet."}
	}
	d.sel = max(len(d.items)-1, 0)
	return d
}

// continueJump scrolls to the message the timeline chose once it is
// read: it is revealed when the transcript holds it; otherwise the view
// goes to the top, which reads the page before, and olderMsg calls again.
func (m *Model) continueJump() tea.Cmd {
	if m.jump == "" {
		return nil
	}
	if e := m.tr.find(m.jump + "/"); e != nil {
		m.jump = ""
		m.tr.reveal(m.entryIndex(e), 0, m.trWidth(), m.transcriptHeight(), &m.theme, m.themeTag)
		return m.maybeLoadOlder()
	}
	if m.beyond(m.jump) {
		// Among the messages dropped after the view: read the end again.
		m.tr.follow = true
		return m.maybeLoadNewer()
	}
	if !m.older {
		m.jump = ""
		return m.notify("that message is no longer in the session", true)
	}
	m.tr.follow, m.tr.top = false, anchor{}
	return m.maybeLoadOlder()
}
