package tool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/proc"
	"github.com/codeloop/codeloop/internal/sandbox"
	"github.com/codeloop/codeloop/internal/shellscan"
)

// Bash defaults.
const (
	BashDefaultTimeout = 2 * time.Minute
	BashKillGrace      = 3 * time.Second
	// BashLiveChars is how much of the output the live metadata carries.
	BashLiveChars = 30000
	// bashSpillBytes is how much output is kept in memory before the rest
	// goes to a file.
	bashSpillBytes = 8 << 20
	// bashPipeGrace bounds the wait for output after the shell exits while
	// a background process still holds its pipes.
	bashPipeGrace = 250 * time.Millisecond
)

// BashAnalysis is what the permission check needs to know about a shell
// command.
type BashAnalysis struct {
	Patterns     []string // the "bash" permission patterns (one per command run)
	Always       []string // what an "always" reply approves
	Paths        []string // path arguments of file commands, as written
	Unanalysable bool     // the real commands cannot be known statically
	Reason       string   // why, when Unanalysable
	// Aliases name the programs that commands run through a link or a
	// copy really are.
	Aliases []permission.Alias
	// Inline are the commands that run code given to an interpreter.
	Inline []permission.Inline
}

type bashParams struct {
	Command     string `json:"command" jsonschema:"The command to run"`
	Timeout     int    `json:"timeout,omitempty" jsonschema:"Timeout in milliseconds"`
	Workdir     string `json:"workdir,omitempty" jsonschema:"Directory to run in, instead of cd (default: the working directory)"`
	Description string `json:"description,omitempty" jsonschema:"What the command does, in 5-10 words"`
	Sandbox     string `json:"sandbox,omitempty" jsonschema:"off runs the command outside the sandbox, once the user approves"`
}

func newBash(env Env) Tool {
	var terminalOff sync.Once
	return Must(Def[bashParams]{
		Traits:      Traits{Kind: KindExecute},
		Summary:     func(p bashParams, _ string) string { return p.Command },
		ID:          "bash",
		Description: describe("bash"),
		Schema: func(s *jsonschema.Schema) {
			prop(s, "timeout").ExclusiveMinimum = ptr(0.0)
			if env.Sandbox == nil || env.Sandbox.Mode == "" || env.Sandbox.Mode == sandbox.ModeOff {
				delete(s.Properties, "sandbox") // offered only with the sandbox on
			} else {
				prop(s, "sandbox").Enum = []any{"off"}
			}
		},
		Truncate: env.Truncator,
		Tail:     true,
		Run: func(ctx context.Context, call *Call, p bashParams) (*Result, error) {
			return runBash(ctx, env, call, p, &terminalOff)
		},
	})
}

// shellFor picks the shell that runs commands: the configured one, else
// bash, else sh. The user's $SHELL is not used: the permission analysis
// reads commands as bash reads them, and zsh or fish would run the same
// text differently.
func shellFor(env Env) string {
	if env.Shell != "" {
		return env.Shell
	}
	if s := platformShell(); s != "" {
		return s
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// analyzeBash splits command into permission patterns, with
// shellscan.Analyze unless env overrides it. Paths only known at run
// time are left out: such commands are marked unanalysable by the
// analysis where it matters.
func analyzeBash(env Env, command, dir string) BashAnalysis {
	if env.AnalyzeBash != nil {
		return env.AnalyzeBash(command, dir)
	}
	home, _ := os.UserHomeDir()
	a := shellscan.Analyze(command, shellscan.AnalyzeOptions{Shell: analysisShell(shellFor(env)), Dir: dir, Path: os.Getenv("PATH"), Home: home})
	var paths []string
	for _, p := range a.Paths {
		if !p.Dynamic {
			paths = append(paths, p.Path)
		}
	}
	return BashAnalysisOf(a, paths)
}

// BashAnalysisOf is what the permission check needs to know of the shell
// analysis a, with paths the file paths to check.
func BashAnalysisOf(a shellscan.Analysis, paths []string) BashAnalysis {
	out := BashAnalysis{Patterns: a.Patterns, Always: a.Always, Paths: paths, Unanalysable: a.Unanalysable, Reason: a.Reason}
	for _, al := range a.Aliases {
		out.Aliases = append(out.Aliases, permission.Alias(al))
	}
	for _, in := range a.Inline {
		out.Inline = append(out.Inline, permission.Inline(in))
	}
	return out
}

// runBash runs one call. terminalOff logs, once per tool, that the
// editor's terminals are not used because the sandbox is on.
func runBash(ctx context.Context, env Env, call *Call, p bashParams, terminalOff *sync.Once) (*Result, error) {
	var err error
	if env.Sandbox, err = env.Sandbox.tighten(call.Sandbox); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Command) == "" {
		return nil, fmt.Errorf("command is empty")
	}
	timeout := env.BashTimeout
	if timeout <= 0 {
		timeout = BashDefaultTimeout
	}
	if p.Timeout > 0 {
		timeout = time.Duration(p.Timeout) * time.Millisecond
	}
	if env.BashMaxTimeout > 0 && timeout > env.BashMaxTimeout {
		timeout = env.BashMaxTimeout
	}
	dir := baseDir(call)
	if p.Workdir != "" {
		dir = absPath(dir, p.Workdir)
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("workdir %s is not a directory", dir)
	}

	if p.Sandbox != "" && p.Sandbox != "off" {
		return nil, fmt.Errorf("sandbox %q: the only value is \"off\", to run the command outside the sandbox", p.Sandbox)
	}
	confine, err := env.Sandbox.plan(ctx, call, dir, p.Sandbox == "off")
	if err != nil {
		return nil, err
	}
	a := analyzeBash(env, p.Command, dir)
	targets := []target{{path: dir, isDir: true}}
	for _, arg := range a.Paths {
		path := absPath(dir, arg)
		info, err := os.Stat(path)
		targets = append(targets, target{path: path, isDir: err == nil && info.IsDir()})
	}
	if err := askExternal(ctx, call, targets...); err != nil {
		return nil, err
	}
	if len(a.Patterns) > 0 || a.Unanalysable || confine.confirm {
		patterns := a.Patterns
		if len(patterns) == 0 {
			patterns = []string{p.Command}
		}
		meta := map[string]any{"command": p.Command, "description": p.Description, "workdir": dir}
		if a.Reason != "" {
			meta["reason"] = a.Reason
		}
		if confine.note != "" {
			meta["sandbox"] = confine.note
		}
		if err := call.Ask(ctx, permission.Request{
			Permission:   "bash",
			Patterns:     patterns,
			Always:       a.Always,
			Metadata:     meta,
			Unanalysable: a.Unanalysable,
			Reason:       a.Reason,
			Aliases:      a.Aliases,
			Inline:       a.Inline,
			Confined:     confine.policy != nil && env.Sandbox.AutoAllow,
			Confirm:      confine.confirm,
		}); err != nil {
			return nil, err
		}
	}

	title := p.Description
	if title == "" {
		title = p.Command
	}
	sink := &bashSink{tr: env.Truncator, live: func(out string) {
		call.progress(title, map[string]any{"output": out, "description": p.Description})
	}}
	defer sink.close()
	call.progress(title, map[string]any{"output": "", "description": p.Description})

	grace := env.BashKillGrace
	if grace <= 0 {
		grace = BashKillGrace
	}
	sh := shellCommand(shellFor(env), p.Command, dir)
	var o bashOutcome
	if call.Terminal != nil && !env.Sandbox.on() {
		o, err = runInTerminal(ctx, call, sh, timeout, sink, func(id, out string) {
			call.progress(title, map[string]any{"output": out, "description": p.Description, "terminal": id})
		})
	} else {
		if call.Terminal != nil {
			terminalOff.Do(func() {
				env.log().Info("bash runs commands in codeloop's shell, not the editor's terminals, because a sandbox mode is on: the sandbox cannot confine a command the editor runs",
					"sandbox", string(env.Sandbox.Mode))
			})
		}
		o, err = runLocal(ctx, env, sh, confine, timeout, grace, sink)
	}
	if err != nil {
		return nil, err
	}
	return bashResult(call, p, o, confine, timeout, sink, title), nil
}

// bashOutcome is how a command ended, wherever it ran.
type bashOutcome struct {
	exit     int    // the exit code, -1 when unknown or ended by a signal
	signal   string // the signal that ended it, if one did
	timedOut bool
	aborted  bool
	err      error // a failure to run or follow it, other than its exit status
	// terminal is the id of the editor's terminal it ran in, and cut
	// reports that the terminal dropped the start of its output.
	terminal string
	cut      bool
	// restored are the protected paths the sandbox undid the command's
	// changes to; restoreErr says what it could not undo.
	restored   []string
	restoreErr error
}

// runLocal runs the command in codeloop's own shell, confined as planned.
func runLocal(ctx context.Context, env Env, sh shellCmd, confine confinePlan, timeout, grace time.Duration, sink *bashSink) (bashOutcome, error) {
	// What of the protected paths a mount cannot cover (those that do not
	// exist yet) is undone once the command has ended.
	var guard sandbox.Guard
	if confine.policy != nil {
		guard = confine.policy.Guard()
	}
	run, err := startShell(sh, sink, func(cmd *exec.Cmd) error {
		return env.Sandbox.wrap(ctx, cmd, confine)
	})
	if err != nil {
		return bashOutcome{}, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var o bashOutcome
	select {
	case <-run.p.Done():
	case <-timer.C:
		o.timedOut = true
		run.kill(grace)
	case <-ctx.Done():
		o.aborted = true
		run.kill(grace)
	}
	runErr := run.p.Wait()
	o.restored, o.restoreErr = guard.Restore()
	o.exit, o.signal = exitStatus(run.p.Cmd())
	if runErr != nil && !errors.Is(runErr, exec.ErrWaitDelay) {
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) {
			o.err = runErr
		}
	}
	return o, nil
}

// bashResult is what the model is told of a finished command: its output
// (truncated as the tool's output is) and notes on how it ended.
func bashResult(call *Call, p bashParams, o bashOutcome, confine confinePlan, timeout time.Duration, sink *bashSink, title string) *Result {
	var notes []string
	if o.timedOut {
		notes = append(notes, fmt.Sprintf("bash tool terminated the command after exceeding the timeout of %d ms. If it needs longer and is not waiting for input, run it again with a larger timeout.", timeout.Milliseconds()))
	}
	if o.aborted {
		notes = append(notes, "The user aborted the command.")
	}
	if !o.timedOut && !o.aborted {
		switch {
		case o.signal != "":
			notes = append(notes, "The command was killed by signal "+o.signal+".")
		case o.exit != 0:
			notes = append(notes, fmt.Sprintf("Exit code: %d", o.exit))
		}
		if confine.policy != nil && (o.exit != 0 || o.signal != "") {
			if hint := sandboxHint(*confine.policy, sink.liveOutput()); hint != "" {
				notes = append(notes, hint)
			}
		}
	}
	if len(o.restored) > 0 {
		notes = append(notes, "The sandbox undid what the command did to "+strings.Join(o.restored, ", ")+
			": confined commands may not create or replace these, which hold code or settings that git or codeloop would run or read on the user's behalf.")
	}
	if o.restoreErr != nil {
		notes = append(notes, "The sandbox could not undo what the command did to protected paths: "+o.restoreErr.Error())
	}
	if o.cut {
		notes = append(notes, fmt.Sprintf("The editor's terminal kept only the last %d bytes of the output; the start is lost.", terminalOutputLimit))
	}
	if o.err != nil {
		notes = append(notes, "Error: "+o.err.Error())
	}

	meta := map[string]any{"exit": o.exit, "description": p.Description}
	if confine.policy != nil {
		meta["sandbox"] = confine.policy.String()
	} else if confine.note != "" {
		meta["sandbox"] = confine.note
	}
	if o.terminal != "" {
		meta["terminal"] = o.terminal
	}
	if len(o.restored) > 0 {
		meta["sandboxRestored"] = o.restored
	}
	if o.timedOut {
		meta["timedOut"] = true
	}
	if o.aborted {
		meta["aborted"] = true
	}
	out, path := sink.result(call.CanDelegate)
	if path != "" {
		meta["truncated"] = true
		meta["outputPath"] = path
	}
	meta["output"] = sink.liveOutput()
	if strings.TrimSpace(out) == "" && path == "" {
		out = "(no output)"
	}
	if len(notes) > 0 {
		out += "\n\n<shell_metadata>\n" + strings.Join(notes, "\n") + "\n</shell_metadata>"
	}
	return &Result{Title: title, Output: out, Metadata: meta}
}

// shellCmd is a command as the shell runs it: the program and its
// arguments, the environment and the directory.
type shellCmd struct {
	argv []string
	env  []string
	dir  string
}

// shellCommand is how shell runs command in dir, with codeloop's
// environment, wherever it runs.
func shellCommand(shell, command, dir string) shellCmd {
	return shellCmd{argv: shellArgs(shell, command), env: os.Environ(), dir: dir}
}

// shellRun is a started shell.
type shellRun struct {
	p *proc.Process
}

// startShell starts the shell command through proc.Start: in a process
// group of its own that dies with codeloop. prepare may rewrite the
// command (the sandbox runs it through its helper).
func startShell(sh shellCmd, out *bashSink, prepare func(*exec.Cmd) error) (*shellRun, error) {
	cmd := exec.Command(sh.argv[0], sh.argv[1:]...)
	cmd.Dir = sh.dir
	cmd.Env = sh.env
	cmd.Stdin = nil // reads from the null device
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.WaitDelay = bashPipeGrace
	if err := prepare(cmd); err != nil {
		return nil, err
	}
	p, err := proc.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", sh.argv[0], err)
	}
	return &shellRun{p: p}, nil
}

// kill ends the shell's whole process group: SIGTERM, then SIGKILL if it
// is still there after grace.
func (r *shellRun) kill(grace time.Duration) {
	_ = r.p.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-r.p.Done():
		// The shell is gone; make sure nothing it started lingers.
	case <-t.C:
	}
	_ = r.p.Signal(syscall.SIGKILL)
}

// bashSink collects a command's output: in memory up to bashSpillBytes,
// then in a file of the truncator's directory, keeping the tail in memory.
type bashSink struct {
	tr   *Truncator
	live func(string)

	mu        sync.Mutex
	buf       []byte // everything, until spilled; then the tail
	file      *os.File
	path      string
	lastLive  time.Time
	total     int
	lines     int
	spillFail error
}

func (s *bashSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.total += len(p)
	for _, c := range p {
		if c == '\n' {
			s.lines++
		}
	}
	if s.file != nil {
		_, _ = s.file.Write(p)
		s.buf = append(s.buf, p...)
		if keep := s.tailBytes(); len(s.buf) > 2*keep {
			s.buf = append(s.buf[:0], s.buf[len(s.buf)-keep:]...)
		}
	} else {
		s.buf = append(s.buf, p...)
		if len(s.buf) > bashSpillBytes && s.tr != nil && s.spillFail == nil {
			s.spill()
		}
	}
	emit := time.Since(s.lastLive) >= 50*time.Millisecond
	var live string
	if emit {
		s.lastLive = time.Now()
		live = s.tail()
	}
	s.mu.Unlock()
	if emit && s.live != nil {
		s.live(live)
	}
	return len(p), nil
}

// tailBytes is how much of the output's end must stay in memory to build
// the kept tail.
func (s *bashSink) tailBytes() int {
	return 2*s.tr.Limits.withDefaults().MaxBytes + BashLiveChars
}

func (s *bashSink) spill() {
	f, path, err := s.tr.create()
	if err != nil {
		s.spillFail = err
		return
	}
	if _, err := f.Write(s.buf); err != nil {
		f.Close()
		os.Remove(path)
		s.spillFail = err
		return
	}
	s.file, s.path = f, path
	if keep := s.tailBytes(); len(s.buf) > keep {
		s.buf = append(s.buf[:0], s.buf[len(s.buf)-keep:]...)
	}
}

func (s *bashSink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
}

// liveOutput is the end of the output, as the live metadata shows it.
func (s *bashSink) liveOutput() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tail()
}

// tail is the last BashLiveChars bytes of the output; s.mu is held.
func (s *bashSink) tail() string {
	return lastChars(string(s.buf[max(0, len(s.buf)-BashLiveChars-4):]), BashLiveChars)
}

// result is the output to return and, when the output was spilled to a
// file, that file's path (the output is then already cut to its tail).
func (s *bashSink) result(canDelegate bool) (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" {
		return string(s.buf), ""
	}
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	l := s.tr.Limits.withDefaults()
	tail := string(s.buf)
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:] // the first line in memory may be partial
	}
	kept, keptLines, hitBytes := cut(tail, l, true)
	removed, unit := s.lines+1-keptLines, "lines"
	if hitBytes {
		removed, unit = s.total-len(kept), "bytes"
	}
	return s.tr.compose(kept, removed, unit, s.path, nil, canDelegate, true), s.path
}

// lastChars is the end of s, at most n bytes, cut at a character boundary.
func lastChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for i := 0; i < len(s) && i < 4; i++ {
		if s[i]&0xC0 != 0x80 {
			return s[i:]
		}
	}
	return s
}
