// Package tui is codeloop's full-screen terminal interface: a session's
// transcript, a multi-line editor, a status line and the dialogs that
// answer the engine's permission requests and questions.
//
// It reaches the engine only through client.Client, so it runs the same
// over the in-process client and over a server. The transcript is
// virtualised: a frame renders only the entries on screen, and an entry
// keeps its rendered lines per width, so a long session costs what is
// visible.
package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/codeloop/codeloop/internal/client"
)

// Options say what the view shows and how.
type Options struct {
	Client client.Client
	// SessionID opens that session; Continue opens the newest one of the
	// project; otherwise a new session starts with the first prompt.
	SessionID string
	Continue  bool
	// Model ("provider/model") and Agent answer the prompts; empty for
	// the session's or the defaults.
	Model, Agent string
	// Prompt is sent as soon as the view is up.
	Prompt string
	// Dir is the project's directory, whose files @ completes.
	Dir string
	// HistoryFile keeps the messages sent, for Up and Down; empty keeps
	// them for the run only.
	HistoryFile string
	// Getenv reads the environment ($EDITOR); nil for os.Getenv.
	Getenv func(string) string
	// NoColor draws without colour (NO_COLOR).
	NoColor bool
	// CrashDir receives the report of a crash.
	CrashDir string
	// Version goes into crash reports.
	Version string
	// Input and Output replace the terminal, for tests; Width and
	// Height then give the size of the screen.
	Input         io.Reader
	Output        io.Writer
	Width, Height int
	// Now is the clock; nil for time.Now.
	Now func() time.Time
	// Theme is the colours to start with: auto (or empty: from the
	// terminal's background), dark, light or plain.
	Theme string
	// NoMouse leaves the mouse to the terminal: the view does not capture
	// it.
	NoMouse bool
	// Keybinds are OpenCode-style keybinds (an action's name to its
	// comma-separated keys, "leader" the leader key) over the defaults.
	Keybinds map[string]string
	// ScrollbackOnExit writes the transcript to the terminal's normal
	// screen when the view ends by a quit.
	ScrollbackOnExit bool
}

// maxFPS is how often a frame may be drawn: a key's frame waits at most
// a tick for the next draw.
const maxFPS = 120

// ErrHangup reports that the terminal went away (SIGHUP).
var ErrHangup = errors.New("the terminal hung up")

// Run shows the view until the user quits, ctx ends (its error is
// returned) or the terminal hangs up (ErrHangup). In every case the
// terminal is restored before Run returns. A panic is caught: the
// terminal is restored, a report is written to opts.CrashDir and a
// *CrashError says where.
func Run(ctx context.Context, opts Options) error {
	m := New(ctx, opts)
	g := &guard{}
	// The program is not given ctx: its end would kill the program without
	// waiting for the input reader; a quit ends it in order.
	popts := []tea.ProgramOption{tea.WithoutSignalHandler(), tea.WithFPS(maxFPS)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	if opts.Width > 0 && opts.Height > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	p := tea.NewProgram(&guarded{m: m, g: g}, popts...)
	g.quit = p.Quit

	// The terminal going away, or ctx ending, ends the view like a quit.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	hungUp := make(chan bool, 1)
	go func() {
		select {
		case <-hup:
			hungUp <- true
			p.Quit()
		case <-ctx.Done():
			hungUp <- false
			p.Quit()
		case <-done:
			hungUp <- false
		}
	}()
	_, err := p.Run()
	signal.Stop(hup)
	close(done)
	hung := <-hungUp
	if m.events != nil {
		_ = m.events.Close()
	}
	if c := g.crash(); c != nil {
		return writeCrash(opts.CrashDir, opts.Version, c)
	}
	if opts.ScrollbackOnExit && !hung && ctx.Err() == nil && m.quitting {
		if err := m.scrollbackOnExit(ctx); err != nil {
			return err
		}
	}
	switch {
	case hung:
		return ErrHangup
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil && !errors.Is(err, tea.ErrProgramKilled):
		return err
	}
	return nil
}
