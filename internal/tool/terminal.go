package tool

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Terminal runs commands somewhere other than codeloop's own process on
// behalf of a session: in an editor's terminals, which show the user a
// command's output as it runs. A terminal is named by the id
// CreateTerminal returns, and every terminal created must be released.
//
// When a call carries one (Call.Terminal) and no sandbox mode is on, bash
// runs its command there instead of in codeloop's shell; permission checks
// happen before, the same either way.
type Terminal interface {
	// CreateTerminal starts argv (the program, then its arguments) in the
	// directory dir with env (NAME=value entries) set, and returns the
	// terminal's id. The terminal keeps at most outputLimit bytes of the
	// output, dropping its start. sessionID and callID name the session
	// and the tool call the command runs for.
	CreateTerminal(ctx context.Context, sessionID, callID string, argv, env []string, dir string, outputLimit int) (string, error)
	// TerminalOutput returns the output so far and whether its start was
	// dropped.
	TerminalOutput(ctx context.Context, id string) (output string, truncated bool, err error)
	// WaitForTerminalExit waits until the command has ended and returns
	// its exit code, or -1 and the name of the signal that ended it.
	WaitForTerminalExit(ctx context.Context, id string) (exitCode int, signal string, err error)
	// KillTerminal ends the command; its output stays readable.
	KillTerminal(ctx context.Context, id string) error
	// ReleaseTerminal ends the command if it still runs and frees the
	// terminal.
	ReleaseTerminal(ctx context.Context, id string) error
}

const (
	// terminalOutputLimit is how much of a command's output, from its end,
	// an editor's terminal keeps for the result.
	terminalOutputLimit = 1 << 20
	// terminalPoll is how often the output of a command running in a
	// terminal is read for the live metadata.
	terminalPoll = 500 * time.Millisecond
	// terminalWait bounds each request to the editor made while the command
	// is started, stopped or read for the last time.
	terminalWait = 10 * time.Second
)

// terminalExit is how a terminal's command ended, as the editor reports it.
type terminalExit struct {
	code   int
	signal string
	err    error
}

// runInTerminal runs the shell command in a terminal of the call's
// editor: it follows the output for the live metadata (live gets the
// terminal's id and the end of the output), kills the command on timeout
// or abort, puts the final output in sink and always releases the
// terminal. An error means the command did not start.
func runInTerminal(ctx context.Context, call *Call, sh shellCmd, timeout time.Duration, sink *bashSink, live func(id, out string)) (o bashOutcome, _ error) {
	term := call.Terminal
	// Requests that must reach the editor even when the call is aborted:
	// an abort while the terminal is created still gets it killed and
	// released.
	bg := context.WithoutCancel(ctx)
	cctx, cancel := context.WithTimeout(bg, terminalWait)
	id, err := term.CreateTerminal(cctx, call.SessionID, call.ID, sh.argv, sh.env, sh.dir, terminalOutputLimit)
	cancel()
	if err != nil {
		return bashOutcome{}, fmt.Errorf("the editor could not run the command in a terminal (%w); set acp.terminal to false in the config to run commands in codeloop's shell", err)
	}
	o.terminal = id
	defer func() {
		rctx, cancel := context.WithTimeout(bg, terminalWait)
		defer cancel()
		if err := term.ReleaseTerminal(rctx, id); err != nil && o.err == nil {
			o.err = fmt.Errorf("the editor could not release its terminal: %w", err)
		}
	}()
	live(id, "")

	waitCtx, stopWait := context.WithCancel(bg)
	exited := make(chan terminalExit, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		code, signal, err := term.WaitForTerminalExit(waitCtx, id)
		exited <- terminalExit{code: code, signal: signal, err: err}
	}()
	defer wg.Wait()
	defer stopWait()

	deadline := time.Now().Add(timeout)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	tick := time.NewTicker(terminalPoll)
	defer tick.Stop()
	last := ""
	var ex *terminalExit
follow:
	for {
		select {
		case e := <-exited:
			ex = &e
			break follow
		case <-tick.C:
			pctx, cancel := context.WithDeadline(ctx, deadline)
			out, _, err := term.TerminalOutput(pctx, id)
			cancel()
			if err == nil && out != last {
				last = out
				live(id, lastChars(out, BashLiveChars))
			}
		case <-timer.C:
			o.timedOut = true
			break follow
		case <-ctx.Done():
			o.aborted = true
			break follow
		}
	}
	if ex == nil {
		kctx, cancel := context.WithTimeout(bg, terminalWait)
		err := term.KillTerminal(kctx, id)
		cancel()
		if err != nil {
			o.err = fmt.Errorf("the editor could not kill the command: %w", err)
		}
		select {
		case e := <-exited:
			ex = &e
		case <-time.After(terminalWait):
		}
	}
	o.exit = -1
	if ex != nil {
		if ex.err != nil {
			if o.err == nil && !errors.Is(ex.err, context.Canceled) {
				o.err = fmt.Errorf("the editor did not report how the command ended: %w", ex.err)
			}
		} else {
			o.exit, o.signal = ex.code, ex.signal
		}
	}

	octx, cancel := context.WithTimeout(bg, terminalWait)
	out, cut, err := term.TerminalOutput(octx, id)
	cancel()
	if err != nil {
		out = last
		if o.err == nil {
			o.err = fmt.Errorf("the editor could not give the command's output: %w", err)
		}
	}
	o.cut = cut
	// The editor shows the output live; the sink only keeps it for the
	// result.
	sink.live = nil
	_, _ = sink.Write([]byte(out))
	return o, nil
}
