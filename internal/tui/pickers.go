package tui

import (
	"context"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// sessionActions are the session list's keys: rename, delete (pressed
// twice) and fork.
func sessionActions() map[string]func(m *Model, it listItem) tea.Cmd {
	return map[string]func(m *Model, it listItem) tea.Cmd{
		"ctrl+r": func(m *Model, it listItem) tea.Cmd {
			m.dialog.asking = &lineQuestion{label: "New title for " + it.label, value: it.label, item: it,
				done: func(m *Model, it listItem, title string) tea.Cmd {
					if title == "" {
						return m.notify("the title cannot be empty", true)
					}
					id := it.value
					return m.call("renaming the session", "renamed", func(ctx context.Context, c client.Client) error {
						_, err := c.UpdateSession(ctx, id, client.UpdateSessionInput{Title: &title})
						return err
					}, func(m *Model) {
						if m.current(id) {
							m.sess.Title = title
						}
					})
				}}
			return nil
		},
		"ctrl+d": func(m *Model, it listItem) tea.Cmd {
			d := m.dialog
			for i := range d.items {
				if d.items[i].value != it.value {
					continue
				}
				if d.items[i].armed {
					// The second press deletes.
					d.items = append(d.items[:i], d.items[i+1:]...)
					d.sel = min(d.sel, max(len(d.shown())-1, 0))
					id := it.value
					return m.call("deleting the session", "session deleted", func(ctx context.Context, c client.Client) error {
						return c.DeleteSession(ctx, id)
					})
				}
				d.items[i].armed = true
				d.items[i].detail = "press Ctrl+D again to delete"
			}
			return nil
		},
		"ctrl+f": func(m *Model, it listItem) tea.Cmd {
			m.dialog = nil
			id := it.value
			c, ctx := m.c, m.ctx
			return func() tea.Msg {
				s, err := c.ForkSession(ctx, id, client.ForkSessionInput{})
				if err != nil {
					return sessionMsg{err: err}
				}
				msgs, err := c.Messages(ctx, s.ID, client.MessagesOptions{Limit: pageMessages})
				return sessionMsg{sess: s, msgs: msgs, err: err}
			}
		},
	}
}

// openAgents lists the primary agents to answer the next prompts.
func (m *Model) openAgents() tea.Cmd {
	d := &listDialog{title: "Agents", pick: func(m *Model, it listItem) tea.Cmd {
		m.agent = it.value
		return m.notify("agent: "+it.value, false)
	}}
	for _, a := range m.agents {
		if !a.Primary() || a.Hidden {
			continue
		}
		if a.Name == m.agent {
			d.sel = len(d.items)
		}
		d.items = append(d.items, listItem{label: a.Name, detail: a.Description, value: a.Name})
	}
	if len(d.items) == 0 {
		d.text = []string{"No primary agent is available."}
	}
	m.dialog = d
	return nil
}

// openThemes lists the themes: the fixed ones, then those of theme
// files by name. Moving through the list shows each at once; Esc goes
// back to the theme in use before.
func (m *Model) openThemes() tea.Cmd {
	before := m.themeChoice
	d := &listDialog{title: "Theme", pick: func(m *Model, it listItem) tea.Cmd {
		m.setTheme(it.value)
		return m.notify("theme: "+it.value, false)
	}, preview: func(m *Model, it listItem) { m.setTheme(it.value) },
		cancel: func(m *Model) { m.setTheme(before) }}
	current := m.themeChoice
	if current == "" {
		current = "auto"
	}
	for _, name := range []string{"auto", "dark", "light", "plain"} {
		if name == current {
			d.sel = len(d.items)
		}
		d.items = append(d.items, listItem{label: name, detail: fixedThemes[name], value: name})
	}
	names := make([]string, 0, len(m.themes))
	for name := range m.themes {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == current {
			d.sel = len(d.items)
		}
		detail := m.themes[name].source
		if strings.HasPrefix(detail, "built-in") {
			detail = "built-in"
		}
		d.items = append(d.items, listItem{label: name, detail: detail, value: name})
	}
	m.dialog = d
	return nil
}

// setTheme switches to the named theme; auto follows the background
// the terminal reported. NO_COLOR always wins. A name no theme has gives
// the default theme.
func (m *Model) setTheme(name string) {
	m.themeChoice = name
	dark := m.darkBackground
	switch name {
	case "dark":
		dark = true
	case "light":
		dark = false
	}
	if t, ok := m.themes[name]; ok && !m.noColor {
		m.theme = themeFromColors(name, t.colors(dark), dark).withProject(m.opts.Dir, m.tabs)
	} else {
		m.theme = newTheme(m.noColor || name == "plain", dark).withProject(m.opts.Dir, m.tabs)
	}
	m.themeTag++
	m.input.SetStyles(inputStyles(m.theme))
}
