package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The smallest terminal the view draws in.
const (
	minWidth  = 40
	minHeight = 10
)

// spinnerFrames turn while the session is busy.
const spinnerFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

// layout sizes the editor for the terminal.
func (m *Model) layout() {
	if m.width > 2 {
		m.input.SetWidth(m.width - 2)
	}
}

// inputHeight is the editor's height in lines.
func (m *Model) inputHeight() int { return max(m.input.Height(), 1) }

// transcriptHeight is the height left for the transcript: the screen
// minus the header, the rule, the editor and the status line.
func (m *Model) transcriptHeight() int {
	h := m.height - 3 - m.inputHeight()
	if m.todoLine() != "" {
		h--
	}
	return max(h, 1)
}

// todoLine is the todo bar above the rule, "" when there is none.
func (m *Model) todoLine() string {
	return todoBar(m.todos, m.width, &m.theme)
}

// View draws the screen.
func (m *Model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	v.WindowTitle = "codeloop"
	if !m.opts.NoMouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	if m.quitting {
		return v
	}
	if m.width < minWidth || m.height < minHeight {
		v.SetContent(m.tooSmall())
		return v
	}
	th := &m.theme
	out := make([]string, 0, m.height)
	out = append(out, m.header())

	// A dialog takes the bottom of the transcript's room: the transcript
	// ends above it, so its newest lines stay in sight.
	height := m.transcriptHeight()
	overlay := m.overlay(m.width, height)
	n := min(len(overlay), height)
	trW := m.trWidth()
	body := m.tr.view(trW, height-n, th, m.themeTag)
	m.decorate(body, height-n)
	if m.sess == nil && len(m.tr.entries) == 0 {
		body = m.startScreen(trW, height-n)
	}
	// Lines beside the sidebar are made exactly as wide as the screen.
	exact := -1
	if trW < m.width {
		body = besideSidebar(body, m.sidebar(height-n), trW, th)
		exact = len(out) + len(body)
	}
	out = append(out, body...)
	out = append(out, overlay[len(overlay)-n:]...)

	if bar := m.todoLine(); bar != "" {
		out = append(out, bar)
	}
	if m.tr.follow {
		m.newBelow = false
	}
	rule := strings.Repeat("─", m.width)
	if !m.tr.follow {
		label := "── newer messages below: PgDn "
		if m.newBelow {
			label = "── new output below: PgDn "
		}
		rule = label + strings.Repeat("─", max(m.width-cellWidth(label), 0))
	}
	out = append(out, th.faint.Render(rule))
	inputTop := len(out)
	for i, l := range strings.Split(m.input.View(), "\n") {
		prefix := "  "
		if i == 0 {
			prefix = th.accent.Render(">") + " "
		}
		out = append(out, prefix+l)
	}
	barCaret := -1
	switch {
	case m.find.open:
		bar, caret := m.searchBar()
		out = append(out, bar)
		if m.find.typing {
			barCaret = caret
		}
	case m.sel.on:
		out = append(out, m.selectionBar())
	default:
		out = append(out, m.statusLine())
	}
	for i, l := range out {
		if i > 0 && i < exact {
			continue
		}
		out[i] = truncate(l, m.width)
	}
	v.SetContent(strings.Join(out, "\n"))
	if barCaret >= 0 && m.dialog == nil && len(m.asks) == 0 && len(m.questions) == 0 {
		v.Cursor = tea.NewCursor(min(barCaret, m.width-1), len(out)-1)
	} else if m.dialog == nil && len(m.asks) == 0 && len(m.questions) == 0 {
		if c := m.input.Cursor(); c != nil {
			c.Position.X += 2
			c.Position.Y += inputTop
			v.Cursor = c
		}
	}
	return v
}

// tooSmall is the notice drawn instead of the view.
func (m *Model) tooSmall() string {
	text := fmt.Sprintf("The terminal is too small (%d×%d): codeloop needs at least %d×%d. Enlarge the window.",
		m.width, m.height, minWidth, minHeight)
	lines := (plainText{}).render(text, max(m.width, 1), nil)
	if len(lines) > m.height && m.height > 0 {
		lines = lines[:m.height]
	}
	return strings.Join(lines, "\n")
}

// header is the top line: the session's title.
func (m *Model) header() string {
	th := &m.theme
	title := "new session"
	if m.sess != nil {
		title = m.sess.Title
	}
	head := th.accent.Render("codeloop") + " " + th.faint.Render(title)
	if len(m.parents) > 0 {
		head += " " + th.warn.Render("· sub-agent session · Esc goes back")
	}
	return head
}

// overlay is what covers the bottom of the transcript: a dialog, or the
// completion list.
func (m *Model) overlay(width, height int) []string {
	switch {
	case m.dialog != nil:
		return m.listView(width, height)
	case len(m.asks) > 0:
		return m.permView(width, height)
	case len(m.questions) > 0:
		return m.questionView(width, height)
	case m.comp.open():
		return m.comp.view(m, width)
	}
	return nil
}

// statusLine is the bottom line: a notice, or the agent, the model, the
// context used, the cost and, while busy, the time spent.
func (m *Model) statusLine() string {
	th := &m.theme
	if m.toast.text != "" {
		st := th.warn
		if m.toast.bad {
			st = th.bad
		}
		return st.Render(m.toast.text)
	}
	parts := []string{th.accent.Render(m.agent)}
	if ref := m.modelName(); ref != "" {
		parts = append(parts, ref)
	} else if m.loaded {
		parts = append(parts, th.bad.Render(noModel))
	}
	if pct, ok := m.contextPercent(); ok {
		parts = append(parts, fmt.Sprintf("%d%% context", pct))
	}
	if m.sess != nil && m.sess.Cost > 0 {
		parts = append(parts, fmt.Sprintf("$%.2f", m.sess.Cost))
	}
	if down := serverProblems(m.mcp); down != "" && !m.sidebarShown() {
		parts = append(parts, th.bad.Render(down))
	}
	left := strings.Join(parts, th.faint.Render(" · "))
	if m.busy() {
		frames := []rune(spinnerFrames)
		busy := string(frames[m.spin%len(frames)]) + " " + elapsed(m.now().Sub(m.busySince))
		if m.status.Type == "retry" {
			busy += " · retrying"
			if m.status.Next > 0 {
				wait := max(time.UnixMilli(m.status.Next).Sub(m.now()), 0)
				busy += " in " + elapsed(wait)
			}
			if m.status.Attempt > 0 {
				busy += fmt.Sprintf(" (attempt %d)", m.status.Attempt)
			}
		}
		busy += th.faint.Render(" · Esc Esc interrupts")
		left += th.faint.Render(" · ") + th.warn.Render(busy)
	}
	return left
}

// noModel is what the status line says when no model can answer.
const noModel = "no model: /connect adds a provider's key"

// modelName is the model the next prompt goes to, as provider/model.
func (m *Model) modelName() string {
	switch {
	case m.model != nil && m.model.Variant != "":
		return m.model.String() + " · " + m.model.Variant
	case m.model != nil:
		return m.model.String()
	case m.sess != nil && m.sess.Model != nil:
		return m.sess.Model.ProviderID + "/" + m.sess.Model.ID
	case m.catalog.Default != nil:
		return m.catalog.Default.String()
	}
	return ""
}

// contextPercent is the share of its model's context the newest answer
// used.
func (m *Model) contextPercent() (int, bool) {
	if m.usage.tokens == 0 {
		return 0, false
	}
	for _, p := range m.catalog.Providers {
		if p.ID != m.usage.provider {
			continue
		}
		for _, md := range p.Models {
			if md.ID == m.usage.model && md.Limit.Context > 0 {
				return int(m.usage.tokens * 100 / md.Limit.Context), true
			}
		}
	}
	return 0, false
}

// elapsed formats a duration as 7s or 2m05s.
func elapsed(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// truncate cuts s to width cells.
func truncate(s string, width int) string {
	if cellWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// padRight pads s with spaces to width cells.
func padRight(s string, width int) string {
	if n := width - cellWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

func cellWidth(s string) int { return ansi.StringWidth(s) }
