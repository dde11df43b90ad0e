package tui

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// newInput returns the message editor: Enter sends (the view handles it),
// Shift+Enter, Ctrl+J and Alt+Enter insert a newline.
func newInput(th theme) textarea.Model {
	in := textarea.New()
	in.Prompt = ""
	in.ShowLineNumbers = false
	in.Placeholder = "Ask anything, / for commands, ! for a shell command"
	in.DynamicHeight = true
	in.MinHeight = 1
	in.MaxHeight = 8
	in.MaxContentHeight = 0
	in.CharLimit = 0
	in.SetVirtualCursor(false)
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "ctrl+j", "alt+enter"))
	// Page keys scroll the transcript.
	in.KeyMap.PageUp = key.NewBinding(key.WithDisabled())
	in.KeyMap.PageDown = key.NewBinding(key.WithDisabled())
	in.SetStyles(inputStyles(th))
	in.Focus()
	return in
}

func inputStyles(th theme) textarea.Styles {
	s := textarea.DefaultDarkStyles()
	s.Focused.Base = s.Focused.Base.UnsetBackground()
	s.Focused.CursorLine = th.user
	s.Focused.Text = th.user
	s.Focused.Placeholder = th.faint
	s.Blurred = s.Focused
	return s
}

// key handles a key press: the open dialog's first, then the view's own,
// then the editor's.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	if a, ok := m.keys.lookup(k.String(), false); ok && a.id == "app_exit" && m.leaderOn == 0 &&
		m.input.Value() == "" && m.dialog == nil && !m.sel.on && !m.find.open {
		m.quitting = true
		return tea.Quit
	}
	if m.dialog != nil {
		return m.dialogKey(k)
	}
	if len(m.asks) > 0 {
		return m.permKey(k)
	}
	if len(m.questions) > 0 {
		return m.questionKey(k)
	}
	if m.sel.on {
		if cmd, ok := m.selectKey(k); ok {
			return cmd
		}
	}
	if m.find.open {
		if cmd, ok := m.searchKey(k); ok {
			return cmd
		}
	}
	if m.comp.open() {
		if cmd, ok := m.compKey(k); ok {
			return cmd
		}
	}
	if cmd, ok := m.bindingKey(k); ok {
		return cmd
	}
	switch k.String() {
	case "ctrl+c":
		m.input.Reset()
		m.comp.update(m)
		return nil
	case "esc":
		return m.escape()
	case "enter":
		text := m.input.Value()
		if strings.TrimSpace(text) == "" {
			return nil
		}
		text = m.expandPastes(text)
		m.hist.add(text)
		m.input.Reset()
		m.comp.update(m)
		m.layout()
		return m.submit(text)
	case "up":
		if m.historyKey(-1) {
			return nil
		}
	case "down":
		if m.historyKey(1) {
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.comp.update(m)
	m.layout()
	if _, ok := atWord(m.input.Value()); ok && m.files == nil {
		return tea.Batch(cmd, m.loadFiles())
	}
	return cmd
}

// paste inserts pasted text into the editor (or the dialog's field).
func (m *Model) paste(text string) tea.Cmd {
	if m.perm.typing {
		m.perm.message += text
		return nil
	}
	if m.quest.typing {
		m.quest.text += text
		return nil
	}
	if m.dialog != nil {
		if q := m.dialog.asking; q != nil {
			q.value += strings.TrimSpace(strings.ReplaceAll(text, "\n", ""))
		}
		return nil
	}
	return m.pasteIntoEditor(text)
}

// escape: the first Esc while busy arms an interrupt for two seconds, the
// second sends it.
func (m *Model) escape() tea.Cmd {
	if n := len(m.parents); n > 0 {
		// Back from a sub-agent's session to the one that ran it.
		parent := m.parents[n-1]
		m.parents = m.parents[:n-1]
		return m.openSessionCmd(parent)
	}
	if !m.busy() || m.sess == nil {
		return nil
	}
	if m.escArmed != 0 {
		m.escArmed = 0
		m.toast = toast{}
		id := m.sess.ID
		return m.call("interrupting", "interrupted", func(ctx context.Context, c client.Client) error { return c.Abort(ctx, id) })
	}
	m.seq++
	m.escArmed = m.seq
	m.toast = toast{text: "press Esc again to interrupt", seq: m.seq}
	return expireAfter(m.seq, 2*time.Second)
}

// submit sends what was typed: a slash command, a shell command or a
// prompt.
func (m *Model) submit(text string) tea.Cmd {
	trimmed := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(trimmed, "/"):
		name, args, _ := strings.Cut(trimmed[1:], " ")
		return m.slash(name, strings.TrimSpace(args))
	case strings.HasPrefix(trimmed, "!"):
		command := strings.TrimSpace(trimmed[1:])
		if command == "" {
			return nil
		}
		agent := m.agent
		return m.withSession(func(id string) tea.Cmd {
			return m.call("running the command", "", func(ctx context.Context, c client.Client) error {
				_, err := c.Shell(ctx, id, client.ShellInput{Command: command, Agent: agent})
				return err
			})
		})
	}
	in := client.PromptInput{Agent: m.agent, Model: m.model, Parts: []client.PartInput{client.TextInput(text)}}
	return m.withSession(func(id string) tea.Cmd {
		return m.call("sending", "", func(ctx context.Context, c client.Client) error {
			_, err := c.Prompt(ctx, id, in)
			return err
		})
	})
}

// slash runs a slash command: the view's own, or the project's.
func (m *Model) slash(name, args string) tea.Cmd {
	switch name {
	case "new", "clear":
		m.newSession()
		return m.notify("new session: it starts with your next message", false)
	case "sessions", "resume":
		return m.openSessions()
	case "models", "model":
		return m.openModels()
	case "agents", "agent":
		return m.openAgents()
	case "theme", "themes":
		return m.openThemes()
	case "copy":
		return m.copyLast()
	case "search", "find":
		return m.openSearch(args)
	case "select":
		return m.startSelection("")
	case "scrollback":
		return m.scrollback()
	case "context":
		return m.openContext()
	case "timeline":
		return m.openTimeline()
	case "connect":
		return m.openConnect()
	case "mouse":
		m.opts.NoMouse = !m.opts.NoMouse
		m.layout()
		if m.opts.NoMouse {
			return m.notify("the mouse is the terminal's: select text with it as usual; /mouse takes it back", false)
		}
		return m.notify("the mouse scrolls and selects messages again", false)
	case "details":
		m.details = !m.details
		for _, e := range m.tr.entries {
			if te, ok := e.(*toolEntry); ok {
				te.expanded = m.details
				te.cache.reset()
			}
		}
		return m.notify(onOff("tool details", m.details), false)
	case "thinking":
		m.thinking = !m.thinking
		for _, e := range m.tr.entries {
			if re, ok := e.(*reasoningEntry); ok {
				re.full = m.thinking
				re.cache.reset()
			}
		}
		return m.notify(onOff("reasoning shown in full", m.thinking), false)
	case "export":
		return m.export()
	case "help":
		m.dialog = helpDialog(m)
		return nil
	case "keybinds":
		m.dialog = keybindsDialog(m)
		return nil
	case "exit", "quit", "q":
		m.quitting = true
		return tea.Quit
	case "undo", "redo":
		if m.sess == nil {
			return m.notify("there is nothing to "+name+" yet", true)
		}
		id, last := m.sess.ID, m.lastUserMessage()
		if name == "undo" {
			if last == "" {
				return m.notify("there is nothing to undo", true)
			}
			text := strings.Join(userEntryOf(last, m.msgs[last].parts).texts, "\n\n")
			ok := "undone: your message is back in the editor"
			if text == "" {
				// A !command: its message holds no text, its call the command.
				if cmd := m.shellCommandAfter(last); cmd != "" {
					text = "!" + cmd
					ok = "undone: the command is back in the editor"
				} else {
					ok = "undone"
				}
			}
			if m.input.Value() != "" {
				ok = "undone"
			}
			return m.call("undoing", ok, func(ctx context.Context, c client.Client) error {
				_, err := c.Revert(ctx, id, client.RevertInput{MessageID: last})
				return err
			}, func(m *Model) {
				if m.input.Value() == "" {
					m.input.SetValue(text)
					m.layout()
				}
			})
		}
		return m.call("redoing", "redone", func(ctx context.Context, c client.Client) error {
			_, err := c.Unrevert(ctx, id)
			return err
		})
	case "compact", "summarize":
		if m.sess == nil {
			return m.notify("there is nothing to compact yet", true)
		}
		id := m.sess.ID
		return m.call("compacting", "compacting the conversation", func(ctx context.Context, c client.Client) error {
			_, err := c.Command(ctx, id, client.CommandInput{Command: "compact"})
			return err
		})
	}
	found := false
	for _, c := range m.commands {
		found = found || c.Name == name
	}
	if !found {
		return m.notify(fmt.Sprintf("unknown command /%s; /help lists them", name), true)
	}
	in := client.CommandInput{Command: name, Arguments: args, Agent: m.agent, Model: m.model}
	return m.withSession(func(id string) tea.Cmd {
		return m.call("running /"+name, "", func(ctx context.Context, c client.Client) error {
			_, err := c.Command(ctx, id, in)
			return err
		})
	})
}

func onOff(what string, on bool) string {
	if on {
		return what + ": on"
	}
	return what + ": off"
}

// shellCommandAfter is the command of the call that runs one after the
// user's message id, "" when none does. A user's command's call is
// titled by the whole command; its summary is the command's first line.
func (m *Model) shellCommandAfter(id string) string {
	for _, e := range m.tr.entries {
		if messageOf(e) <= id {
			continue
		}
		if te, ok := e.(*toolEntry); ok && te.part.Kind == client.KindExecute {
			return cmp.Or(te.state().Title, te.part.Summary)
		}
		if _, ok := e.(*userEntry); ok {
			break
		}
	}
	return ""
}

// lastUserMessage is the id of the newest message of the user's.
func (m *Model) lastUserMessage() string {
	last := ""
	for id, st := range m.msgs {
		if st.role == client.RoleUser && id > last {
			last = id
		}
	}
	return last
}

// cycleAgent moves to the next (or previous) primary agent.
func (m *Model) cycleAgent(step int) {
	var names []string
	for _, a := range m.agents {
		if a.Primary() && !a.Hidden {
			names = append(names, a.Name)
		}
	}
	if len(names) == 0 {
		return
	}
	i := 0
	for j, n := range names {
		if n == m.agent {
			i = j
		}
	}
	m.agent = names[(i+step+len(names))%len(names)]
}

// toolKeys lists the keys of the tool calls, in order.
func (m *Model) toolKeys() []string {
	var out []string
	for _, e := range m.tr.entries {
		if _, ok := e.(*toolEntry); ok {
			out = append(out, e.key())
		}
	}
	return out
}

// selectTool moves the selection among tool calls; the first move
// selects the newest.
func (m *Model) selectTool(step int) {
	keys := m.toolKeys()
	if len(keys) == 0 {
		return
	}
	i := len(keys) - 1
	if m.selected != "" {
		for j, k := range keys {
			if k == m.selected {
				i = min(max(j+step, 0), len(keys)-1)
			}
		}
	}
	m.setSelected(keys[i])
}

func (m *Model) setSelected(k string) {
	if old, ok := m.tr.find(m.selected).(*toolEntry); ok {
		old.selected = false
		old.cache.reset()
	}
	m.selected = k
	if e, ok := m.tr.find(k).(*toolEntry); ok {
		e.selected = true
		e.cache.reset()
	}
}

// toggleTool expands or folds the selected tool call (the newest when
// none is selected); on a task call it opens the sub-agent's session.
func (m *Model) toggleTool() tea.Cmd {
	if m.selected == "" {
		m.selectTool(0)
	}
	e, ok := m.tr.find(m.selected).(*toolEntry)
	if !ok {
		return nil
	}
	if child := e.childSession(); child != "" && m.sess != nil {
		m.parents = append(m.parents, m.sess.ID)
		return m.openSessionCmd(child)
	}
	e.expanded = !e.expanded
	e.cache.reset()
	return nil
}
