package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/waitfor"
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
	var s string
	if !waitfor.Within(waitfor.Deadline, func() bool {
		s = tm.screen(name)
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}) {
		tm.t.Fatalf("the screen never showed %q:\n%s", want, s)
	}
	return s
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

// exited waits for codeloop in the window to exit and returns its exit
// status, which the shell running it writes to statusFile. (tmux's own
// record of a pane's status is not reliable: it can miss the exit.)
func (tm *tmuxTerm) exited(name, statusFile string) string {
	tm.t.Helper()
	var status string
	if !waitfor.Within(waitfor.Deadline, func() bool {
		b, err := os.ReadFile(statusFile)
		status = strings.TrimSpace(string(b))
		return err == nil && strings.HasSuffix(string(b), "\n")
	}) {
		tm.t.Fatalf("codeloop did not exit in %s:\n%s", name, tm.screen(name))
	}
	return status
}

// pid returns the pid of the program the window's shell runs.
func (tm *tmuxTerm) pid(name string) string {
	tm.t.Helper()
	shell := strings.TrimSpace(tm.run("display-message", "-p", "-t", name, "#{pane_pid}"))
	b, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	if err != nil || len(strings.Fields(string(b))) == 0 {
		tm.t.Fatalf("finding the child of the shell %s: %q %v", shell, b, err)
	}
	return strings.Fields(string(b))[0]
}

// commandLine is a shell command that runs codeloop with the project's
// environment only and writes its exit status to statusFile.
func (p *project) commandLine(statusFile string, args ...string) string {
	var b strings.Builder
	b.WriteString("env -i")
	for _, kv := range append(p.env(), "TERM=xterm-256color", "LANG=C.UTF-8") {
		b.WriteString(" " + shellQuote(kv))
	}
	b.WriteString(" " + shellQuote(binary))
	for _, a := range args {
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString("; echo $? > " + shellQuote(statusFile))
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestTUI drives the interface in a terminal: a prompt typed and
// answered, a pasted prompt whose shell command is approved in the
// permission dialog, a streaming answer interrupted with Esc Esc, a quit,
// codeloop -c showing the transcript again, and SIGTERM.
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
step
text Here is a long answer that never ends
hang
`
	p := newProject(t, script, nil)
	if err := os.WriteFile(filepath.Join(p.dir, "codeloop.json"), []byte(`{"permission": {"bash": "ask"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	status := filepath.Join(t.TempDir(), "status")
	tm.start("first", p.dir, p.commandLine(status+"1"), 100, 30)
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

	// Esc Esc interrupts an answer that is still streaming; what came is kept.
	tm.typeText("first", "tell me everything")
	tm.keys("first", "Enter")
	tm.waitFor("first", "Here is a long answer that never ends", "Esc Esc interrupts")
	tm.keys("first", "Escape")
	tm.waitFor("first", "press Esc again to interrupt")
	tm.keys("first", "Escape")
	tm.waitFor("first", "Interrupted.", "Here is a long answer that never ends")

	tm.keys("first", "C-c")
	if code := tm.exited("first", status+"1"); code != "0" {
		t.Fatalf("codeloop exited with status %s:\n%s", code, tm.screen("first"))
	}

	tm.start("second", p.dir, p.commandLine(status+"2", "-c"), 100, 30)
	tm.waitFor("second", "Greeting change", "┃ say hello", "Hello from the fake model.", "┃ write the proof",
		"$ echo approved > proof.txt", "The proof file is written.", "Here is a long answer that never ends", "Interrupted.")

	// SIGTERM ends the interface with the status shells expect, and the
	// terminal is given back: the interface's screen is gone.
	pid := tm.pid("second")
	if out, err := exec.Command("kill", "-TERM", pid).CombinedOutput(); err != nil {
		t.Fatalf("kill %s: %v %s", pid, err, out)
	}
	if code := tm.exited("second", status+"2"); code != "143" {
		t.Errorf("exit status %s after SIGTERM, want 143", code)
	}
	if s := tm.screen("second"); strings.Contains(s, "build · fake/model") {
		t.Errorf("the interface is still on screen after it ended:\n%s", s)
	}
}
