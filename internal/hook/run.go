package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codeloop/codeloop/internal/proc"
)

// Input is what happened, for the hooks of one event. Tool names and
// arguments are codeloop's; the runner shows them to hooks in Claude
// Code's shape.
type Input struct {
	Event     string
	SessionID string
	// Cwd is the session's working directory; empty means the project's.
	Cwd            string
	PermissionMode string
	// AgentType is the agent answering, for sub-agent events.
	AgentType string

	// Tool events.
	Tool      string
	ToolInput json.RawMessage
	ToolUseID string
	// ToolResponse is the tool's result (PostToolUse) and Error its
	// failure (PostToolUseFailure).
	ToolResponse any
	Error        string
	Duration     time.Duration

	// UserPromptSubmit.
	Prompt string
	// Stop and SubagentStop.
	StopHookActive       bool
	LastAssistantMessage string
	// SessionStart (source), SessionEnd (reason), PreCompact (trigger and
	// custom instructions).
	Source             string
	Reason             string
	Trigger            string
	CustomInstructions string
	// Notification.
	Message          string
	Title            string
	NotificationType string
}

// Result is what the hooks of one event decided, all handlers together.
type Result struct {
	// Block is set when a hook blocked (exit status 2, "decision":
	// "block", or "permissionDecision": "deny"); Reason says why, for the
	// model (tool events, Stop) or the user (UserPromptSubmit).
	Block  bool
	Reason string
	// Permission is a PreToolUse hook's decision short of deny: "allow"
	// (no permission prompt; deny rules still apply) or "ask" (prompt even
	// where the rules allow).
	Permission string
	// UpdatedInput replaces the tool's arguments (codeloop's shape).
	UpdatedInput json.RawMessage
	// Context is text for the model: additionalContext, and plain
	// standard output of UserPromptSubmit and SessionStart hooks.
	Context []string
	// UpdatedOutput, when set, replaces the tool output the model sees.
	UpdatedOutput *string
	// Halt is "continue": false: the agent stops after this; HaltReason
	// is the stopReason shown to the user.
	Halt       bool
	HaltReason string
}

// Notice is something about a hook the user should see: a non-blocking
// error, a timeout, a systemMessage.
type Notice struct {
	SessionID string `json:"sessionID"`
	Event     string `json:"event"`
	Command   string `json:"command"`
	Origin    string `json:"origin"`
	// Error marks a failure; a message otherwise.
	Error bool   `json:"error"`
	Text  string `json:"text"`
}

// Options configure a Runner.
type Options struct {
	// ProjectDir is where the session started: hooks' default working
	// directory and $CLAUDE_PROJECT_DIR.
	ProjectDir string
	// Env is the hooks' base environment; nil means the process's.
	Env []string
	// Shell runs command hooks (shell form); empty means bash, or sh
	// where there is no bash.
	Shell string
	Names Names
	// Notify receives every notice; nil drops them (they are logged).
	Notify func(Notice)
	Log    *slog.Logger
}

// Runner runs the hooks of a Set.
type Runner struct {
	set   *Set
	opts  Options
	shell string
}

// NewRunner returns a runner of set's hooks.
func NewRunner(set *Set, opts Options) *Runner {
	if set == nil {
		set = &Set{}
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	sh := opts.Shell
	if sh == "" {
		sh = "bash"
		if _, err := exec.LookPath(sh); err != nil {
			sh = "/bin/sh"
		}
	}
	return &Runner{set: set, opts: opts, shell: sh}
}

// Set is the runner's hooks.
func (r *Runner) Set() *Set { return r.set }

// Has reports whether any hook is defined for event.
func (r *Runner) Has(event string) bool { return r != nil && r.set.Has(event) }

// outcome is one handler's run.
type outcome struct {
	h        Handler
	code     int // exit status; -1 when it did not run to an end
	stdout   string
	stderr   string
	timedOut bool
	aborted  bool // the caller gave up (the session was aborted)
	err      error
}

// maxCapture bounds what is kept of a hook's standard output and error.
const maxCapture = 1 << 20

// maxText bounds a hook's text that reaches the model.
const maxText = 10_000

// Run runs the hooks that match in, all at once, each within its timeout,
// and combines their decisions. It returns when every hook has ended or
// been stopped; a hook never delays it past its timeout (and a short
// grace for the process to die).
func (r *Runner) Run(ctx context.Context, in Input) Result {
	if r == nil {
		return Result{}
	}
	hs := r.set.matching(in.Event, r.targets(in))
	if len(hs) == 0 {
		return Result{}
	}
	payload, err := json.Marshal(r.payload(in))
	if err != nil {
		r.notify(in, Handler{Event: in.Event}, true, "could not encode the hook input: "+err.Error())
		return Result{}
	}
	outs := make([]outcome, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = r.exec(ctx, h, in, payload)
		}()
	}
	wg.Wait()
	var res Result
	for _, o := range outs {
		r.apply(&res, in, o)
	}
	return res
}

// targets are the names the event's matchers are compared with.
func (r *Runner) targets(in Input) []string {
	switch in.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure:
		return r.opts.Names.candidates(in.Tool)
	case SessionStart:
		return []string{in.Source}
	case SessionEnd:
		return []string{in.Reason}
	case PreCompact:
		return []string{in.Trigger}
	case Notification:
		return []string{in.NotificationType}
	case SubagentStop:
		return []string{in.AgentType}
	}
	return nil
}

// payload is the JSON a hook reads on standard input.
func (r *Runner) payload(in Input) map[string]any {
	cwd := in.Cwd
	if cwd == "" {
		cwd = r.opts.ProjectDir
	}
	mode := in.PermissionMode
	if mode == "" {
		mode = "default"
	}
	p := map[string]any{
		"session_id": in.SessionID, "transcript_path": "", "cwd": cwd,
		"hook_event_name": in.Event, "permission_mode": mode,
	}
	if in.AgentType != "" {
		p["agent_type"] = in.AgentType
	}
	switch in.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure:
		p["tool_name"] = r.opts.Names.Name(in.Tool)
		input := ccInput(in.Tool, in.ToolInput)
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		p["tool_input"] = input
		p["tool_use_id"] = in.ToolUseID
		if in.Event == PostToolUse {
			p["tool_response"] = in.ToolResponse
		}
		if in.Event == PostToolUseFailure {
			p["error"] = in.Error
			p["is_interrupt"] = false
		}
		if in.Event != PreToolUse {
			p["duration_ms"] = in.Duration.Milliseconds()
		}
	case UserPromptSubmit:
		p["prompt"] = in.Prompt
	case Stop, SubagentStop:
		p["stop_hook_active"] = in.StopHookActive
		p["last_assistant_message"] = in.LastAssistantMessage
	case SessionStart:
		p["source"] = in.Source
	case SessionEnd:
		p["reason"] = in.Reason
	case PreCompact:
		p["trigger"] = in.Trigger
		p["custom_instructions"] = in.CustomInstructions
	case Notification:
		p["message"] = in.Message
		p["title"] = in.Title
		p["notification_type"] = in.NotificationType
	}
	return p
}

// exec runs one handler with payload on its standard input.
func (r *Runner) exec(ctx context.Context, h Handler, in Input, payload []byte) outcome {
	o := outcome{h: h, code: -1}
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	var cmd *exec.Cmd
	if h.Args != nil {
		args := make([]string, len(h.Args))
		for i, a := range h.Args {
			args[i] = r.expand(a)
		}
		cmd = exec.Command(r.expand(h.Command), args...)
	} else {
		cmd = exec.Command(r.shell, "-c", h.Command)
	}
	cmd.Dir = in.Cwd
	if cmd.Dir == "" {
		cmd.Dir = r.opts.ProjectDir
	}
	cmd.Env = append(append([]string(nil), r.opts.Env...),
		"CLAUDE_PROJECT_DIR="+r.opts.ProjectDir, "CODELOOP_PROJECT_DIR="+r.opts.ProjectDir,
		"CODELOOP_HOOK_EVENT="+in.Event, "CODELOOP_SESSION_ID="+in.SessionID)
	cmd.Stdin = bytes.NewReader(payload)
	stdout, stderr := &capped{max: maxCapture}, &capped{max: maxCapture}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A process the hook left behind holding its output open must not
	// keep the loop waiting.
	cmd.WaitDelay = 2 * time.Second
	p, err := proc.Start(cmd)
	if err != nil {
		o.err = err
		return o
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		o.timedOut = ctx.Err() == context.DeadlineExceeded
		o.aborted = !o.timedOut
		_ = p.Signal(syscall.SIGKILL)
		<-p.Done()
	}
	err = p.Wait()
	o.stdout, o.stderr = stdout.String(), stderr.String()
	var ee *exec.ExitError
	switch {
	case o.timedOut:
	case err == nil:
		o.code = 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		o.code = ee.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		o.code = 0
		if ps := cmd.ProcessState; ps != nil {
			o.code = ps.ExitCode()
		}
	default:
		o.err = err
	}
	return o
}

// expand replaces ${CLAUDE_PROJECT_DIR} (and $CLAUDE_PROJECT_DIR) in the
// exec form, where no shell does it.
func (r *Runner) expand(s string) string {
	for _, v := range []string{"${CLAUDE_PROJECT_DIR}", "$CLAUDE_PROJECT_DIR", "${CODELOOP_PROJECT_DIR}", "$CODELOOP_PROJECT_DIR"} {
		s = strings.ReplaceAll(s, v, r.opts.ProjectDir)
	}
	return s
}

// apply folds one handler's outcome into res, as Claude Code reads exit
// statuses and JSON output.
func (r *Runner) apply(res *Result, in Input, o outcome) {
	switch {
	case o.aborted:
		return
	case o.err != nil:
		r.notify(in, o.h, true, fmt.Sprintf("could not run: %v", o.err))
		return
	case o.timedOut:
		r.notify(in, o.h, true, fmt.Sprintf("timed out after %s and was stopped; raise its \"timeout\" (seconds) if it needs longer", o.h.Timeout))
		return
	case o.code == 2:
		reason := clip(strings.TrimSpace(o.stderr))
		if reason == "" {
			reason = fmt.Sprintf("blocked by a %s hook", in.Event)
		}
		block(res, reason)
		if in.Event == PreToolUse {
			res.Permission = "deny"
		}
		return
	case o.code != 0:
		line := firstLine(o.stderr)
		if line == "" {
			line = "no error output"
		}
		r.notify(in, o.h, true, fmt.Sprintf("failed with exit status %d: %s", o.code, line))
		return
	}
	out := strings.TrimSpace(o.stdout)
	if strings.HasPrefix(out, "{") {
		var j jsonOutput
		if err := json.Unmarshal([]byte(out), &j); err == nil {
			r.applyJSON(res, in, o.h, j)
			return
		}
	}
	if out == "" {
		return
	}
	switch in.Event {
	case UserPromptSubmit, SessionStart:
		res.Context = append(res.Context, clip(out))
	default:
		r.opts.Log.Debug("hook output", "event", in.Event, "command", o.h.Command, "stdout", out)
	}
}

// jsonOutput is the JSON a hook may print on standard output.
type jsonOutput struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	SystemMessage string `json:"systemMessage"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	Specific      struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		AdditionalContext        string          `json:"additionalContext"`
		UpdatedToolOutput        json.RawMessage `json:"updatedToolOutput"`
	} `json:"hookSpecificOutput"`
}

func (r *Runner) applyJSON(res *Result, in Input, h Handler, j jsonOutput) {
	if j.SystemMessage != "" {
		r.notify(in, h, false, j.SystemMessage)
	}
	if j.Continue != nil && !*j.Continue {
		res.Halt = true
		if j.StopReason != "" {
			res.HaltReason = j.StopReason
		}
	}
	s := j.Specific
	if in.Event == PreToolUse {
		decision, reason := s.PermissionDecision, s.PermissionDecisionReason
		switch j.Decision { // the older top-level form
		case "approve":
			decision, reason = "allow", j.Reason
		case "block":
			decision, reason = "deny", j.Reason
		}
		switch decision {
		case "deny":
			if reason == "" {
				reason = "denied by a PreToolUse hook"
			}
			block(res, clip(reason))
			res.Permission = "deny"
		case "ask":
			if res.Permission != "deny" {
				res.Permission = "ask"
			}
		case "allow":
			if res.Permission == "" {
				res.Permission = "allow"
			}
		}
		if len(s.UpdatedInput) > 0 && string(s.UpdatedInput) != "null" {
			res.UpdatedInput = codeloopInput(in.Tool, s.UpdatedInput)
		}
	} else if j.Decision == "block" {
		reason := j.Reason
		if reason == "" {
			reason = fmt.Sprintf("blocked by a %s hook", in.Event)
		}
		block(res, clip(reason))
	}
	if s.AdditionalContext != "" {
		res.Context = append(res.Context, clip(s.AdditionalContext))
	}
	if in.Event == PostToolUse && len(s.UpdatedToolOutput) > 0 && string(s.UpdatedToolOutput) != "null" {
		var text string
		if json.Unmarshal(s.UpdatedToolOutput, &text) != nil {
			text = string(s.UpdatedToolOutput)
		}
		res.UpdatedOutput = &text
	}
}

func block(res *Result, reason string) {
	res.Block = true
	if res.Reason != "" {
		res.Reason += "\n"
	}
	res.Reason += reason
}

func (r *Runner) notify(in Input, h Handler, isErr bool, text string) {
	n := Notice{SessionID: in.SessionID, Event: in.Event, Command: h.Command, Origin: h.Origin, Error: isErr, Text: text}
	if isErr {
		r.opts.Log.Warn("hook", "event", in.Event, "command", h.Command, "origin", h.Origin, "problem", text)
	} else {
		r.opts.Log.Info("hook message", "event", in.Event, "command", h.Command, "text", text)
	}
	if r.opts.Notify != nil {
		r.opts.Notify(n)
	}
}

// String is the notice as one line for people.
func (n Notice) String() string {
	if n.Error {
		return fmt.Sprintf("%s hook %q %s", n.Event, n.Command, n.Text)
	}
	return fmt.Sprintf("%s hook: %s", n.Event, n.Text)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(s)
}

// clip bounds text from a hook to maxText bytes, cut at a rune boundary.
func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	cut := maxText
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "\n[hook output cut at 10000 characters]"
}

// capped is a buffer that keeps the first max bytes written to it and
// discards the rest.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		if len(p) > room {
			c.buf.Write(p[:room])
		} else {
			c.buf.Write(p)
		}
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
