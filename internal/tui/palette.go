package tui

import (
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// openPalette opens the command palette: every action with its keys,
// then the slash commands no action covers, filtered fuzzily as one
// types.
func (m *Model) openPalette() tea.Cmd {
	d := &listDialog{title: "Commands", fuzzy: true, pick: func(m *Model, it listItem) tea.Cmd {
		return m.runPaletteItem(it.value)
	}}
	covered := map[string]bool{}
	for _, a := range m.keys.acts {
		if a.id == "command_list" {
			continue
		}
		d.items = append(d.items, listItem{label: a.title, detail: m.keys.keysOf(a.id), value: "action:" + a.id})
		if cmd, ok := strings.CutPrefix(actionCommand(a.id), "/"); ok {
			covered[cmd] = true
		}
	}
	for _, c := range append(builtinCommands(), m.commands...) {
		if covered[c.Name] {
			continue
		}
		d.items = append(d.items, listItem{label: "/" + c.Name + " · " + c.Description, value: "/" + c.Name})
	}
	m.dialog = d
	return nil
}

// actionCommand is the slash command an action runs, "" when it runs
// none.
func actionCommand(id string) string {
	switch id {
	case "session_new":
		return "/new"
	case "session_list":
		return "/sessions"
	case "model_list":
		return "/models"
	case "agent_list":
		return "/agents"
	case "theme_list":
		return "/theme"
	case "session_compact":
		return "/compact"
	case "session_export":
		return "/export"
	case "messages_undo":
		return "/undo"
	case "messages_redo":
		return "/redo"
	case "messages_copy":
		return "/copy"
	case "messages_search":
		return "/search"
	case "messages_select":
		return "/select"
	case "tool_details":
		return "/details"
	case "thinking_toggle":
		return "/thinking"
	case "keybinds_show":
		return "/keybinds"
	case "help_show":
		return "/help"
	case "app_exit":
		return "/exit"
	}
	return ""
}

// runPaletteItem runs what the palette chose: an action, or a slash
// command (one that takes arguments is put in the editor to complete).
func (m *Model) runPaletteItem(value string) tea.Cmd {
	if id, ok := strings.CutPrefix(value, "action:"); ok {
		for _, a := range m.keys.acts {
			if a.id == id {
				return a.run(m)
			}
		}
		return nil
	}
	name := strings.TrimPrefix(value, "/")
	for _, c := range append(builtinCommands(), m.commands...) {
		if c.Name == name && len(c.Hints) > 0 {
			m.input.SetValue("/" + name + " ")
			m.layout()
			return nil
		}
	}
	return m.slash(name, "")
}

// fuzzyItems returns the items matching filter, best first (the list's
// order among equals).
func fuzzyItems(items []listItem, filter string) []listItem {
	type scored struct {
		it    listItem
		score int
	}
	var hits []scored
	for _, it := range items {
		best, any := 0, false
		for _, s := range []string{it.label, strings.TrimPrefix(it.value, "action:")} {
			if sc := fuzzyScore(s, filter); sc >= 0 && (!any || sc > best) {
				best, any = sc, true
			}
		}
		if any {
			hits = append(hits, scored{it, best})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	out := make([]listItem, len(hits))
	for i, h := range hits {
		out[i] = h.it
	}
	return out
}
