package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// finder is the transcript search. It looks through the text of the
// entries (the source of what is drawn, not the drawn frames), so a
// search costs a pass over the text of the messages loaded, whatever
// their renders. Matches are counted from the newest: the first is the
// lowest on screen.
type finder struct {
	open bool
	// typing says the query is being edited; otherwise n and N move.
	typing  bool
	query   string
	matches []match
	cur     int
	// lower caches each entry's text in lower case while the search is
	// open; src is the text it was made from, for entries whose text
	// grows in place.
	lower map[entry]lowered
	// hits are the entries that held the last query run (last), newest
	// first, over the transcript at generation gen: while the query
	// only grows and the transcript does not change, a keystroke looks
	// through them instead of every entry.
	hits []hit
	last string
	gen  uint64
	// scan searches the messages the view does not hold; older and newer
	// are those that hold matches, beyond the held ones on either side,
	// nearest first, and nOlder and nNewer count their matches.
	scan           scan
	older, newer   []string
	nOlder, nNewer int
}

// hit is an entry that matched, with its text in lower case.
type hit struct {
	e   entry
	low string
}

type lowered struct{ src, low string }

// match is one occurrence of the query: the occ-th in entry e's text.
type match struct {
	e   entry
	occ int
}

// active reports whether matches are being shown.
func (f *finder) active() bool { return f.open && f.query != "" }

// lowerText is e's text in lower case, cached.
func (f *finder) lowerText(e entry) string {
	var src string
	switch e := e.(type) {
	case *textEntry:
		src = e.text
	case *reasoningEntry:
		src = e.text
	}
	if c, ok := f.lower[e]; ok && c.src == src {
		return c.low
	}
	low := strings.ToLower(entryText(e))
	f.lower[e] = lowered{src: src, low: low}
	return low
}

// run finds the query in entries, newest first; gen is the transcript's
// generation.
func (f *finder) run(entries []entry, gen uint64) {
	f.matches = f.matches[:0]
	q := strings.ToLower(f.query)
	if q == "" {
		f.hits, f.last = nil, ""
		return
	}
	narrow := f.last != "" && strings.HasPrefix(q, f.last) && gen == f.gen
	if !narrow {
		// Keep the lower-case text of the entries still shown only: those
		// of pages dropped since are let go.
		kept := make(map[entry]lowered, len(entries))
		for _, e := range entries {
			if c, ok := f.lower[e]; ok {
				kept[e] = c
			}
		}
		f.lower = kept
		f.hits = f.hits[:0]
		for i := len(entries) - 1; i >= 0; i-- {
			f.hits = append(f.hits, hit{e: entries[i], low: f.lowerText(entries[i])})
		}
	}
	// Keep the entries that still match, in place.
	kept := f.hits[:0]
	for _, h := range f.hits {
		n := strings.Count(h.low, q)
		if n == 0 {
			continue
		}
		kept = append(kept, h)
		for occ := n - 1; occ >= 0; occ-- {
			f.matches = append(f.matches, match{e: h.e, occ: occ})
		}
	}
	clear(f.hits[len(kept):])
	f.hits, f.last, f.gen = kept, q, gen
}

// openSearch opens the search bar, with query typed in when given.
func (m *Model) openSearch(query string) tea.Cmd {
	m.leaveSelection()
	m.find = finder{open: true, typing: true, query: query, lower: map[entry]lowered{}}
	if query != "" {
		m.find.typing = false
		return m.research(true)
	}
	return nil
}

// closeSearch closes the search bar; the view stays where it is.
func (m *Model) closeSearch() {
	m.find = finder{}
}

// research runs the search again and, when jump is set, shows the newest
// match; otherwise it keeps the current match where it can. It starts
// the search of the rest of the session when the query changed, and ends
// a step's jump to a message beyond the held ones once it is held.
func (m *Model) research(jump bool) tea.Cmd {
	var keep *match
	if !jump && m.find.cur < len(m.find.matches) {
		c := m.find.matches[m.find.cur]
		keep = &c
	}
	m.find.run(m.tr.entries, m.tr.gen)
	scan := m.startScan()
	m.placeBeyond()
	if m.landed() {
		return tea.Batch(scan, m.showMatch())
	}
	m.find.cur = 0
	if keep != nil {
		for i, mt := range m.find.matches {
			if mt == *keep {
				m.find.cur = i
			}
		}
		return scan
	}
	return tea.Batch(scan, m.showMatch())
}

// stepMatch moves to the next older (+1) or newer (-1) match, round the
// ends. Past the held matches it jumps to the nearest message beyond them
// that the search of the rest of the session found a match in.
func (m *Model) stepMatch(step int) tea.Cmd {
	f := &m.find
	if f.scan.jumping {
		return nil // still reading the page of the last one
	}
	f.scan.target = ""
	n := len(f.matches)
	switch {
	case step > 0 && (n == 0 || f.cur == n-1) && len(f.older) > 0:
		return m.jumpToHit(f.older[0], true)
	case step > 0 && (n == 0 || f.cur == n-1) && len(f.newer) > 0:
		return m.jumpToHit(f.newer[len(f.newer)-1], true) // round to the newest
	case step < 0 && (n == 0 || f.cur == 0) && len(f.newer) > 0:
		return m.jumpToHit(f.newer[0], false)
	case step < 0 && (n == 0 || f.cur == 0) && len(f.older) > 0:
		return m.jumpToHit(f.older[len(f.older)-1], false) // round to the oldest
	case n == 0:
		return nil
	}
	f.cur = ((f.cur+step)%n + n) % n
	return m.showMatch()
}

// showMatch scrolls to the current match, opening a folded tool call or
// reasoning that hides it, and reads older messages when it nears them.
func (m *Model) showMatch() tea.Cmd {
	if m.find.cur >= len(m.find.matches) {
		return nil
	}
	mt := m.find.matches[m.find.cur]
	i := m.entryIndex(mt.e)
	if i < 0 {
		return nil
	}
	line, _ := m.find.where(m, mt)
	if line < 0 {
		switch e := mt.e.(type) {
		case *toolEntry:
			e.expanded = true
			e.cache.reset()
		case *reasoningEntry:
			e.full = true
			e.cache.reset()
		}
		line, _ = m.find.where(m, mt)
	}
	m.tr.reveal(i, max(line, 0), m.trWidth(), m.transcriptHeight(), &m.theme, m.themeTag)
	return m.maybeLoadOlder()
}

// entryIndex is e's position in the transcript, -1 when it is gone.
func (m *Model) entryIndex(e entry) int {
	m.tr.reindex()
	i, ok := m.tr.index[e.key()]
	if !ok || m.tr.entries[i] != e {
		return -1
	}
	return i
}

// where finds a match in its entry's render: the line and the cell it
// starts at, or -1, -1 when the render does not show it (a folded tool
// call, Markdown that changed the text). The occ-th occurrence drawn
// stands for the occ-th of the text; a render that shows fewer gives its
// last.
func (f *finder) where(m *Model, mt match) (line, col int) {
	q := strings.ToLower(f.query)
	line, col = -1, -1
	seen := 0
	for l, s := range mt.e.render(m.trWidth(), &m.theme, m.themeTag) {
		low := strings.ToLower(ansi.Strip(s))
		for i := 0; ; {
			j := strings.Index(low[i:], q)
			if j < 0 {
				break
			}
			line, col = l, ansi.StringWidth(low[:i+j])
			if seen == mt.occ {
				return line, col
			}
			seen++
			i += j + len(q)
		}
	}
	return line, col
}

// searchKey handles a key while the search bar is open. It reports false
// for a key the view handles as usual: the page keys, which scroll with
// the bar open, and, once the query is typed, any key but the bar's, which
// closes the bar.
func (m *Model) searchKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	f := &m.find
	switch k.String() {
	case "esc", "ctrl+c":
		m.closeSearch()
		return nil, true
	case "ctrl+f":
		f.typing = true
		return nil, true
	case "enter":
		if f.typing {
			f.typing = false
			return nil, true
		}
		return m.stepMatch(1), true
	case "up", "ctrl+p":
		return m.stepMatch(1), true
	case "down", "ctrl+n", "shift+enter":
		return m.stepMatch(-1), true
	case "pgup", "pgdown":
		return nil, false
	}
	if f.typing {
		switch k.String() {
		case "backspace":
			if r := []rune(f.query); len(r) > 0 {
				f.query = string(r[:len(r)-1])
				return m.research(true), true
			}
			return nil, true
		case "ctrl+u":
			f.query = ""
			return m.research(true), true
		}
		if k.Text != "" {
			f.query += k.Text
			return m.research(true), true
		}
		return nil, true
	}
	switch k.String() {
	case "n":
		return m.stepMatch(1), true
	case "N", "shift+n":
		return m.stepMatch(-1), true
	case "/":
		f.typing = true
		return nil, true
	}
	// Any other key goes back to the editor.
	m.closeSearch()
	return nil, false
}

// searchBar is the line that replaces the status line while searching:
// the query, which match is shown of how many, and how much was searched.
func (m *Model) searchBar() (string, int) {
	th := &m.theme
	f := &m.find
	head := th.accent.Render("Find:") + " "
	caret := cellWidth(head) + cellWidth(f.query)
	line := head + f.query
	var info string
	total := f.nNewer + len(f.matches) + f.nOlder
	switch {
	case f.query == "":
		info = "type to search the transcript · Esc closes"
	case total == 0 && f.scan.query != "" && !f.scan.done:
		info = "no match so far"
	case total == 0:
		info = "no match"
	default:
		if len(f.matches) > 0 {
			info = fmt.Sprintf("%d of %d", f.nNewer+f.cur+1, total)
		} else {
			info = fmt.Sprintf("%d matches", total)
		}
		if f.typing {
			info += " · Enter keeps it, ↑ older, ↓ newer"
		} else {
			info += " · n older, N newer · / edits"
		}
		info += " · Esc closes"
	}
	info += m.scanInfo()
	st := th.faint
	if f.query != "" && total == 0 && (f.scan.done || f.scan.query == "") {
		st = th.bad
	}
	return line + "  " + st.Render(info), caret
}
