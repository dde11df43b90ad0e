package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// TestSessionPicker renames, forks and deletes sessions from the session
// list over the in-process client.
func TestSessionPicker(t *testing.T) {
	c, _ := liveClient(t, "", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := c.CreateSession(ctx, client.CreateSessionInput{Title: "alpha work"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prompt(ctx, a.ID, client.PromptInput{NoReply: true, Parts: []client.PartInput{client.TextInput("remember alpha")}}); err != nil {
		t.Fatal(err)
	}
	b, err := c.CreateSession(ctx, client.CreateSessionInput{Title: "beta work"})
	if err != nil {
		t.Fatal(err)
	}
	m := New(ctx, Options{Client: c, NoColor: true, SessionID: b.ID})
	m.Update(resize(100, 30))
	p := newPump(t, m)
	p.until("the view to load", m.Init(), func(m *Model) bool { return m.loaded })

	// Rename: Ctrl+R, a new title, Enter.
	p.until("the list", p.typed("/sessions"), shows("/sessions"))
	p.until("the session list", p.keys("esc", "enter"), shows("╭─ Sessions", "alpha work", "beta work"))
	p.typed("alpha")
	p.keys("ctrl+r")
	for range len("alpha work") {
		p.keys("backspace")
	}
	p.until("the rename", tea.Batch(p.typed("alpha renamed"), p.keys("enter")), shows("renamed"))
	if got, _ := c.GetSession(ctx, a.ID); got.Title != "alpha renamed" {
		t.Errorf("title after the rename: %q", got.Title)
	}

	// Fork: the copy opens with the messages.
	m.input.Reset()
	p.typed("/sessions")
	p.until("the session list", p.keys("esc", "enter"), shows("alpha renamed"))
	p.typed("alpha")
	p.until("the fork", p.keys("ctrl+f"), func(m *Model) bool {
		return m.sess != nil && m.sess.ID != a.ID && m.sess.ID != b.ID && strings.Contains(screen(m), "remember alpha")
	})

	// Delete: the first Ctrl+D asks, the second deletes.
	m.input.Reset()
	p.typed("/sessions")
	p.until("the session list", p.keys("esc", "enter"), shows("beta work"))
	p.typed("beta")
	p.keys("ctrl+d")
	if !shows("press Ctrl+D again to delete")(m) {
		t.Fatalf("the first Ctrl+D:\n%s", screen(m))
	}
	if _, err := c.GetSession(ctx, b.ID); err != nil {
		t.Fatalf("the first Ctrl+D deleted the session: %v", err)
	}
	p.until("the deletion", p.keys("ctrl+d"), shows("session deleted"))
	if _, err := c.GetSession(ctx, b.ID); err == nil {
		t.Error("the session still exists after the second Ctrl+D")
	}
}

// TestPickers: the model list offers variants, the agent list the
// primary agents, and the theme list switches to no colour.
func TestPickers(t *testing.T) {
	m := testModel(t, 100, 30)
	m.catalog.Providers[0].Models[0].Variants = []string{"high", "low"}
	m.Update(listMsg{dialog: modelsDialog(m.catalog)})
	for _, k := range []string{"h", "i", "g", "h", "enter"} {
		m.Update(keyPress(k))
	}
	if m.model == nil || m.model.Variant != "high" || !strings.Contains(screen(m), "fake/model · high") {
		t.Fatalf("model %+v:\n%s", m.model, screen(m))
	}
	m.slash("agents", "")
	if s := screen(m); !strings.Contains(s, "plan") || strings.Contains(s, "explore") {
		t.Fatalf("the agent list:\n%s", s)
	}
	m.Update(keyPress("down"))
	m.Update(keyPress("enter"))
	if m.agent != "plan" {
		t.Errorf("agent %q after choosing plan", m.agent)
	}
	sessionOpened := sessionMsg{sess: goldenSession(), msgs: []client.Message{userMsg("msg_01", "hello")}}
	m.Update(sessionOpened)
	if !strings.Contains(m.View().Content, "\x1b[") {
		t.Fatal("the default theme has no colour")
	}
	m.slash("theme", "")
	for _, k := range []string{"p", "l", "a", "i", "n", "enter"} {
		m.Update(keyPress(k))
	}
	if got := m.View().Content; strings.Contains(got, "38;2;") || strings.Contains(got, "38;5;") {
		t.Errorf("the plain theme has colour:\n%q", got)
	}
}
