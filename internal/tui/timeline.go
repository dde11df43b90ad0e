package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// openTimeline lists the user's messages of the session, oldest first,
// to jump to one; older messages not read yet are read on the way. The
// session is read a page at a time, newest first, and only the user's
// messages are kept, so a long session is never held whole.
func (m *Model) openTimeline() tea.Cmd {
	if m.sess == nil {
		return m.notify("there are no messages to jump to yet", true)
	}
	c, ctx, id, now := m.c, m.ctx, m.sess.ID, m.now()
	return func() tea.Msg {
		var items []listItem // newest first
		var ids []string     // every message, newest first: where a pick jumps
		for before := ""; ; {
			page, err := c.Messages(ctx, id, client.MessagesOptions{Limit: scanPage, Before: before})
			if err != nil {
				return listMsg{err: err}
			}
			for i := len(page) - 1; i >= 0; i-- {
				ids = append(ids, page[i].Info.ID)
				if it, ok := timelineItem(page[i], now); ok {
					items = append(items, it)
				}
			}
			if len(page) < scanPage {
				break
			}
			before = page[0].Info.ID
		}
		slices.Reverse(items)
		return listMsg{dialog: timelineOf(items, ids)}
	}
}

// timelineDialog lists the messages the user typed, each with its
// position and time, the newest selected.
func timelineDialog(msgs []client.Message, now time.Time) *listDialog {
	var items []listItem
	for _, msg := range msgs {
		if it, ok := timelineItem(msg, now); ok {
			items = append(items, it)
		}
	}
	return timelineOf(items, nil)
}

// timelineItem is the timeline's item of a message the user typed, its
// position left to timelineOf; false for any other message.
func timelineItem(msg client.Message, now time.Time) (listItem, bool) {
	if msg.Info.Role != client.RoleUser {
		return listItem{}, false
	}
	e := userEntryOf(msg.Info.ID, msg.Parts)
	text := strings.Join(e.texts, " ")
	if text == "" && len(e.files) > 0 {
		text = "[" + strings.Join(e.files, ", ") + "]"
	}
	if text == "" {
		return listItem{}, false
	}
	label := strings.Join(strings.Fields(text), " ")
	if r := []rune(label); len(r) > 120 {
		label = string(r[:119]) + "…"
	}
	it := listItem{label: label, value: msg.Info.ID}
	if msg.Info.Time.Created > 0 {
		it.detail = " · " + ago(now, time.UnixMilli(msg.Info.Time.Created))
	}
	if label != text {
		it.preview = text // the whole of a long or many-line message
	}
	return it, true
}

// timelineOf is the timeline of items, oldest first, each numbered by
// its position, the newest selected. A message picked that the view does
// not hold is read with its page alone when ids (the session's, newest
// first) hold it; otherwise the view reads its way there.
func timelineOf(items []listItem, ids []string) *listDialog {
	d := &listDialog{title: "Timeline", items: items, pick: func(m *Model, it listItem) tea.Cmd {
		if m.msgs[it.value] == nil {
			if cmd := m.jumpTo(it.value, ids); cmd != nil {
				return cmd
			}
		}
		m.jump = it.value
		return m.continueJump()
	}}
	for i := range d.items {
		d.items[i].detail = fmt.Sprintf("#%d", i+1) + d.items[i].detail
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
