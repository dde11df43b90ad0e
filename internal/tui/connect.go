package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// connectProviders are the providers /connect offers first; any other
// id can be typed.
var connectProviders = []struct{ id, name string }{
	{"anthropic", "Anthropic"},
	{"openai", "OpenAI"},
	{"google", "Google"},
	{"openrouter", "OpenRouter"},
	{"groq", "Groq"},
	{"deepseek", "DeepSeek"},
	{"xai", "xAI"},
	{"mistral", "Mistral"},
}

// connectedMsg says a key was stored, with the catalog read after it.
type connectedMsg struct {
	provider string
	catalog  client.ModelCatalog
	err      error
}

// openConnect lists providers to store a key for: the popular ones,
// those connected marked so, and any id typed.
func (m *Model) openConnect() tea.Cmd {
	connected := map[string]bool{}
	for _, p := range m.catalog.Providers {
		connected[p.ID] = true
	}
	d := &listDialog{title: "Connect a provider", other: "another provider's id", pick: func(m *Model, it listItem) tea.Cmd {
		return m.askKey(it.value, it.label)
	}}
	for _, p := range connectProviders {
		detail := p.id
		if connected[p.id] {
			detail += " · connected"
		}
		d.items = append(d.items, listItem{label: p.name, detail: detail, value: p.id})
	}
	d.text = []string{"The key is stored in auth.json, as codeloop auth login does."}
	m.dialog = d
	return nil
}

// askKey reads the provider's API key, drawn as dots, and stores it.
func (m *Model) askKey(id, name string) tea.Cmd {
	m.dialog = &listDialog{title: "Connect " + name, asking: &lineQuestion{
		label: "API key for " + name + " (paste it; Enter stores it)", secret: true,
		item: listItem{label: name, value: id},
		done: func(m *Model, it listItem, key string) tea.Cmd {
			if key == "" {
				return m.notify("no key given: nothing stored", true)
			}
			return m.storeKey(it.value, key)
		},
	}}
	return nil
}

// storeKey stores the key and reads the catalog again.
func (m *Model) storeKey(id, key string) tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		if err := c.SetAuth(ctx, id, client.Auth{Type: "api", Key: key}); err != nil {
			return connectedMsg{provider: id, err: err}
		}
		cat, err := c.Models(ctx)
		return connectedMsg{provider: id, catalog: cat, err: err}
	}
}

// connected keeps the new catalog and opens the models picker on the
// provider's models, so the next step is choosing one.
func (m *Model) connected(msg connectedMsg) tea.Cmd {
	if msg.err != nil {
		return m.failed("connecting "+msg.provider, msg.err)
	}
	m.catalog = msg.catalog
	d := modelsDialog(msg.catalog)
	d.filter = msg.provider + "/"
	if len(d.shown()) == 0 {
		return m.notify("the key for "+msg.provider+" is stored, but no model of it is known: name one in the config", true)
	}
	d.title = "Models of " + msg.provider
	m.dialog = d
	return m.notify("the key for "+msg.provider+" is stored: choose a model", false)
}
