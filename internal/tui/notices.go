package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// hookNotice shows what a user's hook has to say: a notice over the
// status line and, for the session on screen, a line in the transcript
// that stays. Notices of other sessions (a sub-agent's) and of hooks run
// outside a session are shown as notices only.
func (m *Model) hookNotice(e client.HookNoticeEvent) tea.Cmd {
	text := e.String()
	if m.sess != nil && e.SessionID == m.sess.ID {
		m.seq++
		kind := noteInfo
		if e.Error {
			kind = noteWarn
		}
		m.tr.put(&noteEntry{k: m.lastKey() + fmt.Sprintf("/~h%06d", m.seq), text: text, kind: kind})
	}
	return m.notify(text, e.Error)
}
