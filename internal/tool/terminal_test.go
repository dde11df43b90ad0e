package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/sandbox"
	"github.com/codeloop/codeloop/internal/waitfor"
)

// execTerminal is a Terminal that really runs each command with os/exec,
// as an editor's terminal does, with MARKER=exec added to its environment;
// it records the requests it gets.
type execTerminal struct {
	mu    sync.Mutex
	calls []string // "create", "output", "wait", "kill", "release", each with the id
	argv  [][]string
	dirs  []string
	limit int
	terms map[string]*execTerm
}

type execTerm struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func (t *execTerm) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.Write(p)
}

func (e *execTerminal) record(call string) {
	e.mu.Lock()
	e.calls = append(e.calls, call)
	e.mu.Unlock()
}

func (e *execTerminal) recorded() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.calls)
}

func (e *execTerminal) term(id string) (*execTerm, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if t, ok := e.terms[id]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("no terminal %s", id)
}

func (e *execTerminal) CreateTerminal(_ context.Context, _, _ string, argv, env []string, dir string, limit int) (string, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(slices.Clone(env), "MARKER=exec")
	t := &execTerm{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = t, t
	cmd.WaitDelay = 100 * time.Millisecond
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go func() {
		_ = cmd.Wait()
		close(t.done)
	}()
	e.mu.Lock()
	id := fmt.Sprintf("term-%d", len(e.terms)+1)
	if e.terms == nil {
		e.terms = map[string]*execTerm{}
	}
	e.terms[id] = t
	e.argv = append(e.argv, argv)
	e.dirs = append(e.dirs, dir)
	e.limit = limit
	e.calls = append(e.calls, "create "+id)
	e.mu.Unlock()
	return id, nil
}

// output returns what terminal id printed so far, without recording a call.
func (e *execTerminal) output(id string) string {
	t, err := e.term(id)
	if err != nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.String()
}

func (e *execTerminal) TerminalOutput(_ context.Context, id string) (string, bool, error) {
	e.record("output " + id)
	t, err := e.term(id)
	if err != nil {
		return "", false, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.String(), false, nil
}

func (e *execTerminal) WaitForTerminalExit(ctx context.Context, id string) (int, string, error) {
	e.record("wait " + id)
	t, err := e.term(id)
	if err != nil {
		return 0, "", err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return 0, "", ctx.Err()
	}
	code, signal := exitStatus(t.cmd)
	return code, signal, nil
}

func (e *execTerminal) KillTerminal(_ context.Context, id string) error {
	e.record("kill " + id)
	t, err := e.term(id)
	if err != nil {
		return err
	}
	_ = t.cmd.Process.Kill()
	return nil
}

func (e *execTerminal) ReleaseTerminal(_ context.Context, id string) error {
	e.record("release " + id)
	t, err := e.term(id)
	if err != nil {
		return err
	}
	_ = t.cmd.Process.Kill()
	<-t.done
	return nil
}

// runBashCall runs bash with input through a terminal when term is set.
func runBashCall(t *testing.T, ctx context.Context, env Env, term Terminal, input map[string]any) *Result {
	t.Helper()
	b, _ := json.Marshal(input)
	call := &Call{ID: "call_1", Tool: "bash", Input: b, SessionID: "ses_1", Dir: t.TempDir(), Terminal: term}
	res, err := toolByID(t, env, "bash").Run(ctx, call)
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	return res
}

func TestBashInTerminal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, command string
		timeout       int
		cancelOn      string // cancel the call once the terminal shows this
		wantOut       []string
		wantCalls     []string // in order, among others
		wantMeta      map[string]any
	}{
		{
			name:      "exit status",
			command:   `echo "ran by $MARKER in $PWD"; exit 3`,
			wantOut:   []string{"ran by exec in ", "<shell_metadata>\nExit code: 3\n</shell_metadata>"},
			wantCalls: []string{"create term-1", "wait term-1", "output term-1", "release term-1"},
			wantMeta:  map[string]any{"exit": 3, "terminal": "term-1"},
		},
		{
			name:      "timeout",
			command:   `echo started; exec sleep 30`,
			timeout:   300,
			wantOut:   []string{"started", "bash tool terminated the command after exceeding the timeout of 300 ms"},
			wantCalls: []string{"create term-1", "kill term-1", "output term-1", "release term-1"},
			wantMeta:  map[string]any{"timedOut": true, "terminal": "term-1"},
		},
		{
			name:      "abort",
			command:   `echo started; exec sleep 30`,
			cancelOn:  "started",
			wantOut:   []string{"started", "The user aborted the command."},
			wantCalls: []string{"create term-1", "kill term-1", "output term-1", "release term-1"},
			wantMeta:  map[string]any{"aborted": true, "terminal": "term-1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := &execTerminal{}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelOn != "" {
				go func() {
					waitfor.Within(waitfor.Deadline, func() bool {
						return ctx.Err() != nil || strings.Contains(term.output("term-1"), tt.cancelOn)
					})
					cancel()
				}()
			}
			input := map[string]any{"command": tt.command}
			if tt.timeout > 0 {
				input["timeout"] = tt.timeout
			}
			res := runBashCall(t, ctx, testEnv(t), term, input)
			for _, want := range tt.wantOut {
				if !strings.Contains(res.Output, want) {
					t.Errorf("output %q lacks %q", res.Output, want)
				}
			}
			calls := term.recorded()
			if len(calls) == 0 {
				t.Fatalf("the command did not run in the terminal; output %q", res.Output)
			}
			if !isSubsequence(tt.wantCalls, calls) {
				t.Errorf("terminal requests %v, want %v in order", calls, tt.wantCalls)
			}
			if calls[len(calls)-1] != "release term-1" {
				t.Errorf("the last request was %q, not the release", calls[len(calls)-1])
			}
			for k, v := range tt.wantMeta {
				if fmt.Sprint(res.Metadata[k]) != fmt.Sprint(v) {
					t.Errorf("metadata %s = %v, want %v", k, res.Metadata[k], v)
				}
			}
			if argv := term.argv[0]; len(argv) != 3 || argv[1] != "-c" || argv[2] != tt.command {
				t.Errorf("argv %q, want the shell with -c and the command", argv)
			}
			if term.limit != terminalOutputLimit {
				t.Errorf("output limit %d", term.limit)
			}
		})
	}
}

// TestBashTerminalLongOutput passes a terminal's long output through the
// tool's truncation, keeping its end and saving the whole.
func TestBashTerminalLongOutput(t *testing.T) {
	t.Parallel()
	term := &execTerminal{}
	res := runBashCall(t, context.Background(), testEnv(t), term, map[string]any{"command": "seq 1 5000"})
	if calls := term.recorded(); len(calls) == 0 {
		t.Fatal("the command did not run in the terminal")
	}
	if !strings.Contains(res.Output, "lines truncated") || !strings.HasSuffix(strings.TrimSpace(res.Output), "5000") {
		t.Errorf("output not cut to its tail: %.300q", res.Output)
	}
	path, _ := res.Metadata["outputPath"].(string)
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), "1\n2\n") {
		t.Errorf("the saved output: %v %.20q", err, b)
	}
}

// TestBashTerminalSandboxStaysLocal keeps commands in codeloop's shell
// while a sandbox mode is on: the sandbox cannot confine an editor's
// terminal.
func TestBashTerminalSandboxStaysLocal(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := testEnv(t)
	env.Sandbox = &Confinement{Sandbox: sandbox.New(exe), Mode: sandbox.ModeWorkspaceWrite, AutoAllow: true,
		Fallback: SandboxFallbackAsk, TempDir: t.TempDir()}
	term := &execTerminal{}
	res := runBashCall(t, context.Background(), env, term, map[string]any{"command": `echo "marker=[$MARKER]"`})
	if !strings.Contains(res.Output, "marker=[]") {
		t.Errorf("output %q", res.Output)
	}
	if calls := term.recorded(); len(calls) != 0 {
		t.Errorf("the terminal was used: %v", calls)
	}
	if _, ok := res.Metadata["terminal"]; ok {
		t.Errorf("metadata names a terminal: %v", res.Metadata)
	}
}

// failingTerminal refuses to create terminals.
type failingTerminal struct{ execTerminal }

func (*failingTerminal) CreateTerminal(context.Context, string, string, []string, []string, string, int) (string, error) {
	return "", errors.New("no terminals here")
}

func TestBashTerminalCreateFails(t *testing.T) {
	t.Parallel()
	b, _ := json.Marshal(map[string]any{"command": "echo hi"})
	call := &Call{ID: "call_1", Tool: "bash", Input: b, Dir: t.TempDir(), Terminal: &failingTerminal{}}
	_, err := toolByID(t, testEnv(t), "bash").Run(context.Background(), call)
	if err == nil || !strings.Contains(err.Error(), "no terminals here") || !strings.Contains(err.Error(), "acp.terminal") {
		t.Errorf("err = %v", err)
	}
}

// isSubsequence reports whether want appears in got in order.
func isSubsequence(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}
