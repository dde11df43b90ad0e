package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/clienttest"
	"github.com/codeloop/codeloop/internal/client/local"
)

// liveClient opens the in-process client on a project whose model plays
// script.
func liveClient(t *testing.T, script, extra string) (client.Client, *clienttest.Project) {
	t.Helper()
	p := clienttest.NewProject(t, script, extra, nil)
	a, err := app.Open(context.Background(), app.Options{Dir: p.Dir, Dirs: p.Dirs, Getenv: p.Getenv, NoMCP: true, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	c := local.New(a)
	t.Cleanup(func() {
		_ = c.Close()
		_ = a.Close()
	})
	return c, p
}

// pump runs commands the way Bubble Tea does, each in its goroutine,
// feeding their messages to m, until done holds for m.
type pump struct {
	t    *testing.T
	m    *Model
	msgs chan tea.Msg
	stop chan struct{}
}

func newPump(t *testing.T, m *Model) *pump {
	p := &pump{t: t, m: m, msgs: make(chan tea.Msg, 64), stop: make(chan struct{})}
	t.Cleanup(func() { close(p.stop) })
	return p
}

func (p *pump) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		select {
		case p.msgs <- msg:
		case <-p.stop:
		}
	}()
}

// until applies messages until done holds, running the commands they
// return.
func (p *pump) until(what string, cmd tea.Cmd, done func(m *Model) bool) {
	p.t.Helper()
	p.run(cmd)
	deadline := time.After(clienttest.Timeout)
	for !done(p.m) {
		select {
		case msg := <-p.msgs:
			if b, ok := msg.(tea.BatchMsg); ok {
				for _, c := range b {
					p.run(c)
				}
				continue
			}
			_, next := p.m.Update(msg)
			p.run(next)
		case <-deadline:
			p.t.Fatalf("waiting for %s:\n%s", what, screen(p.m))
		}
	}
}

// shows reports whether the screen shows all of want.
func shows(want ...string) func(m *Model) bool {
	return func(m *Model) bool {
		s := screen(m)
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}
}

func (p *pump) keys(ks ...string) tea.Cmd {
	var cmds []tea.Cmd
	for _, k := range ks {
		_, cmd := p.m.Update(keyPress(k))
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

func (p *pump) typed(s string) tea.Cmd {
	var cmds []tea.Cmd
	for _, r := range s {
		_, cmd := p.m.Update(keyPress(string(r)))
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// TestLiveSession drives the view over the in-process client and a real
// engine: a prompt and its streamed answer, a permission approved in the
// dialog, a shell command, the session list.
func TestLiveSession(t *testing.T) {
	script := `
step
text Hello from the model.
finish stop input=2000 output=10
step
call call_1 bash {"command":"echo approved > proof.txt"}
finish tool-calls
step
text Written.
finish stop input=3000 output=10
`
	c, proj := liveClient(t, script, `"permission": {"bash": "ask"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, Options{Client: c, NoColor: true})
	m.Update(resize(100, 30))
	p := newPump(t, m)
	p.until("the view to load", m.Init(), func(m *Model) bool { return m.loaded })
	if !shows("new session", "build · fake/model")(m) {
		t.Fatalf("first screen:\n%s", screen(m))
	}

	p.typed("hi there")
	p.until("the answer", p.keys("enter"), func(m *Model) bool {
		return shows("┃ hi there", "Hello from the model.", "2% context")(m) && !m.busy()
	})
	if m.sess == nil || !strings.HasPrefix(m.sess.ID, "ses_") {
		t.Fatalf("no session was created: %+v", m.sess)
	}

	p.typed("write the proof")
	p.until("the permission dialog", p.keys("enter"), shows("Permission needed: bash", "Run echo approved > proof.txt"))
	p.until("the approved call's answer", p.keys("y"), func(m *Model) bool {
		return shows("✓ bash $ echo approved > proof.txt", "Written.")(m) && !m.busy()
	})
	if b, err := os.ReadFile(filepath.Join(proj.Dir, "proof.txt")); err != nil || string(b) != "approved\n" {
		t.Errorf("proof.txt: %q, %v", b, err)
	}

	p.typed("!echo from the shell")
	p.until("the shell command", p.keys("enter"), func(m *Model) bool { return shows("✓ bash $ echo from the shell")(m) && !m.busy() })
	p.until("its output", p.keys("ctrl+o"), shows("from the shell\n"))

	// Undo takes the session back to before the last message of the
	// user's (the shell command) and puts its text back in the editor;
	// redo brings it back.
	p.typed("/undo")
	p.until("the undo", p.keys("esc", "enter"), func(m *Model) bool {
		s := screen(m)
		return strings.Contains(s, "undone") && !strings.Contains(s, "$ echo from the shell") && strings.Contains(s, "Written.")
	})
	if got := m.input.Value(); got != "!echo from the shell" {
		t.Errorf("after undoing a shell command the editor holds %q", got)
	}
	m.input.Reset()
	p.typed("/redo")
	p.until("the redo", p.keys("esc", "enter"), shows("redone", "$ echo from the shell"))

	p.typed("/sessions")
	p.until("the session list", p.keys("esc", "enter"), shows("╭─ Sessions", "current"))
	p.keys("esc")
	if m.dialog != nil {
		t.Error("Esc did not close the session list")
	}
}

// panicky is a client that panics when asked to create a session, a
// moment after, so the view is on screen by then.
type panicky struct{ client.Client }

func (panicky) CreateSession(context.Context, client.CreateSessionInput) (client.Session, error) {
	time.Sleep(200 * time.Millisecond)
	panic("sessions exploded")
}

// TestRunCrashReport: a panic in the view restores the terminal, writes
// a report and says where it is.
func TestRunCrashReport(t *testing.T) {
	c, _ := liveClient(t, "", "")
	dir := t.TempDir()
	var out syncBuffer
	in, w, _ := os.Pipe()
	defer w.Close()
	defer in.Close()
	err := Run(context.Background(), Options{Client: panicky{c}, Input: in, Output: &out, Width: 80, Height: 24,
		CrashDir: dir, Version: "test", NoColor: true, Prompt: "hello"})
	ce, ok := err.(*CrashError)
	if !ok {
		t.Fatalf("Run: %v, want a *CrashError", err)
	}
	if ce.Report == "" || filepath.Dir(ce.Report) != dir {
		t.Fatalf("report %q (%v), want one in %s", ce.Report, ce.Err, dir)
	}
	b, err := os.ReadFile(ce.Report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "sessions exploded") || !strings.Contains(string(b), "(*Model).withSession") {
		t.Errorf("the report lacks the panic or its stack:\n%s", b)
	}
	if !strings.Contains(ce.Error(), ce.Report) || !strings.Contains(ce.Error(), "codeloop -c") {
		t.Errorf("the message %q does not say where the report is and how to resume", ce.Error())
	}
	if o := out.String(); !strings.Contains(o, "\x1b[?1049h") || !strings.Contains(o, "\x1b[?1049l") {
		t.Errorf("the alternate screen was not entered and left: %q", tail(o))
	}
}

// TestRunEndsWithItsContext: cancelling the context (as SIGTERM does)
// ends the view and restores the terminal.
func TestRunEndsWithItsContext(t *testing.T) {
	c, _ := liveClient(t, "", "")
	var out syncBuffer
	in, w, _ := os.Pipe()
	defer w.Close()
	defer in.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Client: c, Input: in, Output: &out, Width: 80, Height: 24, NoColor: true})
	}()
	deadline := time.Now().Add(clienttest.Timeout)
	for !strings.Contains(out.String(), "build") {
		if time.Now().After(deadline) {
			t.Fatalf("the view never drew: %q", tail(out.String()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("Run: %v, want context.Canceled", err)
		}
	case <-time.After(clienttest.Timeout):
		t.Fatal("Run did not end with its context")
	}
	if !strings.Contains(out.String(), "\x1b[?1049l") {
		t.Errorf("the alternate screen was not left: %q", tail(out.String()))
	}
}

func tail(s string) string { return s[max(0, len(s)-300):] }

// TestLiveFirstPromptFails: a first message that cannot be sent (its model
// does not exist) leaves no empty session behind and says why.
func TestLiveFirstPromptFails(t *testing.T) {
	c, _ := liveClient(t, "", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(ctx, Options{Client: c, NoColor: true, Model: "fake/no-such-model"})
	m.Update(resize(100, 30))
	p := newPump(t, m)
	p.until("the view to load", m.Init(), func(m *Model) bool { return m.loaded })
	p.typed("hello")
	p.until("the failure", p.keys("enter"), shows("sending:", "no-such-model"))
	if m.sess != nil {
		t.Errorf("the view still shows session %s", m.sess.ID)
	}
	if list, err := c.ListSessions(ctx, client.ListSessionsOptions{}); err != nil || len(list) != 0 {
		t.Errorf("sessions left: %v, %v", list, err)
	}
}
