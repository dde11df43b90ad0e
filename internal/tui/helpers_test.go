package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/codeloop/codeloop/internal/client"
)

// clock is the fixed time of the tests.
var clock = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testModel returns a view of w×h cells that has loaded two agents and a
// catalog with the model fake/model, and has no client: commands it
// returns are not run.
func testModel(t testing.TB, w, h int) *Model {
	t.Helper()
	return testModelIn(t, "", w, h)
}

// testModelIn is testModel on the project in dir.
func testModelIn(t testing.TB, dir string, w, h int) *Model {
	t.Helper()
	m := New(context.Background(), Options{Dir: dir, Now: func() time.Time { return clock }})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(loadedMsg{
		agents: []client.Agent{{Name: "build", Mode: "primary"}, {Name: "plan", Mode: "primary"}, {Name: "explore", Mode: "subagent"}},
		catalog: client.ModelCatalog{
			Providers: []client.Provider{{ID: "fake", Name: "Fake", Models: []client.Model{{ID: "model", ProviderID: "fake", Name: "Fake", Limit: client.ModelLimit{Context: 100000}}}}},
			Default:   &client.ModelRef{ProviderID: "fake", ModelID: "model"},
		},
		commands: []client.Command{{Name: "greet", Description: "Greets someone", Hints: []string{"$ARGUMENTS"}}},
	})
	return m
}

// screen is the view's text without styles.
func screen(m *Model) string { return ansi.Strip(m.View().Content) }

// send applies msgs in order.
func send(m *Model, msgs ...tea.Msg) {
	for _, msg := range msgs {
		m.Update(msg)
	}
}

func keyPress(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "alt+up":
		return tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt}
	case "alt+down":
		return tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModAlt}
	case "ctrl+o":
		return tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "ctrl+j":
		return tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl}
	case "shift+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	}
	if rest, ok := strings.CutPrefix(s, "ctrl+"); ok && len(rest) == 1 {
		return tea.KeyPressMsg{Code: rune(rest[0]), Mod: tea.ModCtrl}
	}
	r := []rune(s)
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

func lines(s string) []string { return strings.Split(s, "\n") }

func resize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func stripped(s string) string { return ansi.Strip(s) }

// syncBuffer is a buffer written by the program and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
