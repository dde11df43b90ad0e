package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/codeloop/codeloop/internal/client"
)

// scrollbackMsg carries the session's transcript drawn for the
// terminal's normal screen.
type scrollbackMsg struct {
	text  string
	lines int
	err   error
}

// scrollbackDoneMsg says the transcript was written to the normal screen.
type scrollbackDoneMsg struct {
	lines int
	err   error
}

// scrollbackJob is what drawing the transcript needs, taken from the
// view so that it can run away from it.
type scrollbackJob struct {
	c          client.Client
	sess       client.Session
	revertFrom string
	width      int
	noColor    bool
	dark       bool
}

func (m *Model) scrollbackJob() (scrollbackJob, bool) {
	if m.sess == nil {
		return scrollbackJob{}, false
	}
	return scrollbackJob{c: m.c, sess: *m.sess, revertFrom: m.revertFrom, width: max(m.width, minWidth),
		noColor: m.noColor || m.themeChoice == "plain", dark: m.theme.name != "light"}, true
}

// draw reads every message of the session and draws them as the
// transcript does, one after the other, without colour when noColor.
func (j scrollbackJob) draw(ctx context.Context) (string, int, error) {
	msgs, err := j.c.Messages(ctx, j.sess.ID, client.MessagesOptions{})
	if err != nil {
		return "", 0, err
	}
	// A view of its own builds the entries, so the one on screen is not
	// touched from here.
	b := &Model{msgs: map[string]*msgState{}, tr: newTranscript(), revertFrom: j.revertFrom,
		children: map[string]*childProgress{}, childEntry: map[string]string{}}
	for _, msg := range msgs {
		b.applyInfo(msg.Info)
		for _, p := range msg.Parts {
			b.applyPart(p)
		}
	}
	th := newTheme(j.noColor, j.dark)
	var out strings.Builder
	n := 0
	line := func(s string) {
		if j.noColor {
			s = ansi.Strip(s)
		}
		out.WriteString(s)
		out.WriteString("\n")
		n++
	}
	line(th.accent.Render("codeloop") + " " + th.faint.Render(j.sess.Title))
	for _, e := range b.tr.entries {
		ls := e.render(j.width, &th, 0)
		if len(ls) == 0 {
			continue
		}
		line("")
		for _, l := range ls {
			line(l)
		}
	}
	line(th.faint.Render(strings.Repeat("─", j.width)))
	return out.String(), n, nil
}

// scrollback draws the session's transcript in the background, then
// writes it to the terminal's normal screen, whose scrollback keeps it.
func (m *Model) scrollback() tea.Cmd {
	j, ok := m.scrollbackJob()
	if !ok {
		return m.notify("there is nothing to write to the scrollback yet", true)
	}
	ctx := m.ctx
	return tea.Batch(m.notify("drawing the transcript for the scrollback…", false), func() tea.Msg {
		text, n, err := j.draw(ctx)
		return scrollbackMsg{text: text, lines: n, err: err}
	})
}

func (m *Model) scrollbackMsg(msg scrollbackMsg) tea.Cmd {
	if msg.err != nil {
		return m.failed("writing the transcript to the scrollback", msg.err)
	}
	n := msg.lines
	return tea.Exec(&printer{text: msg.text}, func(err error) tea.Msg { return scrollbackDoneMsg{lines: n, err: err} })
}

func (m *Model) scrollbackDone(msg scrollbackDoneMsg) tea.Cmd {
	if msg.err != nil {
		return m.failed("writing the transcript to the scrollback", msg.err)
	}
	return m.notify(fmt.Sprintf("wrote %d lines of the transcript to the terminal's scrollback", msg.lines), false)
}

// printer writes text to the terminal while the program has left the
// full screen: Bubble Tea runs it as it runs an editor, leaving the
// alternate screen first and taking it back after.
type printer struct {
	text string
	out  io.Writer
}

func (p *printer) Run() error {
	if p.out == nil {
		return nil
	}
	start := time.Now()
	_, err := io.WriteString(p.out, p.text)
	holdTerminal(start)
	return err
}

// printerPause is how long a program run with the terminal (the
// scrollback's writer, an editor) lasts at least.
const printerPause = 100 * time.Millisecond

// holdTerminal waits until printerPause has passed since start. Bubble Tea stops
// the ticker of the renderer it stopped from another goroutine, which may
// run after the renderer is started again when what ran in between was
// quick; the view would then draw no frame again. Taking a moment lets
// that stop happen first.
func holdTerminal(start time.Time) {
	if d := printerPause - time.Since(start); d > 0 {
		time.Sleep(d)
	}
}

func (p *printer) SetStdin(io.Reader)    {}
func (p *printer) SetStdout(w io.Writer) { p.out = w }
func (p *printer) SetStderr(io.Writer)   {}

// scrollbackOnExit writes the transcript to the terminal's normal screen
// after the view has given the terminal back.
func (m *Model) scrollbackOnExit(ctx context.Context) error {
	j, ok := m.scrollbackJob()
	if !ok {
		return nil
	}
	text, _, err := j.draw(ctx)
	if err != nil {
		return fmt.Errorf("writing the transcript to the scrollback: %w", err)
	}
	var out io.Writer = os.Stdout
	if m.opts.Output != nil {
		out = m.opts.Output
	}
	_, err = io.WriteString(out, text)
	return err
}
