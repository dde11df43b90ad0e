package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// clipboardTimeout bounds each attempt to copy.
const clipboardTimeout = 3 * time.Second

// copier is a way to put text on the clipboard.
type copier struct {
	name string
	// when says whether to try it, from the environment.
	when func(getenv func(string) string) bool
	args []string
}

// copiers are tried in order: the desktop's tools, then tmux's buffer.
var copiers = []copier{
	{"wl-copy", func(g func(string) string) bool { return g("WAYLAND_DISPLAY") != "" }, []string{"wl-copy"}},
	{"xclip", func(g func(string) string) bool { return g("DISPLAY") != "" }, []string{"xclip", "-selection", "clipboard", "-in"}},
	{"xsel", func(g func(string) string) bool { return g("DISPLAY") != "" }, []string{"xsel", "--clipboard", "--input"}},
	{"pbcopy", func(func(string) string) bool { return true }, []string{"pbcopy"}},
	{"the tmux buffer", func(g func(string) string) bool { return g("TMUX") != "" }, []string{"tmux", "load-buffer", "-w", "-"}},
}

// copyResult says how a copy went: the way that worked, or why none did.
type copyResult struct {
	via string
	err error
}

// copyText puts text on the clipboard with the first way that works, and
// checks the tmux buffer really holds it. It never reports a copy that
// did not happen.
func copyText(ctx context.Context, text string, getenv func(string) string) copyResult {
	var tried []string
	for _, c := range copiers {
		if !c.when(getenv) {
			continue
		}
		if _, err := exec.LookPath(c.args[0]); err != nil {
			continue
		}
		tried = append(tried, c.name)
		cctx, cancel := context.WithTimeout(ctx, clipboardTimeout)
		cmd := exec.CommandContext(cctx, c.args[0], c.args[1:]...)
		cmd.Stdin = strings.NewReader(text)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		if err != nil {
			continue
		}
		if c.args[0] == "tmux" {
			// Read it back: tmux answers 0 even where it cannot keep it.
			out, err := exec.CommandContext(ctx, "tmux", "show-buffer").Output()
			if err != nil || string(out) != text {
				continue
			}
		}
		return copyResult{via: c.name}
	}
	if len(tried) == 0 {
		return copyResult{err: errors.New("no clipboard tool (wl-copy, xclip, xsel, pbcopy) was found and codeloop is not inside tmux")}
	}
	return copyResult{err: fmt.Errorf("%s could not take the text", strings.Join(tried, " and "))}
}

// copiedMsg reports a copy's outcome.
type copiedMsg struct {
	what string
	copyResult
}

// copyCmd copies text in the background.
func (m *Model) copyCmd(what, text string) tea.Cmd {
	ctx, getenv := m.ctx, m.getenv
	return func() tea.Msg {
		return copiedMsg{what: what, copyResult: copyText(ctx, text, getenv)}
	}
}

// osc52 is the sequence that asks the terminal to put text on the system
// clipboard; inside tmux it is wrapped in tmux's passthrough so that it
// reaches the terminal tmux runs in.
func osc52(text string, inTmux bool) string {
	seq := ansi.SetSystemClipboard(text)
	if inTmux {
		return ansi.TmuxPassthrough(seq)
	}
	return seq
}

// copied reports a copy. When no clipboard tool or tmux buffer took the
// text, it is sent to the terminal with OSC 52, and the notice says that
// nothing confirms it arrived: terminals do not answer it.
func (m *Model) copied(msg copiedMsg) tea.Cmd {
	if msg.err == nil {
		return m.notify(fmt.Sprintf("copied %s with %s", msg.what, msg.via), false)
	}
	inTmux := m.getenv("TMUX") != ""
	how := "sent %s to the terminal with OSC 52, which cannot confirm it (%v)"
	if inTmux {
		how = "sent %s to the terminal with OSC 52 through tmux (it needs set -g allow-passthrough on), which cannot confirm it (%v)"
	}
	return tea.Batch(m.notify(fmt.Sprintf(how, msg.what, msg.err), true), tea.Raw(osc52(m.lastCopy, inTmux)))
}

// copyLast copies the selected tool call's output, or else the newest
// answer of the model.
func (m *Model) copyLast() tea.Cmd {
	if e, ok := m.tr.find(m.selected).(*toolEntry); ok {
		out := bashOutput(e.state())
		if e.state().Status == "completed" {
			out = e.state().Output
		}
		if out != "" {
			m.lastCopy = out
			return m.copyCmd("the tool call's output", out)
		}
	}
	for i := len(m.tr.entries) - 1; i >= 0; i-- {
		if te, ok := m.tr.entries[i].(*textEntry); ok && strings.TrimSpace(te.text) != "" {
			m.lastCopy = te.text
			return m.copyCmd("the last answer", te.text)
		}
	}
	return m.notify("there is nothing to copy yet", true)
}
