package acp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

// showWait bounds how long a new terminal waits for its tool call to be
// announced to the editor before it is shown in it.
const showWait = 5 * time.Second

// editorTerminal runs the bash tool's commands in the editor's terminals
// (terminal/create, terminal/output, terminal/wait_for_exit,
// terminal/kill, terminal/release) and shows each in its tool call, so
// the user watches the command run.
type editorTerminal struct {
	a *Agent
	s *session
	t *turn // the prompt that started the loop
}

var _ client.Terminal = editorTerminal{}

// CreateTerminal asks the editor to start argv in a terminal. A terminal
// of one of the session's own tool calls is shown in that call before
// CreateTerminal returns (the protocol wants it shown before it is
// released); a sub-agent's calls are not shown to the editor, nor are
// their terminals.
func (e editorTerminal) CreateTerminal(ctx context.Context, sessionID, callID string, argv, env []string, dir string, outputLimit int) (string, error) {
	if len(argv) == 0 {
		return "", errors.New("no command to run")
	}
	vars := make([]sdk.EnvVariable, 0, len(env))
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok && name != "" {
			vars = append(vars, sdk.EnvVariable{Name: name, Value: value})
		}
	}
	req := sdk.CreateTerminalRequest{SessionId: sdk.SessionId(e.s.id), Command: argv[0], Args: argv[1:], Env: vars}
	if dir != "" {
		req.Cwd = &dir
	}
	if outputLimit > 0 {
		req.OutputByteLimit = &outputLimit
	}
	resp, err := e.a.conn.CreateTerminal(ctx, req)
	if err != nil {
		return "", editorError(err)
	}
	id := resp.TerminalId
	if sessionID == e.s.id {
		e.t.setTerminal(callID, id)
		if e.t.waitAnnounced(ctx, callID) {
			u := sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
				ToolCallId: sdk.ToolCallId(callID),
				Content:    []sdk.ToolCallContent{sdk.ToolTerminalRef(id)},
			}}
			if err := e.a.update(context.WithoutCancel(ctx), e.s.id, u); err != nil {
				e.a.opts.Log.Warn("acp: showing a terminal", "err", err)
			}
		}
	}
	return id, nil
}

// TerminalOutput asks the editor for the terminal's output so far.
func (e editorTerminal) TerminalOutput(ctx context.Context, id string) (string, bool, error) {
	resp, err := e.a.conn.TerminalOutput(ctx, sdk.TerminalOutputRequest{SessionId: sdk.SessionId(e.s.id), TerminalId: id})
	if err != nil {
		return "", false, editorError(err)
	}
	return resp.Output, resp.Truncated, nil
}

// WaitForTerminalExit waits for the terminal's command to end.
func (e editorTerminal) WaitForTerminalExit(ctx context.Context, id string) (int, string, error) {
	resp, err := e.a.conn.WaitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{SessionId: sdk.SessionId(e.s.id), TerminalId: id})
	if err != nil {
		return 0, "", editorError(err)
	}
	code, signal := -1, ""
	if resp.ExitCode != nil {
		code = *resp.ExitCode
	}
	if resp.Signal != nil {
		signal = *resp.Signal
	}
	return code, signal, nil
}

// KillTerminal asks the editor to end the terminal's command.
func (e editorTerminal) KillTerminal(ctx context.Context, id string) error {
	_, err := e.a.conn.KillTerminal(ctx, sdk.KillTerminalRequest{SessionId: sdk.SessionId(e.s.id), TerminalId: id})
	return editorError(err)
}

// ReleaseTerminal tells the editor the terminal is no longer needed.
func (e editorTerminal) ReleaseTerminal(ctx context.Context, id string) error {
	_, err := e.a.conn.ReleaseTerminal(ctx, sdk.ReleaseTerminalRequest{SessionId: sdk.SessionId(e.s.id), TerminalId: id})
	return editorError(err)
}

// terminal is where the bash tool of a session's prompt runs commands:
// the editor's terminals when it offered them at initialize and the
// project's config sets acp.terminal, else nil (codeloop's shell).
func (a *Agent) terminal(ctx context.Context, s *session, t *turn) client.Terminal {
	a.mu.Lock()
	offered := a.editorTerminal
	a.mu.Unlock()
	if !offered {
		return nil
	}
	raw, err := s.c.Config(ctx)
	if err != nil {
		a.opts.Log.Warn("acp: reading the config", "err", err)
		return nil
	}
	var cfg struct {
		ACP struct {
			Terminal bool `json:"terminal"`
		} `json:"acp"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil || !cfg.ACP.Terminal {
		return nil
	}
	return editorTerminal{a: a, s: s, t: t}
}

// calls records, for one prompt, the tool calls announced to the editor
// and the terminals their commands run in.
type calls struct {
	mu        sync.Mutex
	announced map[string]chan struct{} // closed once the call's tool_call is sent
	terminals map[string]string        // call id → terminal id
}

// channel returns the channel closed when callID is announced; c.mu is
// held.
func (c *calls) channel(callID string) chan struct{} {
	if c.announced == nil {
		c.announced = map[string]chan struct{}{}
	}
	ch, ok := c.announced[callID]
	if !ok {
		ch = make(chan struct{})
		c.announced[callID] = ch
	}
	return ch
}

// announce records that the editor has been told of callID.
func (c *calls) announce(callID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.channel(callID)
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// setTerminal records the terminal callID's command runs in.
func (c *calls) setTerminal(callID, terminalID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terminals == nil {
		c.terminals = map[string]string{}
	}
	c.terminals[callID] = terminalID
}

// terminal is the terminal callID's command runs in, or "".
func (c *calls) terminal(callID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.terminals[callID]
}

// withTerminal shows the terminal of the call in u, a tool_call or
// tool_call_update, followed by the error of a call that failed.
func (c *calls) withTerminal(u sdk.SessionUpdate, p client.Part) sdk.SessionUpdate {
	id := c.terminal(p.CallID)
	if id == "" {
		return u
	}
	content := []sdk.ToolCallContent{sdk.ToolTerminalRef(id)}
	if p.State != nil && p.State.Status == client.ToolError {
		content = append(content, sdk.ToolContent(sdk.TextBlock(p.State.Error)))
	}
	switch {
	case u.ToolCall != nil:
		u.ToolCall.Content = content
	case u.ToolCallUpdate != nil:
		u.ToolCallUpdate.Content = content
	}
	return u
}
