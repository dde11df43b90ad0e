package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/proc"
	"github.com/codeloop/codeloop/internal/tool"
)

// Limits of a user's shell command's recorded output.
const (
	// shellOutputLimit is how much of the output's end is kept.
	shellOutputLimit = 50 << 10
	// shellProgress is how often the running output is stored.
	shellProgress = 100 * time.Millisecond
	// shellStopGrace is how long a stopped command has to end after
	// SIGTERM before its group is killed.
	shellStopGrace = 2 * time.Second
)

// ShellNote is the synthetic text of the user message a shell command is
// recorded under; the model reads the call that follows as the user's.
const ShellNote = "The following tool was executed by the user"

// ShellInput is a command the user typed (!cmd) to run in a session.
type ShellInput struct {
	SessionID string
	Command   string
	// Agent and Model are what the recorded messages name; the command
	// needs neither.
	Agent string
	Model message.ModelRef
	// Shell runs the command as `Shell -c Command`; empty means /bin/sh.
	Shell string
}

// shellRun is a user's shell command running in a session.
type shellRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Shell runs the user's command in the project directory, in a process
// group that dies with codeloop, and records it as a user message and an
// assistant message holding a completed bash call with the command's
// output; the running output is stored as the call's metadata as it
// comes. The session is busy meanwhile: a second command or a revert is
// refused, and a prompt sent meanwhile is answered once the command ends.
// Cancel (or ctx) stops it. It returns the assistant message.
func (e *Engine) Shell(ctx context.Context, in ShellInput) (message.Message, error) {
	command := strings.TrimSpace(in.Command)
	if command == "" {
		return message.Message{}, errors.New("the shell command is empty")
	}
	// The messages' ids are taken before the session is marked busy, so
	// that a prompt sent while the command runs sorts after them.
	userID, answerID := id.Ascending(id.Message), id.Ascending(id.Message)
	run, cancel := context.WithCancel(e.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	sh, err := e.startShell(in.SessionID, cancel)
	if err != nil {
		return message.Message{}, err
	}
	defer e.endShell(in.SessionID, sh)
	e.setStatus(in.SessionID, Status{Type: StatusBusy, Message: "running your shell command"})

	save := context.WithoutCancel(ctx) // what ran is recorded even if the caller goes
	now := e.cfg.Now().UnixMilli()
	user := message.Info{ID: userID, SessionID: in.SessionID, Role: message.RoleUser,
		Time: message.Time{Created: now}, Agent: in.Agent, Model: in.Model}
	if err := e.sessions.PutMessage(save, user); err != nil {
		return message.Message{}, err
	}
	note := &message.TextPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: in.SessionID, MessageID: user.ID},
		Text: ShellNote, Synthetic: true}
	if err := e.sessions.PutPart(save, note); err != nil {
		return message.Message{}, err
	}
	answer := message.Info{ID: answerID, SessionID: in.SessionID, Role: message.RoleAssistant,
		Time: message.Time{Created: now}, ParentID: user.ID, ModelID: in.Model.ModelID, ProviderID: in.Model.ProviderID,
		Mode: in.Agent, Agent: in.Agent, Path: message.Path{Cwd: e.cfg.Directory, Root: e.cfg.Worktree}}
	if err := e.sessions.PutMessage(save, answer); err != nil {
		return message.Message{}, err
	}
	// What the command changes is kept like a model step's changes, so
	// that undoing the command restores the files.
	cp := e.shellCheckpoint(save, in.SessionID, answer.ID)
	input, _ := json.Marshal(map[string]string{"command": command})
	partID := id.Ascending(id.Part)
	call := &message.ToolPart{PartBase: message.PartBase{ID: partID, SessionID: in.SessionID, MessageID: answer.ID},
		CallID: partID, Tool: "bash", Kind: string(tool.KindExecute), Summary: command,
		State: message.ToolState{Status: message.ToolRunning, Input: input, Title: command, Time: message.ToolTime{Start: now}}}
	if err := e.sessions.PutPart(save, call); err != nil {
		return message.Message{}, err
	}

	out := &tailBuffer{limit: shellOutputLimit}
	code, runErr := e.runShell(run, in.Shell, command, out, func(text string) {
		call.State.Metadata = map[string]any{"output": text, "description": command}
		_ = e.sessions.PutPart(save, call)
	})
	output := out.String()
	switch {
	case run.Err() != nil:
		output += "\n\n<metadata>\nUser aborted the command\n</metadata>"
	case runErr != nil:
		output += "\n\n<metadata>\n" + runErr.Error() + "\n</metadata>"
	}
	end := e.cfg.Now().UnixMilli()
	call.State = message.ToolState{Status: message.ToolCompleted, Input: input, Output: output, Title: command,
		Metadata: map[string]any{"output": output, "exit": code, "description": command},
		Time:     message.ToolTime{Start: now, End: end}}
	if err := e.sessions.PutPart(save, call); err != nil {
		return message.Message{}, err
	}
	if err := e.closeShellCheckpoint(save, in.SessionID, answer.ID, cp); err != nil {
		return message.Message{}, err
	}
	answer.Time.Completed = end
	answer.Finish = "stop"
	if err := e.sessions.PutMessage(save, answer); err != nil {
		return message.Message{}, err
	}
	return message.Message{Info: answer, Parts: []message.Part{call}}, nil
}

// shellCheckpoint opens a snapshot checkpoint for a shell command's answer
// and records it as the start of a step; "" when snapshots are off or the
// checkpoint could not be opened (the command runs anyway).
func (e *Engine) shellCheckpoint(ctx context.Context, sessionID, messageID string) string {
	if e.cfg.Snapshots == nil {
		return ""
	}
	cp, err := e.cfg.Snapshots.Begin(ctx, e.cfg.Worktree, sessionID, messageID)
	if err != nil {
		e.cfg.Log.Warn("opening a snapshot for a shell command", "err", err)
		return ""
	}
	start := &message.StepStartPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sessionID, MessageID: messageID},
		Snapshot: cp}
	if err := e.sessions.PutPart(ctx, start); err != nil {
		e.cfg.Log.Warn("recording a shell command's checkpoint", "err", err)
		return ""
	}
	if err := e.cfg.Snapshots.BeforeTool(ctx, cp); err != nil {
		e.cfg.Log.Warn("scanning the project before a shell command", "err", err)
	}
	return cp
}

// closeShellCheckpoint closes the checkpoint and records what the command
// changed as the answer's patch part.
func (e *Engine) closeShellCheckpoint(ctx context.Context, sessionID, messageID, cp string) error {
	if cp == "" {
		return nil
	}
	patch, err := e.cfg.Snapshots.Finish(ctx, cp)
	if err != nil {
		e.cfg.Log.Warn("closing a shell command's snapshot", "err", err)
		return nil
	}
	if len(patch.Files) == 0 && len(patch.Skipped) == 0 {
		return nil
	}
	part := &message.PatchPart{PartBase: message.PartBase{ID: id.Ascending(id.Part), SessionID: sessionID, MessageID: messageID},
		Hash: cp, Files: patch.Files}
	for _, sk := range patch.Skipped {
		part.Skipped = append(part.Skipped, sk.Path+": "+sk.Reason)
	}
	return e.sessions.PutPart(ctx, part)
}

// startShell marks the session busy with a shell command, or says why it
// cannot run one now.
func (e *Engine) startShell(sessionID string, cancel context.CancelFunc) (*shellRun, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.ctx.Err() != nil:
		return nil, errors.New("codeloop is shutting down")
	case e.runners[sessionID] != nil:
		return nil, fmt.Errorf("running a shell command in session %s: %w; interrupt it first", sessionID, ErrBusy)
	case e.shells[sessionID] != nil:
		return nil, fmt.Errorf("session %s already runs a shell command: %w", sessionID, ErrBusy)
	}
	sh := &shellRun{cancel: cancel, done: make(chan struct{})}
	e.shells[sessionID] = sh
	e.wg.Add(1)
	return sh, nil
}

// endShell marks the command ended; a prompt sent meanwhile starts now.
func (e *Engine) endShell(sessionID string, sh *shellRun) {
	e.mu.Lock()
	delete(e.shells, sessionID)
	idle := e.runners[sessionID] == nil
	e.mu.Unlock()
	close(sh.done)
	if idle {
		e.setStatus(sessionID, Status{Type: StatusIdle})
	}
	e.wg.Done()
}

// ErrBusy says a session already runs something that excludes what was
// asked.
var ErrBusy = errors.New("the session is busy")

// runShell runs command until it ends or ctx does, calling progress with
// the output so far at most every shellProgress. It returns the exit
// status (-1 when there is none) and the error of a command that could not
// run.
func (e *Engine) runShell(ctx context.Context, shell, command string, out *tailBuffer, progress func(string)) (int, error) {
	if shell == "" {
		shell = "/bin/sh"
	}
	cmd := exec.Command(shell, "-c", command)
	cmd.Dir = e.cfg.Directory
	cmd.Env = append(os.Environ(), "TERM=dumb")
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 2 * time.Second // children holding the output must not hold us
	p, err := proc.Start(cmd)
	if err != nil {
		return -1, err
	}
	tick := time.NewTicker(shellProgress)
	defer tick.Stop()
	seen := 0
	stopping := ctx.Done()
	var kill <-chan time.Time
	for {
		select {
		case <-p.Done():
			err := p.Wait()
			code := -1
			if cmd.ProcessState != nil {
				code = cmd.ProcessState.ExitCode()
			}
			var exit *exec.ExitError
			if err != nil && (errors.As(err, &exit) || ctx.Err() != nil) {
				err = nil
			}
			return code, err
		case <-stopping:
			stopping = nil
			_ = p.Signal(syscall.SIGTERM)
			kill = time.After(shellStopGrace)
		case <-kill:
			_ = p.Signal(syscall.SIGKILL)
		case <-tick.C:
			if n := out.Written(); n != seen {
				seen = n
				progress(out.String())
			}
		}
	}
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
