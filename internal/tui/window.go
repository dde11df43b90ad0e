package tui

import (
	"context"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// The view holds a window of a long session's messages: the pages near
// what it shows. Pages far from it are dropped, their entries and
// messages, and read again from the store when the view comes back near
// them, so the memory the view holds follows the window, not the
// session's length.

// keepMessages is how many messages the view holds before it drops the
// pages far from what it shows: five pages.
const keepMessages = 5 * pageMessages

// farEntries is how far (in entries) a page starts or ends from the first
// entry shown to be dropped: twice the distance at which a page is read
// again, so a page read is not dropped by the next key.
const farEntries = 2 * olderEdge

// span is a run of messages dropped after those the view holds: from
// first up to before (exclusive; "" up to the session's end), n of them
// when dropped.
type span struct {
	first, before string
	n             int
}

// newerMsg carries a span of messages read again: the answer to the read
// numbered seq.
type newerMsg struct {
	sessionID string
	seq       int
	span      span
	msgs      []client.Message
	err       error
}

// msgOf is the message id an entry's key starts with.
func msgOf(key string) string {
	id, _, _ := strings.Cut(key, "/")
	return id
}

// firstOf is the index of the first entry of message id or of a later
// one, len(entries) when none.
func (t *transcript) firstOf(id string) int {
	i, _ := slices.BinarySearchFunc(t.entries, id, func(e entry, id string) int {
		return strings.Compare(messageOf(e), id)
	})
	return i
}

// cut drops the entries [from, to) and forgets their renders. The view
// keeps the line it shows: entries dropped before it move it up.
func (t *transcript) cut(from, to int) {
	if from >= to {
		return
	}
	t.gen++
	gone := map[entry]bool{}
	for _, e := range t.entries[from:to] {
		gone[e] = true
		delete(t.inCache, e)
	}
	t.cached = slices.DeleteFunc(t.cached, func(e entry) bool { return gone[e] })
	t.entries = slices.Delete(t.entries, from, to)
	t.stale = true
	if !t.follow && t.top.entry >= to {
		t.top.entry -= to - from
	} else if !t.follow && t.top.entry >= from {
		t.top = anchor{entry: from}
	}
	t.top.entry = min(t.top.entry, max(len(t.entries)-1, 0))
}

// beyond reports whether message id falls in the messages dropped after
// those the view holds.
func (m *Model) beyond(id string) bool {
	return len(m.newer) > 0 && id >= m.newer[len(m.newer)-1].first
}

// evictFar drops pages of messages far from the view while it holds more
// than keepMessages: the newest page when the view is far above it, the
// oldest when the view is far below it. Nothing is dropped while a
// selection looks at the messages; a search finds the matches of dropped
// pages through its search of the whole session.
func (m *Model) evictFar() {
	if m.sel.on || len(m.msgs) <= keepMessages {
		return
	}
	ids := make([]string, 0, len(m.msgs))
	for id := range m.msgs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for len(ids) > keepMessages && len(m.tr.entries) > 0 {
		shown := m.firstShown()
		if !m.tr.follow {
			cut := ids[len(ids)-pageMessages]
			if i := m.tr.firstOf(cut); i-shown > farEntries {
				before := ""
				if len(m.newer) > 0 {
					before = m.newer[len(m.newer)-1].first
				}
				m.newer = append(m.newer, span{first: cut, before: before, n: pageMessages})
				m.forget(ids[len(ids)-pageMessages:])
				m.tr.cut(i, len(m.tr.entries))
				m.tr.tail = true
				ids = ids[:len(ids)-pageMessages]
				continue
			}
		}
		cut := ids[pageMessages]
		if i := m.tr.firstOf(cut); shown-i > farEntries {
			m.forget(ids[:pageMessages])
			m.tr.cut(0, i)
			m.older = true
			ids = ids[pageMessages:]
			continue
		}
		break
	}
}

// forget drops the view's state of messages ids.
func (m *Model) forget(ids []string) {
	for _, id := range ids {
		delete(m.msgs, id)
		if m.selected != "" && msgOf(m.selected) == id {
			m.selected = ""
		}
	}
}

// maybeLoadNewer reads again, in the background, the messages dropped
// after those the view holds once the view comes near their end. A view
// that went back to following the end reads the session's newest page
// afresh instead of every span on the way.
func (m *Model) maybeLoadNewer() tea.Cmd {
	if len(m.newer) == 0 || m.sess == nil {
		return nil
	}
	if m.tr.follow {
		m.newer = nil
		m.tr.tail = false
		m.loadingNewer = false
		m.newerSeq++
		return m.openSessionCmd(m.sess.ID)
	}
	if m.loadingNewer || len(m.tr.entries)-m.firstShown() > olderEdge {
		return nil
	}
	m.loadingNewer = true
	m.newerSeq++
	s := m.newer[len(m.newer)-1]
	c, ctx, id, seq := m.c, m.ctx, m.sess.ID, m.newerSeq
	return func() tea.Msg {
		msgs, err := readSpan(ctx, c, id, s)
		return newerMsg{sessionID: id, seq: seq, span: s, msgs: msgs, err: err}
	}
}

// newerMsg puts a span read again after the messages the view holds.
func (m *Model) newerMsg(msg newerMsg) tea.Cmd {
	if !m.current(msg.sessionID) || !m.loadingNewer || msg.seq != m.newerSeq || len(m.newer) == 0 {
		return nil
	}
	m.loadingNewer = false
	if msg.err != nil {
		return tea.Batch(m.failed("reading newer messages", msg.err), m.reload())
	}
	m.newer = m.newer[:len(m.newer)-1]
	page := m.pageEntries(msg.msgs, func(id string) bool {
		return id >= msg.span.first && (msg.span.before == "" || id < msg.span.before)
	})
	m.tr.gen++
	m.tr.entries = append(m.tr.entries, page...)
	m.tr.stale = true
	m.tr.tail = len(m.newer) > 0
	m.evictFar()
	return tea.Batch(m.maybeLoadNewer(), m.renderAround())
}

// pageEntries builds the entries of the messages keep accepts, without
// touching the view's transcript or the figures the newest messages set.
func (m *Model) pageEntries(msgs []client.Message, keep func(id string) bool) []entry {
	shown, u := m.tr, m.usage
	m.tr = newTranscript()
	for _, mm := range msgs {
		if !keep(mm.Info.ID) {
			continue
		}
		m.applyInfo(mm.Info)
		for _, p := range mm.Parts {
			m.applyPart(p)
		}
	}
	page := m.tr.entries
	m.tr, m.usage = shown, u
	return page
}

// readSpan reads the messages of s. The span that runs to the session's
// end may have grown since it was dropped: its read grows until it
// reaches the span's first message.
func readSpan(ctx context.Context, c client.Client, sessionID string, s span) ([]client.Message, error) {
	if s.before != "" {
		return c.Messages(ctx, sessionID, client.MessagesOptions{Before: s.before, Limit: s.n})
	}
	limit := s.n + pageMessages
	for {
		msgs, err := c.Messages(ctx, sessionID, client.MessagesOptions{Limit: limit})
		if err != nil || len(msgs) < limit || msgs[0].Info.ID <= s.first {
			return msgs, err
		}
		limit *= 2
	}
}
