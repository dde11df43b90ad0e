package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// defaultLeader is the key that starts a two-key binding (<leader>n).
const defaultLeader = "ctrl+x"

// leaderTimeout is how long the leader waits for its second key.
const leaderTimeout = 2 * time.Second

// action is something a key, the command palette or both can do. Its id
// is OpenCode's keybind name where OpenCode has the action, so the
// keybinds of an OpenCode config work as they are.
type action struct {
	id    string
	title string
	keys  string // the default keys: comma-separated, "none" for none
	run   func(m *Model) tea.Cmd
}

// actions are the view's actions, in the order the palette lists them.
func actions() []action {
	page := func(half, down bool) func(m *Model) tea.Cmd {
		return func(m *Model) tea.Cmd {
			n := max(1, m.transcriptHeight()-2)
			if half {
				n = max(1, m.transcriptHeight()/2)
			}
			if !down {
				n = -n
			}
			m.tr.scroll(n, m.trWidth(), m.transcriptHeight(), &m.theme, m.themeTag)
			return m.maybeLoadOlder()
		}
	}
	slash := func(name string) func(m *Model) tea.Cmd {
		return func(m *Model) tea.Cmd { return m.slash(name, "") }
	}
	return []action{
		{"command_list", "Show the command palette", "ctrl+p", func(m *Model) tea.Cmd { return m.openPalette() }},
		{"session_new", "New session", "<leader>n", slash("new")},
		{"session_list", "Switch session", "<leader>l", slash("sessions")},
		{"model_list", "Choose the model", "<leader>m", slash("models")},
		{"provider_connect", "Connect a provider", "none", slash("connect")},
		{"agent_list", "Choose the agent", "<leader>a", slash("agents")},
		{"agent_cycle", "Next agent", "tab", func(m *Model) tea.Cmd { m.cycleAgent(1); return nil }},
		{"agent_cycle_reverse", "Previous agent", "shift+tab", func(m *Model) tea.Cmd { m.cycleAgent(-1); return nil }},
		{"theme_list", "Choose the theme", "<leader>t", slash("theme")},
		{"sidebar_toggle", "Show or hide the sidebar", "<leader>b", func(m *Model) tea.Cmd { return m.toggleSidebar() }},
		{"editor_open", "Write the message in $EDITOR", "ctrl+g,<leader>e", func(m *Model) tea.Cmd { return m.openEditor() }},
		{"session_compact", "Compact the session", "<leader>c", slash("compact")},
		{"session_context", "Show what fills the context", "none", slash("context")},
		{"session_export", "Export the session to Markdown", "<leader>x", slash("export")},
		{"messages_undo", "Undo the last message", "<leader>u", slash("undo")},
		{"messages_redo", "Redo", "<leader>r", slash("redo")},
		{"messages_copy", "Copy the last answer", "<leader>y", slash("copy")},
		{"messages_page_up", "Scroll up a page", "pgup,ctrl+alt+b", page(false, false)},
		{"messages_page_down", "Scroll down a page", "pgdown,ctrl+alt+f", page(false, true)},
		{"messages_half_page_up", "Scroll up half a page", "ctrl+alt+u", page(true, false)},
		{"messages_half_page_down", "Scroll down half a page", "ctrl+alt+d", page(true, true)},
		{"messages_first", "Go to the first message", "ctrl+home", func(m *Model) tea.Cmd {
			m.tr.follow, m.tr.top = false, anchor{}
			return m.maybeLoadOlder()
		}},
		{"messages_last", "Go to the last message", "ctrl+end", func(m *Model) tea.Cmd { m.tr.follow = true; return nil }},
		{"session_timeline", "Jump to one of your messages", "<leader>g", slash("timeline")},
		{"messages_search", "Search the transcript", "ctrl+f", func(m *Model) tea.Cmd { return m.openSearch("") }},
		{"messages_select", "Select messages to copy", "ctrl+s", func(m *Model) tea.Cmd { return m.startSelection("") }},
		{"tool_previous", "Select the tool call before", "alt+up", func(m *Model) tea.Cmd { m.selectTool(-1); return nil }},
		{"tool_next", "Select the tool call after", "alt+down", func(m *Model) tea.Cmd { m.selectTool(1); return nil }},
		{"tool_expand", "Show or hide the tool call's output", "ctrl+o", func(m *Model) tea.Cmd { return m.toggleTool() }},
		{"mouse_toggle", "Leave the mouse to the terminal, or take it back", "none", slash("mouse")},
		{"tool_details", "Show or hide every tool call's details", "none", slash("details")},
		{"thinking_toggle", "Show the reasoning in full, or folded", "none", slash("thinking")},
		{"keybinds_show", "List the keybinds", "none", slash("keybinds")},
		{"help_show", "Keys and commands", "<leader>h", slash("help")},
		{"app_exit", "Quit", "ctrl+c,ctrl+d,<leader>q", func(m *Model) tea.Cmd {
			m.quitting = true
			return tea.Quit
		}},
	}
}

// fixedKeys are keys the view keeps for itself whatever the keybinds say.
var fixedKeys = []string{"enter", "esc", "up", "down", "shift+enter", "ctrl+j", "alt+enter"}

// keymap is the keys in force: the defaults with the config's keybinds
// over them.
type keymap struct {
	leader string
	// byKey maps a key ("ctrl+p", or "<leader>n") to an action's index.
	byKey map[string]int
	// keys are each action's keys as bound, by index.
	keys [][]string
	acts []action
	// problems are what was wrong with the config's keybinds.
	problems []string
}

// newKeymap builds the keys in force from OpenCode-style keybinds: an
// action's id to comma-separated keys, "none" for none, "leader" the
// leader key.
func newKeymap(config map[string]string) keymap {
	km := keymap{leader: defaultLeader, byKey: map[string]int{}, acts: actions()}
	var problems []string
	if l, ok := config["leader"]; ok {
		if k, err := normKey(l); err != nil || k == "" || strings.HasPrefix(k, "<leader>") {
			problems = append(problems, fmt.Sprintf("leader %q is not a key; using %s", l, defaultLeader))
		} else {
			km.leader = k
		}
	}
	known := map[string]int{}
	for i, a := range km.acts {
		known[a.id] = i
	}
	var unknown []string
	for id := range config {
		if _, ok := known[id]; !ok && id != "leader" {
			unknown = append(unknown, id)
		}
	}
	sort.Strings(unknown)
	for _, id := range unknown {
		problems = append(problems, "unknown keybind "+id)
	}
	km.keys = make([][]string, len(km.acts))
	// The config's bindings go first, so a default never takes a key the
	// user gave to another action.
	configured := func(i int) bool { _, ok := config[km.acts[i].id]; return ok }
	order := make([]int, 0, len(km.acts))
	for i := range km.acts {
		if configured(i) {
			order = append(order, i)
		}
	}
	for i := range km.acts {
		if !configured(i) {
			order = append(order, i)
		}
	}
	for _, i := range order {
		a := km.acts[i]
		spec, user := config[a.id]
		if !user {
			spec = a.keys
		}
		for _, raw := range strings.Split(spec, ",") {
			k, err := normKey(raw)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", a.id, err))
				continue
			}
			if k == "" {
				continue
			}
			if slices.Contains(fixedKeys, k) {
				problems = append(problems, fmt.Sprintf("%s: %s is kept by the editor", a.id, k))
				continue
			}
			if k == km.leader {
				problems = append(problems, fmt.Sprintf("%s: %s is the leader key", a.id, k))
				continue
			}
			if j, taken := km.byKey[k]; taken {
				if user {
					problems = append(problems, fmt.Sprintf("%s is bound to both %s and %s; %s keeps it", km.show(k), km.acts[j].id, a.id, km.acts[j].id))
				} else {
					problems = append(problems, fmt.Sprintf("%s takes %s from %s", km.acts[j].id, km.show(k), a.id))
				}
				continue
			}
			km.byKey[k] = i
			km.keys[i] = append(km.keys[i], k)
		}
	}
	km.problems = problems
	return km
}

// normKey turns a key as OpenCode writes it ("ctrl+x", "<leader>n",
// "escape", "pageup", "shift+return") into the view's name for it; ""
// for "none".
func normKey(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "none" || s == "false" {
		return "", nil
	}
	prefix := ""
	if rest, ok := strings.CutPrefix(s, "<leader>"); ok {
		prefix, s = "<leader>", strings.TrimSpace(rest)
	}
	parts := strings.Split(s, "+")
	base := parts[len(parts)-1]
	if base == "" {
		if !strings.HasSuffix(s, "++") && s != "+" {
			return "", fmt.Errorf("%q is not a key", s)
		}
		base, parts = "+", parts[:len(parts)-2]
	} else {
		parts = parts[:len(parts)-1]
	}
	mods := map[string]bool{}
	for _, p := range parts {
		switch p {
		case "ctrl", "control":
			mods["ctrl"] = true
		case "alt", "meta", "option":
			mods["alt"] = true
		case "shift":
			mods["shift"] = true
		case "super", "cmd":
			mods["super"] = true
		default:
			return "", fmt.Errorf("%q: unknown modifier %q", s, p)
		}
	}
	switch base {
	case "return":
		base = "enter"
	case "escape":
		base = "esc"
	case "pageup":
		base = "pgup"
	case "pagedown":
		base = "pgdown"
	case "del":
		base = "delete"
	case " ":
		base = "space"
	}
	var b strings.Builder
	b.WriteString(prefix)
	for _, m := range []string{"ctrl", "alt", "shift", "super"} {
		if mods[m] {
			b.WriteString(m + "+")
		}
	}
	b.WriteString(base)
	return b.String(), nil
}

// show is a key as the view writes it: the leader spelled out.
func (km *keymap) show(k string) string {
	if rest, ok := strings.CutPrefix(k, "<leader>"); ok {
		return km.leader + " " + rest
	}
	return k
}

// keysOf is an action's keys as the view writes them, "" for none.
func (km *keymap) keysOf(id string) string {
	for i, a := range km.acts {
		if a.id == id {
			var out []string
			for _, k := range km.keys[i] {
				out = append(out, km.show(k))
			}
			return strings.Join(out, ", ")
		}
	}
	return ""
}

// lookup returns the action a key (after the leader when leader is
// set) is bound to.
func (km *keymap) lookup(k string, leader bool) (action, bool) {
	if leader {
		k = "<leader>" + k
	}
	i, ok := km.byKey[k]
	if !ok {
		return action{}, false
	}
	return km.acts[i], true
}

// bindingKey handles a key of the main view through the keymap. It
// reports false for keys bound to nothing, which go to the editor.
func (m *Model) bindingKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	key := k.String()
	if m.leaderOn != 0 {
		m.leaderOn = 0
		m.toast = toast{}
		if key == "esc" {
			return nil, true
		}
		if a, ok := m.keys.lookup(key, true); ok {
			return a.run(m), true
		}
		return m.notify(m.keys.leader+" "+key+" is bound to nothing; /keybinds lists the keys", true), true
	}
	if key == m.keys.leader {
		m.seq++
		m.leaderOn = m.seq
		m.toast = toast{text: m.keys.leader + " … (Esc cancels)", seq: m.seq}
		return expireAfter(m.seq, leaderTimeout), true
	}
	a, ok := m.keys.lookup(key, false)
	if !ok {
		return nil, false
	}
	// Quitting and Ctrl+C's clearing wait for an empty editor.
	if a.id == "app_exit" && m.input.Value() != "" {
		return nil, false
	}
	return a.run(m), true
}

// keybindsDialog lists the keys in force and what was wrong with the
// config's keybinds.
func keybindsDialog(m *Model) *listDialog {
	km := &m.keys
	text := []string{fmt.Sprintf("%-24s %s", "leader", km.leader)}
	for i, a := range km.acts {
		keys := "none"
		if len(km.keys[i]) > 0 {
			keys = km.keysOf(a.id)
		}
		text = append(text, fmt.Sprintf("%-24s %-25s %s", a.id, keys, a.title))
	}
	if len(km.problems) > 0 {
		text = append(text, "", "Problems in the config's keybinds:")
		for _, p := range km.problems {
			text = append(text, "  "+p)
		}
	}
	text = append(text, "", `Set them in the config: "tui": {"keybinds": {"session_new": "<leader>n"}}`)
	return &listDialog{title: "Keybinds", text: text}
}
