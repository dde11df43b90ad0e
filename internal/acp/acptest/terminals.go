// Package acptest helps test agents of the Agent Client Protocol from the
// editor's side.
package acptest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"
)

// Terminals are an editor's terminals: each terminal/create really starts
// the command, with the editor's environment, the variables of the request
// and Env, and every request is recorded as "method terminalId" (create,
// output, wait, kill, release). The zero value is ready to use.
type Terminals struct {
	// Env are NAME=value entries every command gets last.
	Env []string

	mu      sync.Mutex
	calls   []string
	created []sdk.CreateTerminalRequest
	terms   map[string]*terminal
}

// terminal is one terminal: its command and the output it keeps.
type terminal struct {
	cmd   *exec.Cmd
	limit int
	done  chan struct{} // closed when the command has ended

	mu  sync.Mutex
	out []byte
	cut bool
}

// Write keeps the output, dropping its start beyond the limit at a
// character boundary, as the protocol asks of editors.
func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out = append(t.out, p...)
	if t.limit > 0 && len(t.out) > t.limit {
		drop := len(t.out) - t.limit
		for drop < len(t.out) && !utf8.RuneStart(t.out[drop]) {
			drop++
		}
		t.out = append(t.out[:0], t.out[drop:]...)
		t.cut = true
	}
	return len(p), nil
}

// exit is how the finished command ended.
func (t *terminal) exit() (*int, *string) {
	st := t.cmd.ProcessState
	if code := st.ExitCode(); code >= 0 {
		return &code, nil
	}
	signal := strings.TrimPrefix(st.String(), "signal: ")
	return nil, &signal
}

func (h *Terminals) record(call string) {
	h.mu.Lock()
	h.calls = append(h.calls, call)
	h.mu.Unlock()
}

// Calls returns the requests so far, in the order they came.
func (h *Terminals) Calls() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

// Created returns the terminal/create requests so far.
func (h *Terminals) Created() []sdk.CreateTerminalRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.created)
}

// Running reports whether the command of any terminal still runs.
func (h *Terminals) Running() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range h.terms {
		select {
		case <-t.done:
		default:
			return true
		}
	}
	return false
}

// Close kills the commands still running and waits for them.
func (h *Terminals) Close() {
	h.mu.Lock()
	terms := make([]*terminal, 0, len(h.terms))
	for _, t := range h.terms {
		terms = append(terms, t)
	}
	h.mu.Unlock()
	for _, t := range terms {
		_ = t.cmd.Process.Kill()
		<-t.done
	}
}

func (h *Terminals) terminal(id string) (*terminal, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.terms[id]; ok {
		return t, nil
	}
	return nil, sdk.NewInvalidParams(map[string]any{"error": "no terminal " + id})
}

// CreateTerminal starts the command.
func (h *Terminals) CreateTerminal(_ context.Context, r sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	cmd := exec.Command(r.Command, r.Args...)
	if r.Cwd != nil {
		cmd.Dir = *r.Cwd
	}
	cmd.Env = os.Environ()
	for _, v := range r.Env {
		cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
	}
	cmd.Env = append(cmd.Env, h.Env...)
	t := &terminal{cmd: cmd, done: make(chan struct{})}
	if r.OutputByteLimit != nil {
		t.limit = *r.OutputByteLimit
	}
	cmd.Stdout, cmd.Stderr = t, t
	// A command's children may hold its output open; stop reading soon
	// after it has ended.
	cmd.WaitDelay = 100 * time.Millisecond
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	go func() {
		_ = cmd.Wait()
		close(t.done)
	}()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.terms == nil {
		h.terms = map[string]*terminal{}
	}
	id := fmt.Sprintf("term-%d", len(h.terms)+1)
	h.terms[id] = t
	h.created = append(h.created, r)
	h.calls = append(h.calls, "create "+id)
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

// TerminalOutput returns the output kept so far and, once the command has
// ended, how it ended.
func (h *Terminals) TerminalOutput(_ context.Context, r sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	h.record("output " + r.TerminalId)
	t, err := h.terminal(r.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	var status *sdk.TerminalExitStatus
	select {
	case <-t.done:
		code, signal := t.exit()
		status = &sdk.TerminalExitStatus{ExitCode: code, Signal: signal}
	default:
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return sdk.TerminalOutputResponse{Output: string(t.out), Truncated: t.cut, ExitStatus: status}, nil
}

// WaitForTerminalExit waits for the command to end.
func (h *Terminals) WaitForTerminalExit(ctx context.Context, r sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	h.record("wait " + r.TerminalId)
	t, err := h.terminal(r.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	code, signal := t.exit()
	return sdk.WaitForTerminalExitResponse{ExitCode: code, Signal: signal}, nil
}

// KillTerminal kills the command; its output stays readable.
func (h *Terminals) KillTerminal(_ context.Context, r sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	h.record("kill " + r.TerminalId)
	t, err := h.terminal(r.TerminalId)
	if err != nil {
		return sdk.KillTerminalResponse{}, err
	}
	_ = t.cmd.Process.Kill()
	return sdk.KillTerminalResponse{}, nil
}

// ReleaseTerminal kills the command if it still runs and waits for it.
func (h *Terminals) ReleaseTerminal(_ context.Context, r sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	h.record("release " + r.TerminalId)
	t, err := h.terminal(r.TerminalId)
	if err != nil {
		return sdk.ReleaseTerminalResponse{}, err
	}
	_ = t.cmd.Process.Kill()
	<-t.done
	return sdk.ReleaseTerminalResponse{}, nil
}
