package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/message"
)

// Limits of a shell command's recorded output.
const (
	// shellOutputLimit is how much of the output's end is kept.
	shellOutputLimit = 50 << 10
	// shellProgress is how often the running output is published.
	shellProgress = 100 * time.Millisecond
)

// shellNote is the synthetic text of the user message a shell command
// is recorded under; the model reads the call that follows as the user's.
const shellNote = "The following tool was executed by the user"

// Shell runs the user's command with the configured shell (/bin/sh when
// none is) in the project directory, and records it as a user message and
// an assistant message holding a completed bash call with the command's
// output. The running output is published as the call's metadata.
func (c *Client) Shell(ctx context.Context, sessionID string, in client.ShellInput) (string, error) {
	if err := c.alive(); err != nil {
		return "", err
	}
	command := strings.TrimSpace(in.Command)
	if command == "" {
		return "", errors.New("the shell command is empty")
	}
	sess, err := c.app.Sessions.Get(ctx, sessionID)
	if err != nil {
		return "", notFound(err, "session "+sessionID)
	}
	if c.app.Engine.Busy(sessionID) {
		return "", fmt.Errorf("running a shell command in session %s: %w; interrupt it first", sessionID, client.ErrBusy)
	}
	run, cancel := context.WithCancel(c.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if !c.startShell(sessionID, cancel) {
		return "", fmt.Errorf("session %s already runs a shell command: %w", sessionID, client.ErrBusy)
	}
	defer c.endShell(sessionID)

	agentName := in.Agent
	if agentName == "" {
		agentName = sess.Agent
	}
	if agentName == "" {
		agentName = c.app.Agents.Default().Name
	}
	// The messages name a model as every message does; a command needs
	// none, so one that cannot be used now does not stop it.
	ref, err := c.app.PickModel(ctx, fromModelRef(in.Model), agentName, &sess)
	if err != nil && sess.Model != nil {
		ref = message.ModelRef{ProviderID: sess.Model.ProviderID, ModelID: sess.Model.ID}
	}

	save := context.WithoutCancel(ctx) // what ran is recorded even if the caller goes
	now := time.Now().UnixMilli()
	user := message.Info{ID: id.Ascending(id.Message), SessionID: sessionID, Role: message.RoleUser,
		Time: message.Time{Created: now}, Agent: agentName, Model: ref}
	if err := c.app.Sessions.PutMessage(save, user); err != nil {
		return "", err
	}
	note := &message.TextPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sessionID, MessageID: user.ID},
		Text: shellNote, Synthetic: true}
	if err := c.app.Sessions.PutPart(save, note); err != nil {
		return "", err
	}
	answer := message.Info{ID: id.Ascending(id.Message), SessionID: sessionID, Role: message.RoleAssistant,
		Time: message.Time{Created: now}, ParentID: user.ID, ModelID: ref.ModelID, ProviderID: ref.ProviderID,
		Mode: agentName, Agent: agentName, Path: message.Path{Cwd: c.app.Dir, Root: c.app.Worktree}}
	if err := c.app.Sessions.PutMessage(save, answer); err != nil {
		return "", err
	}
	input, _ := json.Marshal(map[string]string{"command": command})
	partID := id.Ascending(id.Part)
	call := &message.ToolPart{PartBase: message.PartBase{ID: partID, SessionID: sessionID, MessageID: answer.ID},
		CallID: partID, Tool: "bash",
		State: message.ToolState{Status: message.ToolRunning, Input: input, Title: command, Time: message.ToolTime{Start: now}}}
	if err := c.app.Sessions.PutPart(save, call); err != nil {
		return "", err
	}

	out := &tailBuffer{limit: shellOutputLimit}
	code, runErr := c.runShell(run, command, out, func(text string) {
		call.State.Metadata = map[string]any{"output": text, "description": command}
		_ = c.app.Sessions.PutPart(save, call)
	})
	output := out.String()
	switch {
	case run.Err() != nil:
		output += "\n\n<metadata>\nUser aborted the command\n</metadata>"
	case runErr != nil:
		output += "\n\n<metadata>\n" + runErr.Error() + "\n</metadata>"
	}
	end := time.Now().UnixMilli()
	call.State = message.ToolState{Status: message.ToolCompleted, Input: input, Output: output, Title: command,
		Metadata: map[string]any{"output": output, "exit": code, "description": command},
		Time:     message.ToolTime{Start: now, End: end}}
	if err := c.app.Sessions.PutPart(save, call); err != nil {
		return "", err
	}
	answer.Time.Completed = end
	answer.Finish = "stop"
	if err := c.app.Sessions.PutMessage(save, answer); err != nil {
		return "", err
	}
	return answer.ID, nil
}

// runShell runs command until it ends or ctx does, calling progress with
// the output so far at most every shellProgress. It returns the exit
// status (-1 when there is none) and the error of a command that could not
// run.
func (c *Client) runShell(ctx context.Context, command string, out *tailBuffer, progress func(string)) (int, error) {
	shell := c.app.Config.Config.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	cmd := exec.CommandContext(ctx, shell, "-c", command)
	cmd.Dir = c.app.Dir
	cmd.Env = append(os.Environ(), "TERM=dumb")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 2 * time.Second // children holding the output must not hold us
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return -1, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(shellProgress)
	defer tick.Stop()
	seen := 0
	for {
		select {
		case err := <-done:
			code := -1
			if cmd.ProcessState != nil {
				code = cmd.ProcessState.ExitCode()
			}
			var exit *exec.ExitError
			if err != nil && (errors.As(err, &exit) || ctx.Err() != nil) {
				err = nil
			}
			return code, err
		case <-tick.C:
			if n := out.Written(); n != seen {
				seen = n
				progress(out.String())
			}
		}
	}
}

func (c *Client) startShell(sessionID string, cancel context.CancelFunc) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.shells[sessionID]; ok || c.closed {
		return false
	}
	c.shells[sessionID] = cancel
	c.wg.Add(1)
	return true
}

func (c *Client) endShell(sessionID string) {
	c.mu.Lock()
	delete(c.shells, sessionID)
	c.mu.Unlock()
	c.wg.Done()
}

func (c *Client) stopShell(sessionID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cancel := c.shells[sessionID]; cancel != nil {
		cancel()
	}
}

func (c *Client) shellRunning(sessionID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.shells[sessionID]
	return ok
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	limit int

	mu      sync.Mutex
	buf     []byte
	written int
	cut     bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.written += len(p)
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.cut = true
	}
	return len(p), nil
}

// Written is the number of bytes written so far.
func (b *tailBuffer) Written() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.written
}

// String is the output kept, marked when its start was cut.
func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := strings.ToValidUTF8(string(b.buf), "")
	if b.cut {
		return fmt.Sprintf("...(output truncated: the first %d bytes are not shown)...\n%s", b.written-len(b.buf), s)
	}
	return s
}
