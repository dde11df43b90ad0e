package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// maxCompletions is how many commands the completion list shows at once;
// the list scrolls with the selection.
const maxCompletions = 8

// completion lists what can complete the word being typed: the slash
// commands matching what follows a leading slash (until a space is
// typed), or the project's files matching what follows an @.
type completion struct {
	items     []compItem
	sel       int
	dismissed string // the input Esc closed the list for
}

// compItem is an entry of the list: a command, or a file.
type compItem struct {
	name, desc string
	cmd        *client.Command // nil for a file
}

func (c *completion) open() bool { return len(c.items) > 0 }

// atWord returns the @ word the editor's text ends with, without its @,
// and whether there is one.
func atWord(v string) (string, bool) {
	i := strings.LastIndexAny(v, " \n\t")
	w := v[i+1:]
	if !strings.HasPrefix(w, "@") {
		return "", false
	}
	return w[1:], true
}

// update recomputes the list for the editor's text.
func (c *completion) update(m *Model) {
	v := m.input.Value()
	c.items = nil
	if v == c.dismissed {
		c.sel = 0
		return
	}
	if q, ok := atWord(v); ok {
		c.dismissed = ""
		if m.files == nil {
			return
		}
		for _, f := range fuzzyFilter(m.files, q, 50) {
			c.items = append(c.items, compItem{name: "@" + f})
		}
		c.sel = min(c.sel, max(len(c.items)-1, 0))
		return
	}
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		c.sel = 0
		return
	}
	c.dismissed = ""
	seen := map[string]bool{}
	var names []string
	byName := map[string]client.Command{}
	for _, cmd := range append(builtinCommands(), m.commands...) {
		if seen[cmd.Name] {
			continue
		}
		seen[cmd.Name] = true
		names = append(names, cmd.Name)
		byName[cmd.Name] = cmd
	}
	for _, n := range fuzzyFilter(names, v[1:], len(names)) {
		cmd := byName[n]
		c.items = append(c.items, compItem{name: "/" + n, desc: cmd.Description, cmd: &cmd})
	}
	c.sel = min(c.sel, max(len(c.items)-1, 0))
}

// compKey handles the keys of the open list; it reports whether it took
// the key.
func (m *Model) compKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	c := &m.comp
	it := c.items[c.sel]
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
	case "tab", "enter":
		if it.cmd == nil {
			// A file: the @ word becomes its path.
			v := m.input.Value()
			i := strings.LastIndexAny(v, " \n\t")
			m.input.SetValue(v[:i+1] + it.name + " ")
			c.update(m)
			m.layout()
			return nil, true
		}
		if k.String() == "tab" || len(it.cmd.Hints) > 0 {
			// Complete; a command that takes arguments lets them be typed.
			m.input.SetValue(it.name + " ")
			c.update(m)
			m.layout()
			return nil, true
		}
		m.input.Reset()
		c.update(m)
		m.layout()
		return m.slash(it.cmd.Name, ""), true
	}
	return nil, false
}

// builtinCommands are the view's own slash commands.
func builtinCommands() []client.Command {
	return []client.Command{
		{Name: "new", Description: "start a new session"},
		{Name: "sessions", Description: "switch to another session"},
		{Name: "models", Description: "choose the model and its variant"},
		{Name: "connect", Description: "add a provider's API key, then choose its model"},
		{Name: "agents", Description: "choose the agent"},
		{Name: "theme", Description: "choose the colours"},
		{Name: "copy", Description: "copy the last answer (or the selected tool call's output)"},
		{Name: "select", Description: "select messages to copy (Ctrl+S)"},
		{Name: "timeline", Description: "jump to one of your messages in the session"},
		{Name: "search", Description: "search the transcript (Ctrl+F)", Hints: []string{"TEXT"}},
		{Name: "scrollback", Description: "write the transcript to the terminal's scrollback"},
		{Name: "mouse", Description: "leave the mouse to the terminal's own selection, or take it back"},
		{Name: "details", Description: "show or hide every tool call's input and output"},
		{Name: "thinking", Description: "show the model's reasoning in full, or folded"},
		{Name: "export", Description: "write the session to a Markdown file"},
		{Name: "compact", Description: "summarise the session to free the context"},
		{Name: "context", Description: "show what fills the context window, and the cost"},
		{Name: "undo", Description: "undo the last message and its file changes"},
		{Name: "redo", Description: "bring back what undo removed"},
		{Name: "keybinds", Description: "list the keys in force"},
		{Name: "help", Description: "show keys and commands"},
		{Name: "exit", Description: "quit codeloop"},
	}
}

// view renders the list, at most width wide.
func (c *completion) view(m *Model, width int) []string {
	th := &m.theme
	nameW := 0
	for _, it := range c.items {
		nameW = max(nameW, cellWidth(it.name))
	}
	var out []string
	start := min(max(c.sel-maxCompletions+1, 0), max(len(c.items)-maxCompletions, 0))
	for i := start; i < len(c.items) && i < start+maxCompletions; i++ {
		it := c.items[i]
		line := truncate(" "+padRight(it.name, nameW)+"  "+th.faint.Render(it.desc), width)
		if i == c.sel {
			line = th.selected.Render(padRight(truncate(" "+padRight(it.name, nameW)+"  "+it.desc, width), width))
		}
		out = append(out, line)
	}
	return out
}
