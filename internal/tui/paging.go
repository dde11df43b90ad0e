package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// pageMessages is how many messages the view reads from the store at a
// time: the newest when a session opens, older ones as the view scrolls
// towards them, so opening a long session costs one page.
const pageMessages = 200

// olderEdge is how close (in entries) the top of the view comes to the
// oldest entry shown before an older page is read.
const olderEdge = 100

// olderMsg carries a page of older messages.
type olderMsg struct {
	sessionID string
	msgs      []client.Message
	err       error
}

// maybeLoadOlder reads the page before the oldest message shown when the
// view has scrolled near it.
func (m *Model) maybeLoadOlder() tea.Cmd {
	if !m.older || m.loadingOlder || m.sess == nil {
		return nil
	}
	top := m.tr.top.entry
	if m.tr.follow {
		top = len(m.tr.entries)
	}
	if top > olderEdge {
		return nil
	}
	oldest := ""
	for id := range m.msgs {
		if oldest == "" || id < oldest {
			oldest = id
		}
	}
	if oldest == "" {
		return nil
	}
	m.loadingOlder = true
	c, ctx, id := m.c, m.ctx, m.sess.ID
	return func() tea.Msg {
		msgs, err := c.Messages(ctx, id, client.MessagesOptions{Limit: pageMessages, Before: oldest})
		return olderMsg{sessionID: id, msgs: msgs, err: err}
	}
}

// olderMsg puts a page of older messages before those shown, keeping the
// view on the line it shows.
func (m *Model) olderMsg(msg olderMsg) tea.Cmd {
	if !m.current(msg.sessionID) {
		return nil
	}
	m.loadingOlder = false
	if msg.err != nil {
		m.older = false
		return m.failed("reading older messages", msg.err)
	}
	m.older = len(msg.msgs) >= pageMessages
	shown := m.tr
	m.tr = newTranscript()
	for _, mm := range msg.msgs {
		m.applyInfo(mm.Info)
		for _, p := range mm.Parts {
			m.applyPart(p)
		}
	}
	page := m.tr.entries
	m.tr = shown
	m.tr.prepend(page)
	// Still near the top (a short page, a tall screen): read on.
	return m.maybeLoadOlder()
}
