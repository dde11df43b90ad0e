package tui

import (
	"context"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestLiveConnect stores a provider's key from /connect over the
// in-process client: the key lands in auth.json, not on the screen, and
// the models picker opens on the provider's models; picking one makes it
// the model in use.
func TestLiveConnect(t *testing.T) {
	c, proj := liveClient(t, "", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, Options{Client: c, NoColor: true})
	m.Update(resize(100, 30))
	p := newPump(t, m)
	p.until("the view to load", m.Init(), func(m *Model) bool { return m.loaded })
	m.slash("connect", "")
	if !shows("Connect a provider", "Anthropic", "OpenRouter", "auth.json")(m) {
		t.Fatalf("the providers:\n%s", screen(m))
	}
	p.typed("deeps")
	p.keys("enter")
	if !shows("API key for DeepSeek")(m) {
		t.Fatalf("the key's field:\n%s", screen(m))
	}
	m.Update(tea.PasteMsg{Content: "sk-secret-123\n"})
	if s := screen(m); strings.Contains(s, "sk-secret") || !strings.Contains(s, "•••••••••••••") {
		t.Fatalf("the key is not hidden:\n%s", s)
	}
	p.until("the provider's models", p.keys("enter"), shows("Models of deepseek", "deepseek/"))
	b, err := os.ReadFile(proj.Dirs.Auth())
	if err != nil || !strings.Contains(string(b), `"sk-secret-123"`) {
		t.Fatalf("auth.json = %s, %v", b, err)
	}
	p.keys("enter")
	if m.model == nil || m.model.ProviderID != "deepseek" {
		t.Errorf("the model in use is %v, want one of deepseek's", m.model)
	}
}

// TestConnectOtherProvider: an id typed that is not listed is offered
// as it is.
func TestConnectOtherProvider(t *testing.T) {
	m := testModel(t, 80, 24)
	m.slash("connect", "")
	send(m, typedKeys("fireworks")...)
	if s := screen(m); !strings.Contains(s, "fireworks") || !strings.Contains(s, "another provider's id") {
		t.Fatalf("the typed id is not offered:\n%s", s)
	}
	send(m, keyPress("enter"))
	if s := screen(m); !strings.Contains(s, "API key for fireworks") {
		t.Errorf("the key's field:\n%s", s)
	}
}

// TestNoModelOffersConnect: with no usable model the status line says
// so from the start and names /connect.
func TestNoModelOffersConnect(t *testing.T) {
	m := New(context.Background(), Options{NoColor: true})
	m.Update(resize(100, 30))
	m.Update(loadedMsg{})
	if s := screen(m); !strings.Contains(s, "no model: /connect adds a provider's key") {
		t.Errorf("the status line:\n%s", s)
	}
}
