package tui

import (
	"strings"
	"time"
)

// recentSessions is how many of the project's sessions the start screen
// lists.
const recentSessions = 5

// startScreen is what the transcript's room shows before a session is
// open: the version, the model and agent the first message goes to, the
// main keys and the project's recent sessions, in the middle of height
// lines of width cells.
func (m *Model) startScreen(width, height int) []string {
	th := &m.theme
	version := m.opts.Version
	if version == "" {
		version = "dev"
	}
	model := m.modelName()
	if model == "" {
		model = th.bad.Render(noModel)
	}
	km := &m.keys
	var ls []string
	ls = append(ls, th.accent.Render("codeloop")+" "+th.faint.Render(version), "")
	ls = append(ls, th.faint.Render("model  ")+model, th.faint.Render("agent  ")+th.accent.Render(m.agent), "")
	hints := []string{"Enter send"}
	for _, h := range []struct{ id, what string }{{"command_list", "commands"}, {"session_list", "sessions"}, {"model_list", "models"}, {"agent_cycle", "agent"}} {
		if k := km.keysOf(h.id); k != "" {
			hints = append(hints, strings.SplitN(k, ", ", 2)[0]+" "+h.what)
		}
	}
	hints = append(hints, "/help")
	line := ""
	for _, h := range hints {
		if line != "" && cellWidth(line)+3+cellWidth(h) > width-2 {
			ls = append(ls, th.faint.Render(line))
			line = ""
		}
		if line != "" {
			line += " · "
		}
		line += h
	}
	ls = append(ls, th.faint.Render(line))
	if len(m.recent) > 0 {
		ls = append(ls, "", th.title.Render("Recent sessions"))
		now := m.now()
		titleW := 0
		for _, s := range m.recent {
			titleW = max(titleW, min(cellWidth(s.Title), max(width/2, 20)))
		}
		for _, s := range m.recent {
			when := ago(now, time.UnixMilli(s.Time.Updated))
			ls = append(ls, "  "+padRight(truncate(s.Title, titleW), titleW)+"  "+th.faint.Render(when))
		}
		if k := km.keysOf("session_list"); k != "" {
			ls = append(ls, th.faint.Render("  "+strings.SplitN(k, ", ", 2)[0]+" opens one"))
		}
	}
	if len(ls) > height {
		ls = ls[:height]
	}
	// Centre the block.
	w := 0
	for _, l := range ls {
		w = max(w, cellWidth(l))
	}
	pad := strings.Repeat(" ", max((width-w)/2, 0))
	out := make([]string, 0, height)
	for range (height - len(ls)) / 2 {
		out = append(out, "")
	}
	for _, l := range ls {
		if l != "" {
			l = pad + l
		}
		out = append(out, l)
	}
	for len(out) < height {
		out = append(out, "")
	}
	return out
}
