package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// selection picks whole messages to copy. The cursor is the message the
// arrows move; marked are the messages a copy takes. Until the
// selection is extended (Shift with an arrow, Space, Shift+click) the
// marked message follows the cursor.
type selection struct {
	on     bool
	cursor string
	anchor string
	marked map[string]bool
	// extended says the marks no longer follow the cursor.
	extended bool
}

// messageIDs are the ids of the messages the transcript shows, oldest
// first.
func (m *Model) messageIDs() []string {
	var ids []string
	for _, e := range m.tr.entries {
		if blankEntry(e) {
			continue
		}
		id := messageOf(e)
		if n := len(ids); n == 0 || ids[n-1] != id {
			ids = append(ids, id)
		}
	}
	return ids
}

// startSelection enters selection mode on message id, the newest message
// when id is empty.
func (m *Model) startSelection(id string) tea.Cmd {
	ids := m.messageIDs()
	if len(ids) == 0 {
		return m.notify("there is no message to select yet", true)
	}
	m.closeSearch()
	if id == "" || !slices.Contains(ids, id) {
		id = ids[len(ids)-1]
	}
	m.sel = selection{on: true, cursor: id, anchor: id, marked: map[string]bool{id: true}}
	return m.revealMessage(id)
}

// leaveSelection ends selection mode.
func (m *Model) leaveSelection() {
	m.sel = selection{}
}

// moveSelection moves the cursor by step messages; extend marks every
// message from the anchor to the cursor.
func (m *Model) moveSelection(step int, extend bool) tea.Cmd {
	ids := m.messageIDs()
	i := slices.Index(ids, m.sel.cursor)
	if i < 0 {
		return m.startSelection("")
	}
	i = min(max(i+step, 0), len(ids)-1)
	m.sel.cursor = ids[i]
	switch {
	case extend:
		m.sel.extended = true
		m.markRange(ids, m.sel.anchor, m.sel.cursor)
	case !m.sel.extended:
		m.sel.anchor = m.sel.cursor
		m.sel.marked = map[string]bool{m.sel.cursor: true}
	}
	return m.revealMessage(m.sel.cursor)
}

// markRange marks the messages from a to b, whichever comes first.
func (m *Model) markRange(ids []string, a, b string) {
	i, j := slices.Index(ids, a), slices.Index(ids, b)
	if i < 0 {
		i = j
	}
	if i > j {
		i, j = j, i
	}
	m.sel.marked = map[string]bool{}
	for _, id := range ids[i : j+1] {
		m.sel.marked[id] = true
	}
}

// toggleMark marks or unmarks the cursor's message.
func (m *Model) toggleMark() {
	m.sel.extended = true
	id := m.sel.cursor
	if m.sel.marked[id] {
		delete(m.sel.marked, id)
	} else {
		m.sel.marked[id] = true
	}
	m.sel.anchor = id
}

// revealMessage scrolls to the start of message id and reads older
// messages when it nears them.
func (m *Model) revealMessage(id string) tea.Cmd {
	for i, e := range m.tr.entries {
		if messageOf(e) == id {
			m.tr.reveal(i, 0, m.trWidth(), m.transcriptHeight(), &m.theme, m.themeTag)
			break
		}
	}
	return m.maybeLoadOlder()
}

// selectedText is the text of the marked messages, oldest first, each
// entry's text as searched, messages separated by a blank line.
func (m *Model) selectedText() (string, int) {
	var b strings.Builder
	n, last := 0, ""
	for _, e := range m.tr.entries {
		id := messageOf(e)
		if !m.sel.marked[id] {
			continue
		}
		t := strings.TrimSpace(entryText(e))
		if t == "" {
			continue
		}
		if id != last {
			n++
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t)
		last = id
	}
	return b.String(), n
}

// copySelection copies the marked messages and leaves selection mode.
func (m *Model) copySelection() tea.Cmd {
	text, n := m.selectedText()
	m.leaveSelection()
	if n == 0 {
		return m.notify("nothing is selected to copy", true)
	}
	what := "the message"
	if n > 1 {
		what = fmt.Sprintf("%d messages", n)
	}
	m.lastCopy = text
	return m.copyCmd(what, text)
}

// selectKey handles a key in selection mode. It reports false for keys
// the view handles as usual (the page keys).
func (m *Model) selectKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	switch k.String() {
	case "esc", "ctrl+c", "ctrl+s":
		m.leaveSelection()
	case "up", "k":
		return m.moveSelection(-1, false), true
	case "down", "j":
		return m.moveSelection(1, false), true
	case "shift+up", "K":
		return m.moveSelection(-1, true), true
	case "shift+down", "J":
		return m.moveSelection(1, true), true
	case "space", " ":
		m.toggleMark()
	case "y", "enter", "c":
		return m.copySelection(), true
	case "pgup", "pgdown":
		return nil, false
	}
	return nil, true
}

// selectionBar replaces the status line in selection mode.
func (m *Model) selectionBar() string {
	th := &m.theme
	n := len(m.sel.marked)
	what := fmt.Sprintf("%d messages selected", n)
	if n == 1 {
		what = "1 message selected"
	}
	return th.accent.Render("Select:") + " " + what + th.faint.Render(" · ↑ ↓ move · Shift+↑ ↓ extend · Space marks · y copies · Esc leaves")
}

// blankEntry reports whether e shows nothing: the user's message of a
// !command holds only a note for the model, and the call shows the
// command.
func blankEntry(e entry) bool {
	u, ok := e.(*userEntry)
	return ok && len(u.texts) == 0 && len(u.files) == 0
}
