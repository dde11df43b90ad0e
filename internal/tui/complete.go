package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// maxCompletions is how many commands the completion list shows at once;
// the list scrolls with the selection.
const maxCompletions = 8

// completion lists the slash commands matching what is typed after a
// leading slash, until a space is typed.
type completion struct {
	items     []client.Command
	sel       int
	dismissed string // the input Esc closed the list for
}

func (c *completion) open() bool { return len(c.items) > 0 }

// update recomputes the list for the editor's text.
func (c *completion) update(m *Model) {
	v := m.input.Value()
	c.items = nil
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") || v == c.dismissed {
		c.sel = 0
		return
	}
	c.dismissed = ""
	prefix := strings.ToLower(v[1:])
	seen := map[string]bool{}
	var starts, contains []client.Command
	for _, cmd := range append(builtinCommands(), m.commands...) {
		name := strings.ToLower(cmd.Name)
		if seen[name] {
			continue
		}
		seen[name] = true
		switch {
		case strings.HasPrefix(name, prefix):
			starts = append(starts, cmd)
		case strings.Contains(name, prefix):
			contains = append(contains, cmd)
		}
	}
	c.items = append(starts, contains...)
	c.sel = min(c.sel, max(len(c.items)-1, 0))
}

// compKey handles the keys of the open list; it reports whether it took
// the key.
func (m *Model) compKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	c := &m.comp
	switch k.String() {
	case "up", "ctrl+p":
		c.sel = (c.sel - 1 + len(c.items)) % len(c.items)
		return nil, true
	case "down", "ctrl+n":
		c.sel = (c.sel + 1) % len(c.items)
		return nil, true
	case "esc":
		c.dismissed = m.input.Value()
		c.items = nil
		return nil, true
	case "tab":
		m.input.SetValue("/" + c.items[c.sel].Name + " ")
		c.update(m)
		m.layout()
		return nil, true
	case "enter":
		cmd := c.items[c.sel]
		if len(cmd.Hints) > 0 {
			// It takes arguments: let them be typed.
			m.input.SetValue("/" + cmd.Name + " ")
			c.update(m)
			m.layout()
			return nil, true
		}
		m.input.Reset()
		c.update(m)
		m.layout()
		return m.slash(cmd.Name, ""), true
	}
	return nil, false
}

// builtinCommands are the view's own slash commands.
func builtinCommands() []client.Command {
	return []client.Command{
		{Name: "new", Description: "start a new session"},
		{Name: "sessions", Description: "switch to another session"},
		{Name: "models", Description: "choose the model"},
		{Name: "compact", Description: "summarise the session to free the context"},
		{Name: "undo", Description: "undo the last message and its file changes"},
		{Name: "redo", Description: "bring back what undo removed"},
		{Name: "help", Description: "show keys and commands"},
		{Name: "exit", Description: "quit codeloop"},
	}
}

// view renders the list, at most width wide.
func (c *completion) view(m *Model, width int) []string {
	th := &m.theme
	nameW := 0
	for _, it := range c.items {
		nameW = max(nameW, len(it.Name)+1)
	}
	var out []string
	start := min(max(c.sel-maxCompletions+1, 0), max(len(c.items)-maxCompletions, 0))
	for i := start; i < len(c.items) && i < start+maxCompletions; i++ {
		it := c.items[i]
		line := padRight("/"+it.Name, nameW) + "  " + th.faint.Render(it.Description)
		line = truncate(" "+line, width)
		if i == c.sel {
			line = th.selected.Render(padRight(truncate(" "+padRight("/"+it.Name, nameW)+"  "+it.Description, width), width))
		}
		out = append(out, line)
	}
	return out
}
