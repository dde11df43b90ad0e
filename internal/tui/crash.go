package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
)

// crash is a panic caught in the view.
type crash struct {
	value any
	stack []byte
}

// guard records the first panic of the view, its updates and its
// commands, and quits the program instead of letting the panic kill it,
// so the terminal is restored in order.
type guard struct {
	quit func() // quits the program; set once it exists

	mu    sync.Mutex
	first *crash
}

// recover records a panic and has the program quit; it must be deferred.
func (g *guard) recover() {
	r := recover()
	if r == nil {
		return
	}
	g.mu.Lock()
	if g.first == nil {
		g.first = &crash{value: r, stack: debug.Stack()}
	}
	g.mu.Unlock()
	if g.quit != nil {
		go g.quit() // not from the program's goroutine, which may be the caller
	}
}

func (g *guard) crash() *crash {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.first
}

// wrap makes cmd, and the commands of a batch it returns, record a
// panic.
func (g *guard) wrap(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer g.recover()
		msg = cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			out := make(tea.BatchMsg, len(b))
			for i, c := range b {
				out[i] = g.wrap(c)
			}
			return out
		}
		return msg
	}
}

// guarded is the model with its panics recorded. Once one happened it
// stops updating and draws nothing while the program quits.
type guarded struct {
	m *Model
	g *guard
}

func (w *guarded) Init() (cmd tea.Cmd) {
	defer w.g.recover()
	return w.g.wrap(w.m.Init())
}

func (w *guarded) Update(msg tea.Msg) (_ tea.Model, cmd tea.Cmd) {
	if w.g.crash() != nil {
		return w, nil
	}
	defer w.g.recover()
	_, cmd = w.m.Update(msg)
	return w, w.g.wrap(cmd)
}

func (w *guarded) View() (v tea.View) {
	if w.g.crash() != nil {
		return tea.View{}
	}
	defer w.g.recover()
	return w.m.View()
}

// CrashError reports a crash of the view and where its report is.
type CrashError struct {
	Value  any
	Report string // the report's path, empty when it could not be written
	Err    error  // why it could not be written
}

func (e *CrashError) Error() string {
	msg := fmt.Sprintf("codeloop's interface crashed: %v", e.Value)
	if e.Report != "" {
		return msg + "\nThe crash report is in " + e.Report + "; please attach it when you report the problem." +
			"\nThe session was saved: codeloop -c resumes it."
	}
	return msg + fmt.Sprintf("\nThe crash report could not be written (%v).\nThe session was saved: codeloop -c resumes it.", e.Err)
}

// writeCrash writes the report of c into dir.
func writeCrash(dir, version string, c *crash) error {
	ce := &CrashError{Value: c.value}
	if dir == "" {
		dir = os.TempDir()
	}
	now := time.Now()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ce.Err = err
		return ce
	}
	path := filepath.Join(dir, "crash-"+now.Format("20060102-150405.000")+".txt")
	report := fmt.Sprintf("codeloop %s crashed at %s\n\npanic: %v\n\n%s", version, now.Format(time.RFC3339), c.value, c.stack)
	if err := os.WriteFile(path, []byte(report), 0o600); err != nil {
		ce.Err = err
		return ce
	}
	ce.Report = path
	return ce
}
