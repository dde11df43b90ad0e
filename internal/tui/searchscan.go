package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// A search looks through the entries the view holds and, when the view
// holds only part of a long session, through the rest of it too: the
// session is read in the background from its newest page to its oldest,
// scanPage messages at a time, and each message's text is counted the way
// the held entries' is (messageEntries builds the same entries, touching
// nothing of the view). Only the count of matches of each message is kept.
// Stepping past the held matches jumps to the nearest message beyond them
// that holds one: the view reads the page that ends with it and holds it
// alone, the messages after it becoming spans to read again (as pages
// dropped after the view are), so a jump costs one page however far it
// goes.

// scanPage is how many messages a search reads at a time from the store.
const scanPage = 500

// scanMsg carries a page of messages read for a search: the answer to the
// read numbered seq.
type scanMsg struct {
	sessionID string
	seq       int
	msgs      []client.Message
	err       error
}

// scan is the search of the whole session.
type scan struct {
	seq     int    // numbers the reads; an answer to an older one is dropped
	session string // the session read
	query   string // in lower case; "" when no scan runs
	done    bool
	err     error
	read    int            // messages read
	hits    map[string]int // matches per message, of every message read
	order   []string       // the messages of hits, newest first
	ids     []string       // every message read, newest first
	// target is the message a step past the held matches jumps to, until
	// the view holds it (jumping while its page is read); newest says the
	// step went older, so the target's newest match is shown, else its
	// oldest.
	target  string
	jumping bool
	newest  bool
	lost    bool // the last jump's message was gone when its page was read
}

// startScan starts reading the session for the query when the view does
// not hold all of it and this query was not read yet.
func (m *Model) startScan() tea.Cmd {
	f := &m.find
	q := strings.ToLower(f.query)
	if q == "" || m.sess == nil || (!m.older && len(m.newer) == 0) {
		if f.scan.target == "" {
			f.scan = scan{}
		}
		return nil
	}
	if f.scan.query == q && f.scan.session == m.sess.ID && f.scan.err == nil {
		return nil
	}
	m.scans++
	f.scan = scan{seq: m.scans, session: m.sess.ID, query: q, hits: map[string]int{}}
	return m.scanCmd("")
}

// scanCmd reads the page of messages before the message before, the
// newest page when before is "".
func (m *Model) scanCmd(before string) tea.Cmd {
	c, ctx, id, seq := m.c, m.ctx, m.sess.ID, m.find.scan.seq
	return func() tea.Msg {
		msgs, err := c.Messages(ctx, id, client.MessagesOptions{Limit: scanPage, Before: before})
		return scanMsg{sessionID: id, seq: seq, msgs: msgs, err: err}
	}
}

// scanned counts the query in a page of messages and reads the page
// before it, until the session's first message.
func (m *Model) scanned(msg scanMsg) tea.Cmd {
	f := &m.find
	if !m.current(msg.sessionID) || !f.active() || msg.seq != f.scan.seq || f.scan.done {
		return nil
	}
	if msg.err != nil {
		f.scan.done, f.scan.err = true, msg.err
		return nil
	}
	s := &f.scan
	for i := len(msg.msgs) - 1; i >= 0; i-- {
		mm := msg.msgs[i]
		s.ids = append(s.ids, mm.Info.ID)
		if m.hidden(mm.Info.ID) {
			continue
		}
		n := 0
		for _, e := range messageEntries(mm) {
			n += strings.Count(strings.ToLower(entryText(e)), s.query)
		}
		if n > 0 {
			s.hits[mm.Info.ID] = n
			s.order = append(s.order, mm.Info.ID)
		}
	}
	s.read += len(msg.msgs)
	m.placeBeyond()
	if len(msg.msgs) < scanPage {
		s.done = true
		return nil
	}
	return m.scanCmd(msg.msgs[0].Info.ID)
}

// placeBeyond sorts the messages the scan found that the view does not
// hold: those older than it, nearest first, and those newer, nearest
// first, with how many matches each side holds.
func (m *Model) placeBeyond() {
	f := &m.find
	f.older, f.newer, f.nOlder, f.nNewer = f.older[:0], f.newer[:0], 0, 0
	if len(f.scan.order) == 0 {
		return
	}
	lo, hi := "", ""
	for id := range m.msgs {
		if lo == "" || id < lo {
			lo = id
		}
		hi = max(hi, id)
	}
	for _, id := range f.scan.order { // newest first
		switch {
		case m.msgs[id] != nil:
		case lo == "" || id < lo:
			f.older = append(f.older, id)
			f.nOlder += f.scan.hits[id]
		case id > hi:
			f.newer = append(f.newer, id)
			f.nNewer += f.scan.hits[id]
		}
	}
	slices.Reverse(f.newer) // they came newest first; the nearest goes first
}

// jumpToHit shows a message beyond those held that holds a match: the view
// reads the page that ends with it and holds that page alone (see
// jumpTo); the search then shows the message's newest match (newest) or
// its oldest (see landed).
func (m *Model) jumpToHit(id string, newest bool) tea.Cmd {
	s := &m.find.scan
	cmd := m.jumpTo(id, s.ids)
	if cmd != nil {
		s.target, s.newest, s.jumping, s.lost = id, newest, true, false
	}
	return cmd
}

// landed moves the current match to the target of a jump once the view
// holds it, and reports whether it did.
func (m *Model) landed() bool {
	f := &m.find
	t := f.scan.target
	if t == "" || f.scan.jumping || m.msgs[t] == nil {
		return false
	}
	at := -1
	for i, mt := range f.matches {
		if messageOf(mt.e) == t {
			at = i
			if f.scan.newest {
				break
			}
		}
	}
	f.scan.target = ""
	if at < 0 {
		return false // its text changed since it was counted
	}
	f.cur = at
	return true
}

// scanInfo is what the search bar says of the scan.
func (m *Model) scanInfo() string {
	s := &m.find.scan
	switch {
	case s.query == "":
		return ""
	case s.err != nil:
		return " · the rest of the session could not be searched: " + s.err.Error()
	case s.jumping:
		return " · reading the page of the match"
	case s.lost:
		return " · that match is no longer in the session"
	case !s.done:
		return fmt.Sprintf(" · searching the rest of the session (%d messages read)", s.read)
	}
	return ""
}

// messageEntries builds the entries of a message as the view shows them,
// from its info and parts, without touching the view: what a search of
// the messages the view does not hold looks through.
func messageEntries(msg client.Message) []entry {
	if msg.Info.Role == client.RoleUser {
		return []entry{userEntryOf(msg.Info.ID, msg.Parts)}
	}
	var out []entry
	if e := errorNote(msg.Info); e != nil {
		out = append(out, e)
	}
	for _, p := range msg.Parts {
		if e := partEntry(msg.Info.ID+"/"+p.ID, p, false, false); e != nil {
			out = append(out, e)
		}
	}
	return out
}
