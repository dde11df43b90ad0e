package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// startInTmux runs codeloop on p in a tmux window that codeloop knows to
// be inside tmux (its TMUX names the private server), so copies go to
// that server's buffer.
func startInTmux(tm *tmuxTerm, p *project, name, status string, args ...string) {
	tm.t.Helper()
	tm.start(name, p.dir, "sleep 600", 100, 30)
	socket := strings.TrimSpace(tm.run("display-message", "-p", "-t", name, "#{socket_path}"))
	line := strings.Replace(p.commandLine(status, args...), "env -i", "env -i "+shellQuote("TMUX="+socket+",0,0"), 1)
	tm.run("respawn-pane", "-k", "-t", name, line)
	tm.waitFor(name, "build")
}

// TestTUISearch: Ctrl+F and a word typed find it in the transcript,
// scroll to the newest match, highlight it and count the matches; n
// moves to the older one; Esc closes the bar.
func TestTUISearch(t *testing.T) {
	tm := newTmux(t)
	script := "step\ntext The greeting is printed by greet.go.\nfinish stop input=1000 output=10\n"
	for range 8 {
		script += "step\ntext Nothing to see here, only filler.\nfinish stop input=1000 output=10\n"
	}
	p := newProject(t, script, nil)
	status := filepath.Join(t.TempDir(), "status")
	startInTmux(tm, p, "f", status)
	tm.typeText("f", "where is the Greeting printed?")
	tm.keys("f", "Enter")
	tm.waitFor("f", "The greeting is printed by greet.go.")
	for i := range 8 {
		tm.typeText("f", "filler question "+string(rune('a'+i)))
		tm.keys("f", "Enter")
		tm.waitFor("f", "┃ filler question "+string(rune('a'+i)))
	}
	tm.waitFor("f", "┃ filler question h", "Nothing to see here")
	if strings.Contains(tm.screen("f"), "greet.go") {
		t.Fatalf("the first answer is still on screen; the test needs it scrolled away:\n%s", tm.screen("f"))
	}

	tm.keys("f", "C-f")
	tm.waitFor("f", "Find:")
	tm.typeText("f", "greeting")
	// The whole query in the bar: the keys are typed one at a time, and a
	// part of it ("greeti") already finds both matches.
	tm.waitFor("f", "Find: greeting ", "1 of 2", "The greeting is printed by greet.go.")
	// The current match is drawn on a background of its own.
	styled := tm.run("capture-pane", "-p", "-e", "-t", "f")
	if !regexp.MustCompile(`\x1b\[(?:[0-9]+;)*(?:48;5;[0-9]+|48;2;[0-9]+;[0-9]+;[0-9]+|4[0-7])(?:;[0-9]+)*mgreeting`).MatchString(styled) {
		t.Errorf("the match is not highlighted:\n%q", styled)
	}
	tm.keys("f", "Enter")
	tm.keys("f", "n")
	tm.waitFor("f", "2 of 2", "┃ where is the Greeting printed?")
	tm.keys("f", "Escape")
	scr := tm.waitFor("f", "build · fake/model")
	if strings.Contains(scr, "Find:") {
		t.Errorf("Esc left the search bar:\n%s", scr)
	}
	tm.keys("f", "C-c")
	if code := tm.exited("f", status); code != "0" {
		t.Errorf("exit status %s", code)
	}
}

// TestTUISelectCopy: Ctrl+S selects the newest message, Shift+Up
// extends the selection to the message before, and y copies both: the
// tmux buffer holds the two.
func TestTUISelectCopy(t *testing.T) {
	tm := newTmux(t)
	p := newProject(t, "step\ntext Hello from the fake model.\nfinish stop input=1000 output=10\n", nil)
	status := filepath.Join(t.TempDir(), "status")
	startInTmux(tm, p, "s", status)
	tm.typeText("s", "say hello")
	tm.keys("s", "Enter")
	tm.waitFor("s", "┃ say hello", "Hello from the fake model.")

	tm.keys("s", "C-s")
	tm.waitFor("s", "1 message selected")
	tm.keys("s", "S-Up")
	tm.waitFor("s", "2 messages selected")
	tm.keys("s", "y")
	tm.waitFor("s", "copied 2 messages with the tmux buffer")
	buf, err := exec.Command("tmux", "-L", tm.socket, "show-buffer").Output()
	if err != nil || string(buf) != "say hello\n\nHello from the fake model." {
		t.Errorf("the tmux buffer holds %q (%v)", buf, err)
	}
	tm.keys("s", "C-c")
	if code := tm.exited("s", status); code != "0" {
		t.Errorf("exit status %s", code)
	}
}

// TestTUIScrollbackAndMouse: /scrollback writes the transcript to the
// terminal's normal screen, where tmux's history keeps it, and
// scrollback_on_exit writes it again on quitting; "mouse": false leaves
// the mouse to the terminal, which the default does not.
func TestTUIScrollbackAndMouse(t *testing.T) {
	tm := newTmux(t)
	p := newProject(t, "step\ntext Hello from the fake model.\nfinish stop input=1000 output=10\n", nil)
	status := filepath.Join(t.TempDir(), "status")

	// By default the interface asks for mouse reports.
	tm.start("d", p.dir, p.commandLine(status+"d"), 100, 30)
	tm.waitFor("d", "build · fake/model")
	if f := strings.TrimSpace(tm.run("display-message", "-p", "-t", "d", "#{mouse_button_flag}")); f != "1" {
		t.Errorf("the default interface does not capture the mouse (mouse_button_flag %q)", f)
	}
	tm.keys("d", "C-c")
	tm.exited("d", status+"d")

	if err := os.WriteFile(filepath.Join(p.dir, "codeloop.json"), []byte(`{"tui": {"mouse": false, "scrollback_on_exit": true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tm.start("s", p.dir, p.commandLine(status), 100, 30)
	tm.waitFor("s", "build · fake/model")
	if f := strings.TrimSpace(tm.run("display-message", "-p", "-t", "s", "#{mouse_button_flag}#{mouse_any_flag}")); f != "00" {
		t.Errorf(`with "mouse": false the interface still captures the mouse (flags %q)`, f)
	}
	tm.typeText("s", "say hello")
	tm.keys("s", "Enter")
	tm.waitFor("s", "┃ say hello", "Hello from the fake model.")
	tm.typeText("s", "/scrollback ")
	tm.keys("s", "Enter")
	tm.waitFor("s", "lines of the transcript to the terminal's scrollback")
	tm.keys("s", "C-c")
	if code := tm.exited("s", status); code != "0" {
		t.Fatalf("exit status %s", code)
	}
	// The normal screen and its history: the transcript twice, once from
	// /scrollback, once on quitting.
	normal := tm.run("capture-pane", "-p", "-S", "-200", "-t", "s")
	if n := strings.Count(normal, "┃ say hello"); n != 2 || strings.Count(normal, "Hello from the fake model.") != 2 {
		t.Errorf("the normal screen holds the transcript %d times, want 2:\n%s", n, normal)
	}
}
