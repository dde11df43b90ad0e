package config

import (
	"errors"
	"strings"
	"testing"
)

// TestTUIKey: the tui key takes any theme's name, a mouse switch and the
// scrollback switch, with their defaults when unset; OpenCode's own
// interface settings under the same key still load, and so do the
// top-level theme and keybinds of its older files, under tui's.
func TestTUIKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		theme      Theme
		mouse      bool
		scrollback bool
		errSub     string
	}{
		{name: "unset", text: `{}`, mouse: true},
		{name: "all set", text: `{"tui": {"theme": "light", "mouse": false, "scrollback_on_exit": true}}`,
			theme: "light", scrollback: true},
		{name: "plain", text: `{"tui": {"theme": "plain"}}`, theme: "plain", mouse: true},
		{name: "OpenCode's settings", text: `{"tui": {"scroll_speed": 3, "scroll_acceleration": {"enabled": true}, "diff_style": "stacked"}}`, mouse: true},
		{name: "the old top-level theme", text: `{"theme": "tokyonight"}`, theme: "tokyonight", mouse: true},
		{name: "tui's theme wins", text: `{"theme": "tokyonight", "tui": {"theme": "nord"}}`, theme: "nord", mouse: true},
		{name: "any theme's name", text: `{"tui": {"theme": "my-theme-file"}}`, theme: "my-theme-file", mouse: true},
		{name: "an empty theme", text: `{"tui": {"theme": " "}}`, errSub: "tui.theme: want a theme's name"},
		{name: "theme not a string", text: `{"tui": {"theme": 3}}`, errSub: "tui.theme: want a theme's name"},
		{name: "old keybinds not strings", text: `{"keybinds": {"leader": 1}}`, errSub: "keybinds.leader: want a string"},
		{name: "mouse not a boolean", text: `{"tui": {"mouse": "off"}}`, errSub: "tui.mouse: want a boolean"},
		{name: "a typo", text: `{"tui": {"mose": false}}`, errSub: `unknown key "mose" in tui`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.text), ParseOptions{Name: "c.json"})
			if tt.errSub != "" {
				var ce *Error
				if !errors.As(err, &ce) || !strings.Contains(ce.Error(), tt.errSub) {
					t.Fatalf("err = %v, want one saying %q", err, tt.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ui := cfg.Interface()
			if ui.Theme != tt.theme || ui.MouseOn() != tt.mouse || ui.ScrollbackOnExitOn() != tt.scrollback {
				t.Errorf("theme %q, mouse %v, scrollback %v; want %q, %v, %v", ui.Theme, ui.MouseOn(),
					ui.ScrollbackOnExitOn(), tt.theme, tt.mouse, tt.scrollback)
			}
		})
	}
}

// TestTUIKeyMerge: a project's tui settings override the global ones key
// by key.
func TestTUIKeyMerge(t *testing.T) {
	t.Parallel()
	global, err := Parse([]byte(`{"tui": {"theme": "dark", "mouse": false}}`), ParseOptions{Name: "g.json"})
	if err != nil {
		t.Fatal(err)
	}
	project, err := Parse([]byte(`{"tui": {"theme": "light"}}`), ParseOptions{Name: "p.json"})
	if err != nil {
		t.Fatal(err)
	}
	merge(global, project)
	if global.TUI.Theme != "light" || global.TUI.MouseOn() {
		t.Errorf("merged: theme %q, mouse %v; want light, false", global.TUI.Theme, global.TUI.MouseOn())
	}
}

// TestLegacyKeybinds: OpenCode's top-level keybinds reach the interface,
// under those of the tui key.
func TestLegacyKeybinds(t *testing.T) {
	cfg, err := Parse([]byte(`{"keybinds": {"leader": "ctrl+a", "session_new": "<leader>n", "sidebar_toggle": "<leader>s"},
		"tui": {"keybinds": {"sidebar_toggle": "<leader>b"}}}`), ParseOptions{Name: "c.json"})
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Interface().Keybinds
	want := map[string]string{"leader": "ctrl+a", "session_new": "<leader>n", "sidebar_toggle": "<leader>b"}
	if len(got) != len(want) {
		t.Fatalf("keybinds %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
