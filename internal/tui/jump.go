package tui

import (
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// A jump to a message far from what the view holds (a match of the search
// beyond the held pages, a message picked in the timeline) reads the page
// that ends with it and holds that page alone: the messages after it
// become spans read again when the view comes near them, as pages dropped
// after the view are. It costs one page read however far it goes, given
// the ids of the session's messages, which the search and the timeline
// read anyway.

// jumpMsg carries the page a jump reads: the messages up to target, and
// the spans of those after it. seq numbers the jump; an answer to an
// older one is dropped.
type jumpMsg struct {
	sessionID string
	seq       int
	target    string
	msgs      []client.Message
	newer     []span
	err       error
}

// jumpTo reads the page that ends with message id, given the ids of the
// session's messages, newest first; nil when ids does not hold id.
func (m *Model) jumpTo(id string, ids []string) tea.Cmd {
	k := slices.Index(ids, id)
	if k < 0 || m.sess == nil {
		return nil
	}
	before := ""
	if k > 0 {
		before = ids[k-1]
	}
	// The messages after the page, a page to a span, the nearest last.
	var newer []span
	for end := k; end > 0; end -= pageMessages {
		start := max(0, end-pageMessages)
		sp := span{first: ids[end-1], n: end - start}
		if start > 0 {
			sp.before = ids[start-1]
		}
		newer = append(newer, sp)
	}
	slices.Reverse(newer)
	m.jumps++
	c, ctx, sid, seq := m.c, m.ctx, m.sess.ID, m.jumps
	return func() tea.Msg {
		msgs, err := c.Messages(ctx, sid, client.MessagesOptions{Limit: pageMessages, Before: before})
		return jumpMsg{sessionID: sid, seq: seq, target: id, msgs: msgs, newer: newer, err: err}
	}
}

// jumped makes the page a jump read what the view holds, and shows its
// target: the search's match when the search jumped (see landed), else
// the message's start.
func (m *Model) jumped(msg jumpMsg) tea.Cmd {
	if !m.current(msg.sessionID) || msg.seq != m.jumps {
		return nil
	}
	s := &m.find.scan
	search := s.jumping && s.target == msg.target
	if search {
		s.jumping = false
		if !m.find.active() {
			s.target = ""
			return nil
		}
	}
	if msg.err != nil {
		if search {
			s.target = ""
		}
		return m.failed("reading the page of the message", msg.err)
	}
	if !slices.ContainsFunc(msg.msgs, func(mm client.Message) bool { return mm.Info.ID == msg.target }) {
		if search {
			s.target, s.lost = "", true // the bar says so: it hides the toasts
			return nil
		}
		return m.notify("that message is no longer in the session", true)
	}
	m.holdPage(msg.msgs, msg.newer)
	var found tea.Cmd
	if search || m.find.active() {
		found = m.research(false)
	}
	if e := m.tr.find(msg.target + "/"); !search && e != nil {
		m.tr.reveal(m.entryIndex(e), 0, m.trWidth(), m.transcriptHeight(), &m.theme, m.themeTag)
	}
	return tea.Batch(found, m.renderAround(), m.maybeLoadOlder(), m.maybeLoadNewer())
}

// holdPage makes msgs (a page, oldest first) all the view holds, the
// messages after it being the spans newer (the nearest last) read again
// when the view comes near them. What the session's newest messages set
// (the sidebar's figures, the status) stays.
func (m *Model) holdPage(msgs []client.Message, newer []span) {
	m.msgs = map[string]*msgState{}
	m.tr.reset()
	m.selected = ""
	m.jump = ""
	m.pages++ // an older page on its way belongs to the view that was
	m.older, m.loadingOlder = len(msgs) >= pageMessages, false
	m.newerSeq++
	m.newer, m.loadingNewer = newer, false
	page := m.pageEntries(msgs, func(string) bool { return true })
	m.tr.follow = false
	m.tr.prepend(page)
	m.tr.top = anchor{}
	m.tr.tail = len(newer) > 0
}
