package tui

import (
	tea "charm.land/bubbletea/v2"
)

// wheelLines is how far a turn of the mouse wheel scrolls.
const wheelLines = 3

// mouse handles the mouse while the view captures it: the wheel scrolls
// the transcript; a click on a message selects it and a click with Shift
// (or Ctrl, for terminals that keep Shift+click for their own selection)
// extends the selection to it.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.opts.NoMouse || m.width < minWidth || m.height < minHeight {
		return nil
	}
	mo := msg.Mouse()
	height := m.transcriptHeight()
	switch msg.(type) {
	case tea.MouseWheelMsg:
		switch mo.Button {
		case tea.MouseWheelUp:
			m.tr.scroll(-wheelLines, m.trWidth(), height, &m.theme, m.themeTag)
			return m.maybeLoadOlder()
		case tea.MouseWheelDown:
			m.tr.scroll(wheelLines, m.trWidth(), height, &m.theme, m.themeTag)
			// At the end: follow new text again.
			if !m.tr.follow && !m.tr.tail && !m.tr.fillsFrom(m.tr.top, m.trWidth(), height+1, &m.theme, m.themeTag) {
				m.tr.follow = true
			}
		}
		return nil
	case tea.MouseClickMsg:
	default:
		return nil
	}
	if mo.Button != tea.MouseLeft || m.dialog != nil || len(m.asks) > 0 || len(m.questions) > 0 || mo.X >= m.trWidth() {
		return nil
	}
	// The transcript starts under the header line.
	y := mo.Y - 1
	if y < 0 || y >= height {
		return nil
	}
	refs := m.tr.shownLines(m.trWidth(), height, &m.theme, m.themeTag)
	if y >= len(refs) || refs[y].entry < 0 {
		return nil
	}
	id := messageOf(m.tr.entries[refs[y].entry])
	if m.sel.on && mo.Mod&(tea.ModShift|tea.ModCtrl) != 0 {
		m.sel.cursor, m.sel.extended = id, true
		m.markRange(m.messageIDs(), m.sel.anchor, id)
		return nil
	}
	m.closeSearch()
	m.sel = selection{on: true, cursor: id, anchor: id, marked: map[string]bool{id: true}}
	return nil
}
