package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/codeloop/codeloop/internal/client"
)

// entryText is an entry's text as its reader knows it, without styles:
// what search looks through and what copying a message takes.
func entryText(e entry) string {
	switch e := e.(type) {
	case *userEntry:
		s := strings.Join(e.texts, "\n\n")
		for _, f := range e.files {
			s += "\nattached " + f
		}
		return s
	case *textEntry:
		return e.text
	case *reasoningEntry:
		return e.text
	case *noteEntry:
		return e.text
	case *toolEntry:
		st := e.state()
		s := e.part.Tool
		if sum := toolSummary(e.part, st); sum != "" {
			s += " " + sum
		}
		out := bashOutput(st)
		if st.Status == client.ToolError {
			out = st.Error
		}
		if out = strings.TrimRight(out, "\n"); out != "" {
			s += "\n" + out
		}
		return s
	}
	return ""
}

// messageOf is the id of the message an entry belongs to: its key up to
// the first slash.
func messageOf(e entry) string { return msgOf(e.key()) }

// lineRef says where a line of the transcript's view comes from: entry
// and line of its render; entry is -1 for padding, line -1 for the blank
// line between entries.
type lineRef struct{ entry, line int }

// shownLines maps each line the last call to view drew (height lines at
// width) to its entry. It walks the entries on screen only, whose renders
// the view cached.
func (t *transcript) shownLines(width, height int, th *theme, tag int) []lineRef {
	out := make([]lineRef, 0, height)
	a := t.top
	if t.follow {
		a = t.bottomTop(width, height, th, tag)
	}
	for i, skip := a.entry, a.line; i < len(t.entries) && len(out) < height; i, skip = i+1, 0 {
		b := t.block(i, width, th, tag)
		for j := skip; j < b.len() && len(out) < height; j++ {
			l := j
			if b.sep {
				l = j - 1
			}
			out = append(out, lineRef{entry: i, line: l})
		}
	}
	if pad := height - len(out); pad > 0 && t.follow {
		refs := make([]lineRef, pad, height)
		for i := range refs {
			refs[i] = lineRef{entry: -1, line: -1}
		}
		out = append(refs, out...)
	}
	return out
}

// reveal scrolls so that line of entry i is on screen, a third of the way
// down, unless it is on screen already.
func (t *transcript) reveal(i, line, width, height int, th *theme, tag int) {
	if i < 0 || i >= len(t.entries) {
		return
	}
	for _, r := range t.shownLines(width, height, th, tag) {
		if r.entry == i && r.line == line {
			return
		}
	}
	b := t.block(i, width, th, tag)
	if b.sep {
		line++
	}
	t.follow = false
	t.top = anchor{entry: i, line: min(max(line, 0), max(b.len()-1, 0))}
	t.scroll(-height/3, width, height, th, tag)
	if !t.tail && !t.fillsFrom(t.top, width, height, th, tag) {
		t.follow = true
	}
}

// highlight styles cells [from, to) of a styled line with st, keeping
// the styles of the rest.
func highlight(line string, from, to int, st lipgloss.Style) string {
	mid := ansi.Strip(ansi.Cut(line, from, to))
	return ansi.Truncate(line, from, "") + ansi.ResetStyle + st.Render(mid) + ansi.TruncateLeft(line, to, "")
}

// decorate marks, on the lines the transcript shows, the selected
// messages and the search's matches. It costs nothing when neither is
// in use.
func (m *Model) decorate(body []string, height int) {
	if !m.sel.on && !m.find.active() {
		return
	}
	th := &m.theme
	refs := m.tr.shownLines(m.trWidth(), height, th, m.themeTag)
	var cur *match
	if m.find.active() && m.find.cur < len(m.find.matches) {
		cur = &m.find.matches[m.find.cur]
	}
	curLine, curCol := -1, -1
	if cur != nil {
		curLine, curCol = m.find.where(m, *cur)
	}
	for n, r := range refs {
		if n >= len(body) || r.entry < 0 {
			continue
		}
		e := m.tr.entries[r.entry]
		if m.sel.on && r.line >= 0 {
			id := messageOf(e)
			switch {
			case m.sel.marked[id]:
				body[n] = th.selected.Render(padRight(ansi.Strip(body[n]), m.trWidth()))
				continue
			case id == m.sel.cursor:
				body[n] = m.cursorStyle().Render(ansi.Strip(body[n]))
				continue
			}
		}
		if !m.find.active() || r.line < 0 {
			continue
		}
		q := strings.ToLower(m.find.query)
		low := strings.ToLower(ansi.Strip(body[n]))
		// Mark every occurrence, from the right so cells keep their place.
		var at []int
		for i := 0; ; {
			j := strings.Index(low[i:], q)
			if j < 0 {
				break
			}
			at = append(at, i+j)
			i += j + len(q)
		}
		for k := len(at) - 1; k >= 0; k-- {
			from := ansi.StringWidth(low[:at[k]])
			to := from + ansi.StringWidth(low[at[k]:at[k]+len(q)])
			st := m.matchStyle(false)
			if cur != nil && e == cur.e && r.line == curLine && from == curCol {
				st = m.matchStyle(true)
			}
			body[n] = highlight(body[n], from, to, st)
		}
	}
}

// matchStyle is the style of a search match; the current one stands out.
func (m *Model) matchStyle(current bool) lipgloss.Style {
	s := lipgloss.NewStyle()
	if m.theme.name == "plain" {
		if current {
			return s.Reverse(true).Bold(true)
		}
		return s.Underline(true)
	}
	if current {
		return s.Foreground(lipgloss.Color("#101010")).Background(lipgloss.Color("#F2C94C")).Bold(true)
	}
	return s.Foreground(lipgloss.Color("#101010")).Background(lipgloss.Color("#8AA4C8"))
}

// cursorStyle marks the message the selection's cursor is on when it is
// not selected.
func (m *Model) cursorStyle() lipgloss.Style {
	return lipgloss.NewStyle().Underline(true)
}
