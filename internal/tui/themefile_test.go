package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestBuiltinThemes: the built-in theme files parse, and there are at
// least ten, each with a dark and a light variant.
func TestBuiltinThemes(t *testing.T) {
	themes, problems := loadThemes("", "")
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	if len(themes) < 10 {
		t.Fatalf("%d built-in themes", len(themes))
	}
	for name, th := range themes {
		for _, k := range []string{"primary", "text", "textMuted", "error", "success", "diffAdded"} {
			if th.dark[k] == nil || th.light[k] == nil {
				t.Errorf("%s lacks %s", name, k)
			}
		}
	}
}

// themeModel is a view of the project in dir with the theme asked for
// and the user's config in configHome.
func themeModel(t *testing.T, dir, configHome, themeName string) *Model {
	t.Helper()
	env := map[string]string{"XDG_CONFIG_HOME": configHome}
	m := New(context.Background(), Options{Dir: dir, Theme: themeName, Now: func() time.Time { return clock },
		Getenv: func(k string) string { return env[k] }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	tm := testModel(t, 100, 30)
	m.Update(loadedMsg{agents: tm.agents, catalog: tm.catalog, commands: tm.commands})
	return m
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestThemeFiles: a theme file of the user's and one of the project's,
// in OpenCode's format, are offered and used; a broken one is reported
// at start and left out; a theme asked for that none has gives the
// default with a warning.
func TestThemeFiles(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "opencode", "themes", "mine.json"),
		`{"defs": {"pink": "#ff00aa"}, "theme": {"primary": {"dark": "pink", "light": "#aa0077"}, "text": 250}}`)
	writeFile(t, filepath.Join(dir, ".opencode", "themes", "ours.json"),
		`{"theme": {"primary": "#00aaff", "text": {"dark": "none", "light": "#101010"}}}`)
	writeFile(t, filepath.Join(dir, ".opencode", "themes", "broken.json"), `{"theme": {"primary": `)
	writeFile(t, filepath.Join(dir, ".opencode", "themes", "badcolor.json"), `{"theme": {"primary": "nosuchdef"}}`)

	tests := []struct {
		name, theme, colour string // colour: the accent's SGR
		warn                string
	}{
		{"user", "mine", "38;2;255;0;170", "broken.json"},
		{"project", "ours", "38;2;0;170;255", "broken.json"},
		{"missing", "nosuch", "", `no theme is named "nosuch"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := themeModel(t, dir, home, tt.theme)
			status := lines(screen(m))[29]
			if !strings.Contains(strings.Join(m.themeProblems, "\n"), tt.warn) || !strings.HasPrefix(status, "theme: ") {
				t.Errorf("problems %q, status line %q", m.themeProblems, status)
			}
			if !strings.Contains(strings.Join(m.themeProblems, "\n"), "nosuchdef") {
				t.Errorf("the bad colour is not reported: %q", m.themeProblems)
			}
			if tt.colour != "" && !strings.Contains(m.View().Content, tt.colour) {
				t.Errorf("the theme's primary colour %s is not drawn:\n%q", tt.colour, m.View().Content)
			}
			if tt.colour == "" && m.theme.name != "dark" {
				t.Errorf("theme %q, want the default", m.theme.name)
			}
			if _, ok := m.themes["broken"]; ok {
				t.Error("the broken theme is offered")
			}
		})
	}
}

// TestThemePreview: moving through /theme shows each theme at once;
// Esc goes back to the one before, Enter keeps the choice.
func TestThemePreview(t *testing.T) {
	m := themeModel(t, t.TempDir(), t.TempDir(), "")
	send(m, typedKeys("/theme")...)
	send(m, keyPress("enter"))
	if m.dialog == nil || !strings.Contains(screen(m), "nightfall") {
		t.Fatalf("/theme:\n%s", screen(m))
	}
	send(m, typedKeys("nightf")...)
	if m.theme.name != "nightfall" {
		t.Errorf("typing moved to %q", m.theme.name)
	}
	send(m, keyPress("esc"))
	if m.theme.name != "dark" || m.themeChoice != "" {
		t.Errorf("after Esc: %q (%q)", m.theme.name, m.themeChoice)
	}
	send(m, typedKeys("/theme")...)
	send(m, keyPress("enter"))
	send(m, keyPress("down"), keyPress("down"), keyPress("down"), keyPress("down"))
	chosen := m.theme.name
	send(m, keyPress("enter"))
	if m.dialog != nil || m.theme.name != chosen || chosen == "dark" {
		t.Errorf("after Enter: %q, chose %q", m.theme.name, chosen)
	}
}
