package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// keyModel is testModel with keybinds from a config.
func keyModel(t *testing.T, w, h int, binds map[string]string) *Model {
	t.Helper()
	m := New(context.Background(), Options{Keybinds: binds, Now: func() time.Time { return clock }})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	tm := testModel(t, w, h)
	m.Update(loadedMsg{agents: tm.agents, catalog: tm.catalog, commands: tm.commands})
	return m
}

func TestNormKey(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"ctrl+x", "ctrl+x"}, {"<leader>n", "<leader>n"}, {"<leader> N", "<leader>n"}, {"escape", "esc"},
		{"pageup", "pgup"}, {"shift+return", "shift+enter"}, {"alt+ctrl+b", "ctrl+alt+b"}, {"none", ""},
	} {
		if got, err := normKey(tt.in); err != nil || got != tt.want {
			t.Errorf("normKey(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := normKey("hyperdrive+x"); err == nil {
		t.Error("an unknown modifier was taken")
	}
}

// TestLeaderKeys: the default leader and one from the config start
// two-key bindings; the leader's second key that is bound to nothing
// says so.
func TestLeaderKeys(t *testing.T) {
	tests := []struct {
		name   string
		binds  map[string]string
		leader tea.KeyPressMsg
		newKey string
	}{
		{"default", nil, keyPress("ctrl+x"), "n"},
		{"configured", map[string]string{"leader": "ctrl+a", "session_new": "<leader>k"}, keyPress("ctrl+a"), "k"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := keyModel(t, 200, 40, tt.binds)
			m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(2)})
			// <leader>b hides the sidebar a 200-column view shows.
			if !m.sidebarShown() {
				t.Fatal("no sidebar at 200 columns")
			}
			send(m, tt.leader, keyPress("b"))
			if m.sidebarShown() || m.input.Value() != "" {
				t.Errorf("after <leader>b: sidebar %v, editor %q", m.sidebarShown(), m.input.Value())
			}
			send(m, tt.leader, keyPress(tt.newKey))
			if m.sess != nil || m.input.Value() != "" {
				t.Errorf("after <leader>%s: session %v, editor %q", tt.newKey, m.sess, m.input.Value())
			}
			send(m, tt.leader, keyPress("z"))
			if s := screen(m); !strings.Contains(s, "z is bound to nothing") {
				t.Errorf("an unbound second key:\n%s", s)
			}
			// Without the leader the letters are typed.
			send(m, keyPress("b"), keyPress(tt.newKey))
			if got := m.input.Value(); got != "b"+tt.newKey {
				t.Errorf("typed %q", got)
			}
		})
	}
}

// TestKeybindProblems: conflicts and unknown names are said on the
// status line at start and listed by /keybinds.
func TestKeybindProblems(t *testing.T) {
	m := keyModel(t, 120, 40, map[string]string{"session_list": "ctrl+p", "model_list": "ctrl+p", "no_such_thing": "ctrl+k"})
	status := lines(screen(m))[39]
	if !strings.Contains(status, "keybinds:") {
		t.Errorf("status line: %q", status)
	}
	send(m, typedKeys("/keybinds")...)
	send(m, keyPress("enter"))
	for range 10 {
		send(m, keyPress("pgdown"))
	}
	got := screen(m)
	for _, want := range []string{"ctrl+p is bound to both session_list and model_list; session_list keeps it", "unknown keybind no_such_thing", "session_list takes ctrl+p from command_list"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if a, ok := m.keys.lookup("ctrl+p", false); !ok || a.id != "session_list" {
		t.Errorf("ctrl+p runs %q", a.id)
	}
}

// TestKeybindsList: /keybinds lists every action with its keys.
func TestKeybindsList(t *testing.T) {
	m := keyModel(t, 120, 80, map[string]string{"leader": "ctrl+a"})
	send(m, typedKeys("/keybinds")...)
	send(m, keyPress("enter"))
	got := screen(m)
	for _, want := range []string{"leader                   ctrl+a", "session_new              ctrl+a n ", "command_list             ctrl+p ", "tool_details             none "} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}

// TestPalette: Ctrl+P lists the actions with their keys; typing filters
// fuzzily; Enter runs the choice.
func TestPalette(t *testing.T) {
	m := testModel(t, 80, 24)
	m.Update(sessionMsg{sess: goldenSession(), msgs: longSession(2)})
	send(m, keyPress("ctrl+p"))
	if m.dialog == nil || m.dialog.title != "Commands" {
		t.Fatalf("ctrl+p opened %v", m.dialog)
	}
	got := screen(m)
	if !strings.Contains(got, "New session") || !strings.Contains(got, "ctrl+x n") {
		t.Errorf("palette:\n%s", got)
	}
	send(m, typedKeys("nwses")...)
	items := m.dialog.shown()
	if len(items) == 0 || items[0].label != "New session" {
		t.Fatalf("nwses matched %v", items)
	}
	send(m, keyPress("enter"))
	if m.sess != nil || m.dialog != nil {
		t.Errorf("the choice did not run: session %v, dialog %v", m.sess, m.dialog)
	}
	send(m, keyPress("ctrl+p"))
	send(m, typedKeys("greet")...)
	send(m, keyPress("enter"))
	if got := m.input.Value(); got != "/greet " {
		t.Errorf("a command with arguments put %q in the editor", got)
	}
}

// TestOpenCodeTUIJSON: the keybinds of OpenCode's tui.json files (the
// user's, then the project's) are honoured, codeloop's config over them;
// a broken file is reported.
func TestOpenCodeTUIJSON(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "opencode", "tui.json"), `{
  // OpenCode's interface settings
  "$schema": "https://opencode.ai/tui.json",
  "keybinds": {"leader": "ctrl+a", "session_new": "<leader>k", "model_list": "<leader>j", "theme_list": false,},
}`)
	writeFile(t, filepath.Join(dir, ".opencode", "tui.json"), `{"keybinds": {"model_list": "<leader>o"}}`)
	env := map[string]string{"XDG_CONFIG_HOME": home}
	m := New(context.Background(), Options{Dir: dir, Keybinds: map[string]string{"session_list": "<leader>s"},
		Getenv: func(k string) string { return env[k] }})
	for id, want := range map[string]string{"session_new": "ctrl+a k", "model_list": "ctrl+a o", "session_list": "ctrl+a s", "theme_list": ""} {
		if got := m.keys.keysOf(id); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if len(m.keys.problems) > 0 {
		t.Errorf("problems: %q", m.keys.problems)
	}
	writeFile(t, filepath.Join(dir, ".opencode", "tui.json"), `{"keybinds": `)
	m = New(context.Background(), Options{Dir: dir, Getenv: func(k string) string { return env[k] }})
	if len(m.keys.problems) != 1 || !strings.Contains(m.keys.problems[0], "tui.json") {
		t.Errorf("problems: %q", m.keys.problems)
	}
}
