package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxTerm drives the real binary in a terminal: a tmux server on a
// private socket, so the test neither sees nor touches the user's.
type tmuxTerm struct {
	t      *testing.T
	socket string
}

func newTmux(t *testing.T) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed, so the interface cannot be driven in a terminal: install tmux to run this test")
	}
	tm := &tmuxTerm{t: t, socket: fmt.Sprintf("codeloop-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

func (tm *tmuxTerm) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// start runs command (a shell command line) in a new window of w×h cells
// in dir.
func (tm *tmuxTerm) start(name, dir, command string, w, h int) {
	tm.t.Helper()
	tm.run("new-session", "-d", "-s", name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-c", dir, command)
	tm.run("set-option", "-t", name, "remain-on-exit", "on")
}

// screen is the text of the window.
func (tm *tmuxTerm) screen(name string) string {
	return tm.run("capture-pane", "-p", "-t", name)
}

// waitFor waits until the screen shows every one of want.
func (tm *tmuxTerm) waitFor(name string, want ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tm.screen(name)
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen never showed %q:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (tm *tmuxTerm) keys(name string, keys ...string) {
	tm.t.Helper()
	tm.run(append([]string{"send-keys", "-t", name}, keys...)...)
}

func (tm *tmuxTerm) typeText(name, text string) {
	tm.t.Helper()
	tm.run("send-keys", "-t", name, "-l", text)
}

// paste pastes text as a terminal does with bracketed paste.
func (tm *tmuxTerm) paste(name, text string) {
	tm.t.Helper()
	tm.run("set-buffer", "-b", "e2e", text)
	tm.run("paste-buffer", "-p", "-b", "e2e", "-t", name)
}

// dead reports whether the window's program has exited, and its status.
func (tm *tmuxTerm) dead(name string) (bool, string) {
	out := strings.Fields(tm.run("display-message", "-p", "-t", name, "#{pane_dead} #{pane_dead_status}"))
	if len(out) == 0 || out[0] != "1" {
		return false, ""
	}
	if len(out) > 1 {
		return true, out[1]
	}
	return true, ""
}

// commandLine is a shell command that runs codeloop with the project's
// environment only.
func (p *project) commandLine(args ...string) string {
	var b strings.Builder
	b.WriteString("env -i")
	for _, kv := range append(p.env(), "TERM=xterm-256color", "LANG=C.UTF-8") {
		b.WriteString(" " + shellQuote(kv))
	}
	b.WriteString(" " + shellQuote(binary))
	for _, a := range args {
		b.WriteString(" " + shellQuote(a))
	}
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestTUI drives the interface in a terminal: a prompt typed and
// answered, a pasted prompt whose shell command is approved in the
// permission dialog, a quit, and codeloop -c showing the transcript again.
func TestTUI(t *testing.T) {
	tm := newTmux(t)
	script := `
step
text Hello from the fake model.
finish stop input=1000 output=10
step
call call_1 bash {"command":"echo approved > proof.txt"}
finish tool-calls
step
text The proof file is written.
finish stop input=2000 output=10
`
	p := newProject(t, script, nil)
	if err := os.WriteFile(filepath.Join(p.dir, "codeloop.json"), []byte(`{"permission": {"bash": "ask"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tm.start("first", p.dir, p.commandLine(), 100, 30)
	tm.waitFor("first", "new session", "build", "fake/model")

	tm.typeText("first", "say hello")
	tm.keys("first", "Enter")
	tm.waitFor("first", "┃ say hello", "Hello from the fake model.", "1% context")

	tm.paste("first", "write the proof\nfile please")
	tm.waitFor("first", "write the proof", "file please")
	tm.keys("first", "Enter")
	scr := tm.waitFor("first", "Permission needed: bash", "Run echo approved > proof.txt", "Allow once")
	if _, err := os.Stat(filepath.Join(p.dir, "proof.txt")); err == nil {
		t.Fatalf("the command ran before it was approved:\n%s", scr)
	}
	tm.keys("first", "Enter") // Allow once is selected
	tm.waitFor("first", "The proof file is written.", "$ echo approved > proof.txt")
	if b, err := os.ReadFile(filepath.Join(p.dir, "proof.txt")); err != nil || string(b) != "approved\n" {
		t.Fatalf("proof.txt: %q, %v", b, err)
	}

	tm.keys("first", "C-c")
	deadline := time.Now().Add(15 * time.Second)
	for {
		dead, status := tm.dead("first")
		if dead {
			if status != "0" {
				t.Fatalf("codeloop exited with status %s:\n%s", status, tm.screen("first"))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("codeloop did not quit on Ctrl+C:\n%s", tm.screen("first"))
		}
		time.Sleep(50 * time.Millisecond)
	}

	tm.start("second", p.dir, p.commandLine("-c"), 100, 30)
	tm.waitFor("second", "Greeting change", "┃ say hello", "Hello from the fake model.", "┃ write the proof",
		"$ echo approved > proof.txt", "The proof file is written.")

	// SIGTERM ends the interface with the status shells expect, and the
	// terminal is given back: the interface's screen is gone.
	pid := strings.TrimSpace(tm.run("display-message", "-p", "-t", "second", "#{pane_pid}"))
	if out, err := exec.Command("kill", "-TERM", pid).CombinedOutput(); err != nil {
		t.Fatalf("kill %s: %v %s", pid, err, out)
	}
	deadline = time.Now().Add(15 * time.Second)
	for {
		if dead, status := tm.dead("second"); dead {
			if status != "143" {
				t.Errorf("exit status %s after SIGTERM, want 143", status)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("codeloop did not end on SIGTERM:\n%s", tm.screen("second"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s := tm.screen("second"); strings.Contains(s, "build · fake/model") {
		t.Errorf("the interface is still on screen after it ended:\n%s", s)
	}
}
