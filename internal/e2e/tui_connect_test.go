package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIConnect adds a provider's key from /connect in a terminal: the
// key is drawn as dots, lands in auth.json where codeloop auth login
// keeps it (auth list names it), and the models picker that follows sets
// the provider's model on the status line.
func TestTUIConnect(t *testing.T) {
	tm := newTmux(t)
	p := newProject(t, "", nil)
	status := filepath.Join(t.TempDir(), "status")
	tm.start("c", p.dir, p.commandLine(status), 100, 30)
	tm.waitFor("c", "new session", "fake/model")
	tm.typeText("c", "/conn")
	tm.waitFor("c", "/connect ")
	tm.keys("c", "Tab")
	tm.waitFor("c", "> /connect")
	tm.keys("c", "Enter")
	tm.waitFor("c", "Connect a provider", "OpenRouter")
	tm.typeText("c", "deeps")
	tm.waitFor("c", "DeepSeek")
	tm.keys("c", "Enter")
	tm.waitFor("c", "API key for DeepSeek")
	tm.paste("c", "sk-e2e-secret")
	screen := tm.waitFor("c", "•••••••••••••")
	if strings.Contains(screen, "sk-e2e") {
		t.Fatalf("the key is on the screen:\n%s", screen)
	}
	tm.keys("c", "Enter")
	tm.waitFor("c", "Models of deepseek", "the key for deepseek is stored")
	tm.keys("c", "Enter")
	tm.waitFor("c", "build · deepseek/")
	tm.keys("c", "C-c")
	if code := tm.exited("c", status); code != "0" {
		t.Errorf("exit status %s", code)
	}
	b, err := os.ReadFile(filepath.Join(p.home, ".local/share/codeloop/auth.json"))
	if err != nil || !strings.Contains(string(b), `"sk-e2e-secret"`) {
		t.Errorf("auth.json = %s, %v", b, err)
	}
	if out, err := p.command(t.Context(), "auth", "list").CombinedOutput(); err != nil || !strings.Contains(string(out), "deepseek") {
		t.Errorf("auth list: %v\n%s", err, out)
	}
}

// TestTUIThemeFile starts the interface with a theme file of OpenCode's
// format named by tui.theme and the keybinds of OpenCode's older
// top-level key: the screen is drawn in the file's colour, the leader
// set there works, and /theme lists the file's theme.
func TestTUIThemeFile(t *testing.T) {
	tm := newTmux(t)
	p := newProject(t, "", nil)
	dir := filepath.Join(p.home, ".config", "opencode", "themes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	theme := `{"defs": {"pink": "#ff00af"}, "theme": {"primary": "pink", "accent": "pink", "secondary": "pink", "text": "pink"}}`
	if err := os.WriteFile(filepath.Join(dir, "e2epink.json"), []byte(theme), 0o644); err != nil {
		t.Fatal(err)
	}
	p.writeConfig(`{"tui": {"theme": "e2epink"}, "keybinds": {"leader": "ctrl+a"}}`)
	status := filepath.Join(t.TempDir(), "status")
	tm.start("t", p.dir, p.commandLine(status), 100, 30)
	tm.waitFor("t", "new session", "fake/model")
	colored := tm.run("capture-pane", "-p", "-e", "-t", "t")
	if !strings.Contains(colored, "38;2;255;0;175") && !strings.Contains(colored, "38;5;199") {
		t.Errorf("nothing is drawn in the theme file's colour:\n%q", colored)
	}
	if s := tm.screen("t"); strings.Contains(s, "no theme is named") {
		t.Errorf("the theme file was not found:\n%s", s)
	}
	tm.keys("t", "C-a")
	tm.keys("t", "t")
	tm.waitFor("t", "e2epink")
	tm.keys("t", "Escape")
	waitGone(tm, "t", "e2epink")
	tm.keys("t", "C-c")
	if code := tm.exited("t", status); code != "0" {
		t.Errorf("exit status %s", code)
	}
}
