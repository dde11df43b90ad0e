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
// oldest entry shown before the page before it is read. It is well over
// the entries rendered ahead (aheadAbove) and a few screens of keys, so
// the page is read, and its entries rendered, before a key needs them.
const olderEdge = 250

// olderMsg carries a page of older messages: the answer to the read
// numbered seq, of the messages before the message before.
type olderMsg struct {
	sessionID string
	seq       int
	before    string
	msgs      []client.Message
	err       error
}

// maybeLoadOlder starts reading, in the background, the page before the
// oldest message shown when the view has scrolled near it. One read is
// out at a time; its page comes back as an olderMsg.
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
	m.pages++
	c, ctx, id, seq := m.c, m.ctx, m.sess.ID, m.pages
	return func() tea.Msg {
		msgs, err := c.Messages(ctx, id, client.MessagesOptions{Limit: pageMessages, Before: oldest})
		return olderMsg{sessionID: id, seq: seq, before: oldest, msgs: msgs, err: err}
	}
}

// olderMsg puts a page of older messages before those shown, keeping the
// view on the line it shows. A page read before the session was opened
// again (events lost, a revert) belongs to a view that is gone: it is
// dropped, since putting it in would leave a gap before it.
func (m *Model) olderMsg(msg olderMsg) tea.Cmd {
	if !m.current(msg.sessionID) || !m.loadingOlder || msg.seq != m.pages {
		return nil
	}
	m.loadingOlder = false
	if msg.err != nil {
		m.older = false
		return m.failed("reading older messages", msg.err)
	}
	m.older = len(msg.msgs) >= pageMessages
	page := m.pageEntries(msg.msgs, func(id string) bool { return msg.before == "" || id < msg.before })
	m.tr.prepend(page)
	m.evictFar()
	// Still near the top (a short page, a tall screen): read on; render
	// the new entries near the view.
	return tea.Batch(m.maybeLoadOlder(), m.renderAround())
}
