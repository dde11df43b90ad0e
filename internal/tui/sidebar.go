package tui

import (
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// The sidebar's width, the terminal width from which it shows by
// default, and the narrowest transcript it leaves when asked for.
const (
	sidebarWidth     = 42
	sidebarAutoWidth = 160
	sidebarMinRest   = 60
)

// fileCount is what a call added to and removed from one file.
type fileCount struct {
	file     string
	add, del int
}

// countChanges reads a file-changing call's diff: the lines it added to
// and removed from each file.
func countChanges(diff string) []fileCount {
	var out []fileCount
	for _, l := range parseDiff(diff) {
		switch l.kind {
		case 'f':
			out = append(out, fileCount{file: l.text})
		case '+', '-':
			if len(out) == 0 {
				out = append(out, fileCount{})
			}
			if l.kind == '+' {
				out[len(out)-1].add++
			} else {
				out[len(out)-1].del++
			}
		}
	}
	return out
}

// noteChanges records the files a tool call changed, by the call's key.
func (m *Model) noteChanges(key string, p client.Part) {
	if p.State == nil || p.State.Status != client.ToolCompleted {
		if _, ok := m.changes[key]; ok {
			delete(m.changes, key)
			m.changedList = nil
		}
		return
	}
	if d := toolDiff(p.State); d != "" {
		m.changes[key] = countChanges(d)
		m.changedList = nil
	}
}

// sidebarShown reports whether the sidebar is drawn: by default from
// sidebarAutoWidth columns while the view has the mouse, or as toggled,
// when the transcript keeps room beside it.
func (m *Model) sidebarShown() bool {
	if m.width-sidebarWidth-1 < sidebarMinRest {
		return false
	}
	switch m.sidebarPref {
	case 1:
		return true
	case -1:
		return false
	}
	// With the mouse left to the terminal, its selection takes whole
	// rows: the sidebar shows only when asked for.
	return m.width >= sidebarAutoWidth && !m.opts.NoMouse
}

// trWidth is the transcript's width: the screen's, less the sidebar's.
func (m *Model) trWidth() int {
	if m.sidebarShown() {
		return m.width - sidebarWidth - 1
	}
	return m.width
}

// toggleSidebar shows or hides the sidebar.
func (m *Model) toggleSidebar() tea.Cmd {
	if m.width-sidebarWidth-1 < sidebarMinRest {
		return m.notify(fmt.Sprintf("the sidebar needs at least %d columns", sidebarMinRest+sidebarWidth+1), true)
	}
	if m.sidebarShown() {
		m.sidebarPref = -1
	} else {
		m.sidebarPref = 1
	}
	return nil
}

// sidebar draws the sidebar's lines: the context, the files changed, the
// todo list and the MCP and language servers.
func (m *Model) sidebar(height int) []string {
	th := &m.theme
	w := sidebarWidth - 2
	var out []string
	section := func(title string) {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, th.title.Render(title))
	}
	section("Context")
	if m.usage.tokens > 0 {
		line := tokenCount(m.usage.tokens) + " tokens"
		if pct, ok := m.contextPercent(); ok {
			line += fmt.Sprintf(" · %d%% of the window", pct)
		}
		out = append(out, line)
		if share, ok := m.usage.cache.CacheReadShare(); ok && m.usage.cache.Cache.Read > 0 {
			out = append(out, fmt.Sprintf("%.0f%% of the input read from cache", 100*share))
		}
	} else {
		out = append(out, th.faint.Render("nothing sent yet"))
	}
	cost := 0.0
	if m.sess != nil {
		cost = m.sess.Cost
	}
	out = append(out, fmt.Sprintf("$%.2f spent", cost))

	if files := m.changedFiles(); len(files) > 0 {
		section("Modified files")
		for _, f := range files {
			counts := th.ok.Render(fmt.Sprintf("+%d", f.add)) + " " + th.bad.Render(fmt.Sprintf("-%d", f.del))
			nameW := max(w-cellWidth(fmt.Sprintf("+%d -%d", f.add, f.del))-1, 4)
			name := relPath(m.opts.Dir, f.file)
			if cellWidth(name) > nameW {
				name = "…" + tailCells(name, nameW-1)
			}
			out = append(out, padRight(name, nameW)+" "+counts)
		}
	}
	if len(m.todos) > 0 {
		section("Todo")
		out = append(out, todoLines(m.todos, w, th)...)
	}
	if len(m.mcp) > 0 {
		section("MCP")
		out = append(out, mcpLines(m.mcp, w, th)...)
	}
	if len(m.lsp) > 0 {
		section("LSP")
		out = append(out, lspLines(m.lsp, w, th)...)
	}
	for i, l := range out {
		out[i] = padRight(truncate(l, w), w)
	}
	if len(out) > height {
		out = out[:height]
	}
	return out
}

// changedFiles sums the changes of the calls seen, by file, in name
// order.
func (m *Model) changedFiles() []fileCount {
	if m.changedList != nil {
		return m.changedList
	}
	byFile := map[string]*fileCount{}
	for _, fs := range m.changes {
		for _, f := range fs {
			c := byFile[f.file]
			if c == nil {
				c = &fileCount{file: f.file}
				byFile[f.file] = c
			}
			c.add += f.add
			c.del += f.del
		}
	}
	out := make([]fileCount, 0, len(byFile))
	for _, c := range byFile {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].file < out[j].file })
	m.changedList = out
	return out
}

// tokenCount writes a count of tokens short: 950, 12.3k, 1.2M.
func tokenCount(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// tailCells is the end of s that fits in w cells.
func tailCells(s string, w int) string {
	r := []rune(s)
	for i := range r {
		if cellWidth(string(r[i:])) <= w {
			return string(r[i:])
		}
	}
	return ""
}

// besideSidebar puts the sidebar's lines to the right of the
// transcript's; each line comes out exactly trW+sidebarWidth cells wide.
func besideSidebar(body, side []string, trW int, th *theme) []string {
	bar := th.faint.Render("│") + " "
	for i := range body {
		s := strings.Repeat(" ", sidebarWidth-2)
		if i < len(side) {
			s = side[i]
		}
		l := body[i]
		w := cellWidth(l)
		if w > trW {
			l = truncate(l, trW)
			w = cellWidth(l)
		}
		body[i] = l + strings.Repeat(" ", max(trW-w, 0)) + bar + s
	}
	return body
}
