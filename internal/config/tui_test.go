package config

import (
	"errors"
	"strings"
	"testing"
)

// TestTUIKey: the tui key takes a theme among the known names, a mouse
// switch and the scrollback switch, with their defaults when unset;
// OpenCode's own interface settings under the same key still load.
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
		{name: "the old top-level theme is ignored", text: `{"theme": "tokyonight"}`, mouse: true},
		{name: "unknown theme", text: `{"tui": {"theme": "tokyonight"}}`, errSub: `tui.theme: want one of auto, dark, light, plain, got "tokyonight"`},
		{name: "theme not a string", text: `{"tui": {"theme": 3}}`, errSub: "tui.theme: want one of auto, dark, light, plain, got a number"},
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
			if cfg.TUI.Theme != tt.theme || cfg.TUI.MouseOn() != tt.mouse || cfg.TUI.ScrollbackOnExitOn() != tt.scrollback {
				t.Errorf("theme %q, mouse %v, scrollback %v; want %q, %v, %v", cfg.TUI.Theme, cfg.TUI.MouseOn(),
					cfg.TUI.ScrollbackOnExitOn(), tt.theme, tt.mouse, tt.scrollback)
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
