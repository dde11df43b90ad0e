package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/waitfor"
)

// TestTUIKeybinds drives the leader keys in a terminal: the default
// leader (Ctrl+X) and one set in the config (Ctrl+A) with bindings of its
// own, a conflict said on the status line at start, and the command
// palette.
func TestTUIKeybinds(t *testing.T) {
	script := "step\ntext Hello.\nfinish stop input=1000 output=10\n"
	t.Run("default leader", func(t *testing.T) {
		tm := newTmux(t)
		p := newProject(t, script, nil)
		status := filepath.Join(t.TempDir(), "status")
		tm.start("k", p.dir, p.commandLine(status), 120, 35)
		tm.waitFor("k", "new session", "build", "fake/model")
		tm.keys("k", "C-x")
		tm.keys("k", "b")
		tm.waitFor("k", "Context", "nothing sent yet", "$0.00 spent")
		tm.keys("k", "C-x")
		tm.keys("k", "l")
		tm.waitFor("k", "Sessions", "No sessions yet in this project.")
		tm.keys("k", "Escape")
		waitGone(tm, "k", "No sessions yet")
		tm.keys("k", "C-p")
		tm.waitFor("k", "Commands", "New session", "ctrl+x n")
		tm.typeText("k", "keybinds")
		tm.keys("k", "Enter")
		tm.waitFor("k", "Keybinds", "session_new", "ctrl+x n")
		tm.keys("k", "Escape")
		waitGone(tm, "k", "session_new")
		tm.keys("k", "C-c")
		if code := tm.exited("k", status); code != "0" {
			t.Errorf("exit status %s", code)
		}
	})
	t.Run("configured leader", func(t *testing.T) {
		tm := newTmux(t)
		p := newProject(t, script, nil)
		cfg := `{"tui": {"keybinds": {"leader": "ctrl+a", "session_list": "<leader>k", "sidebar_toggle": "<leader>s", "model_list": "ctrl+p"}}}`
		if err := os.WriteFile(filepath.Join(p.dir, "codeloop.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		status := filepath.Join(t.TempDir(), "status")
		tm.start("k", p.dir, p.commandLine(status), 120, 35)
		tm.waitFor("k", "keybinds: model_list takes ctrl+p from command_list")
		tm.keys("k", "C-a")
		tm.keys("k", "k")
		tm.waitFor("k", "Sessions", "No sessions yet in this project.")
		tm.keys("k", "Escape")
		waitGone(tm, "k", "No sessions yet")
		tm.keys("k", "C-a")
		tm.keys("k", "s")
		tm.waitFor("k", "Context", "$0.00 spent")
		// Ctrl+X is no leader now: its second key is typed.
		tm.keys("k", "C-x")
		tm.keys("k", "l")
		tm.waitFor("k", "> l")
		tm.keys("k", "C-c", "C-c")
		if code := tm.exited("k", status); code != "0" {
			t.Errorf("exit status %s", code)
		}
	})
}

// waitGone waits until the screen no longer shows s: a key sent right
// after Escape would otherwise reach the program with it, as Alt+key.
func waitGone(tm *tmuxTerm, name, s string) {
	tm.t.Helper()
	if !waitfor.Within(waitfor.Deadline, func() bool { return !strings.Contains(tm.screen(name), s) }) {
		tm.t.Fatalf("the screen still shows %q:\n%s", s, tm.screen(name))
	}
}
