package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/codeloop/codeloop/internal/waitfor"
)

// rig runs hooks defined inline, as a user's settings file would.
type rig struct {
	dir     string
	mu      sync.Mutex
	notices []Notice
}

func newRig(t *testing.T) *rig { return &rig{dir: t.TempDir()} }

func (r *rig) runner(spec Spec) *Runner {
	set := Build([]Source{{Origin: "settings.json", Hooks: spec}}, false)
	return NewRunner(set, Options{ProjectDir: r.dir, Names: Names{MCPServers: []string{"memory"}},
		Notify: func(n Notice) {
			r.mu.Lock()
			r.notices = append(r.notices, n)
			r.mu.Unlock()
		}})
}

func one(event, matcher, command string, timeout float64) Spec {
	return Spec{event: {{Matcher: matcher, Hooks: []HandlerSpec{{Type: "command", Command: command, Timeout: timeout}}}}}
}

func bashCall(cmd string) Input {
	in, _ := json.Marshal(map[string]string{"command": cmd, "description": "d"})
	return Input{Event: PreToolUse, SessionID: "ses_1", Tool: "bash", ToolInput: in, ToolUseID: "call_1"}
}

func TestRunDecisions(t *testing.T) {
	tests := []struct {
		name    string
		spec    Spec
		in      Input
		want    Result
		notices []string // substrings of the notices, in order
	}{
		{
			name: "exit 2 blocks with stderr",
			spec: one(PreToolUse, "Bash", `echo "rm -rf is not allowed here" >&2; exit 2`, 0),
			in:   bashCall("rm -rf /"),
			want: Result{Block: true, Reason: "rm -rf is not allowed here", Permission: "deny"},
		},
		{
			name: "json deny",
			spec: one(PreToolUse, "Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no network"}}'`, 0),
			in:   bashCall("curl x"),
			want: Result{Block: true, Reason: "no network", Permission: "deny"},
		},
		{
			name: "json allow",
			spec: one(PreToolUse, "Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`, 0),
			in:   bashCall("ls"),
			want: Result{Permission: "allow"},
		},
		{
			name: "legacy approve",
			spec: one(PreToolUse, "", `echo '{"decision":"approve","reason":"fine"}'`, 0),
			in:   bashCall("ls"),
			want: Result{Permission: "allow"},
		},
		{
			name: "json ask",
			spec: one(PreToolUse, "Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}'`, 0),
			in:   bashCall("ls"),
			want: Result{Permission: "ask"},
		},
		{
			name: "updated input in Claude Code's shape comes back in codeloop's",
			spec: one(PreToolUse, "Edit", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"file_path":"/b","old_string":"x","new_string":"z"}}}'`, 0),
			in:   Input{Event: PreToolUse, Tool: "edit", ToolInput: json.RawMessage(`{"filePath":"/a","oldString":"x","newString":"y"}`)},
			want: Result{UpdatedInput: json.RawMessage(`{"filePath":"/b","newString":"z","oldString":"x"}`)},
		},
		{
			name: "matcher that does not match runs nothing",
			spec: one(PreToolUse, "Edit|Write", `exit 2`, 0),
			in:   bashCall("ls"),
		},
		{
			name:    "exit 1 is a non-blocking error",
			spec:    one(PreToolUse, "Bash", `echo "policy script broke" >&2; exit 1`, 0),
			in:      bashCall("ls"),
			notices: []string{"failed with exit status 1: policy script broke"},
		},
		{
			name:    "a missing script is reported, not a block",
			spec:    one(PreToolUse, "Bash", `./no-such-hook.sh`, 0),
			in:      bashCall("ls"),
			notices: []string{"exit status 127"},
		},
		{
			name: "post tool context",
			spec: one(PostToolUse, "Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 2 warnings"}}'`, 0),
			in:   Input{Event: PostToolUse, Tool: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`), ToolResponse: map[string]any{"stdout": "a"}},
			want: Result{Context: []string{"lint: 2 warnings"}},
		},
		{
			name: "post tool block is feedback",
			spec: one(PostToolUse, "", `echo '{"decision":"block","reason":"run the tests"}'`, 0),
			in:   Input{Event: PostToolUse, Tool: "write"},
			want: Result{Block: true, Reason: "run the tests"},
		},
		{
			name: "updated tool output",
			spec: one(PostToolUse, "", `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"redacted"}}'`, 0),
			in:   Input{Event: PostToolUse, Tool: "read"},
			want: Result{UpdatedOutput: ptr("redacted")},
		},
		{
			name: "prompt plain stdout is context",
			spec: one(UserPromptSubmit, "", `echo "branch: main"`, 0),
			in:   Input{Event: UserPromptSubmit, Prompt: "hi"},
			want: Result{Context: []string{"branch: main"}},
		},
		{
			name: "plain stdout of a tool hook is not context",
			spec: one(PreToolUse, "", `echo "checked"`, 0),
			in:   bashCall("ls"),
		},
		{
			name: "prompt blocked",
			spec: one(UserPromptSubmit, "", `echo '{"decision":"block","reason":"no secrets in prompts"}'`, 0),
			in:   Input{Event: UserPromptSubmit, Prompt: "my key is sk-123"},
			want: Result{Block: true, Reason: "no secrets in prompts"},
		},
		{
			name: "stop blocked with exit 2",
			spec: one(Stop, "", `echo "tests fail: fix them" >&2; exit 2`, 0),
			in:   Input{Event: Stop},
			want: Result{Block: true, Reason: "tests fail: fix them"},
		},
		{
			name:    "continue false halts; systemMessage is a notice",
			spec:    one(PostToolUse, "", `echo '{"continue":false,"stopReason":"build broken","systemMessage":"stopping"}'`, 0),
			in:      Input{Event: PostToolUse, Tool: "bash"},
			want:    Result{Halt: true, HaltReason: "build broken"},
			notices: []string{"stopping"},
		},
		{
			name: "session start matcher on source",
			spec: Spec{SessionStart: {
				{Matcher: "resume", Hooks: []HandlerSpec{{Command: "echo resumed"}}},
				{Matcher: "startup", Hooks: []HandlerSpec{{Command: "echo started"}}},
			}},
			in:   Input{Event: SessionStart, Source: "startup"},
			want: Result{Context: []string{"started"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			got := r.runner(tt.spec).Run(context.Background(), tt.in)
			if !sameResult(t, got, tt.want) {
				t.Errorf("result = %+v, want %+v", show(got), show(tt.want))
			}
			if len(r.notices) != len(tt.notices) {
				t.Fatalf("notices = %+v, want %d", r.notices, len(tt.notices))
			}
			for i, n := range tt.notices {
				if !strings.Contains(r.notices[i].Text, n) {
					t.Errorf("notice %d = %q, want it to contain %q", i, r.notices[i].Text, n)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

type shown struct {
	Result
	Input, Output string
}

func show(r Result) shown {
	s := shown{Result: r, Input: string(r.UpdatedInput)}
	if r.UpdatedOutput != nil {
		s.Output = *r.UpdatedOutput
	}
	return s
}

func sameResult(t *testing.T, a, b Result) bool {
	t.Helper()
	if (len(a.UpdatedInput) == 0) != (len(b.UpdatedInput) == 0) ||
		len(a.UpdatedInput) > 0 && !sameJSON(t, string(a.UpdatedInput), string(b.UpdatedInput)) {
		return false
	}
	if (a.UpdatedOutput == nil) != (b.UpdatedOutput == nil) || a.UpdatedOutput != nil && *a.UpdatedOutput != *b.UpdatedOutput {
		return false
	}
	return a.Block == b.Block && a.Reason == b.Reason && a.Permission == b.Permission &&
		strings.Join(a.Context, "\x00") == strings.Join(b.Context, "\x00") &&
		a.Halt == b.Halt && a.HaltReason == b.HaltReason
}

// TestRunInput checks the JSON a hook reads on standard input.
func TestRunInput(t *testing.T) {
	r := newRig(t)
	out := filepath.Join(r.dir, "stdin.json")
	run := r.runner(one(PreToolUse, "Edit", "cat > "+out, 0))
	run.Run(context.Background(), Input{Event: PreToolUse, SessionID: "ses_9", Tool: "edit", ToolUseID: "call_7",
		ToolInput: json.RawMessage(`{"filePath":"/p/a.go","oldString":"a","newString":"b"}`)})
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"session_id":"ses_9","transcript_path":"","cwd":"` + r.dir + `","hook_event_name":"PreToolUse",
		"permission_mode":"default","tool_name":"Edit","tool_use_id":"call_7",
		"tool_input":{"file_path":"/p/a.go","old_string":"a","new_string":"b"}}`
	if !sameJSON(t, string(data), want) {
		t.Errorf("stdin = %s\nwant %s", data, want)
	}
}

// TestRunEnvironment checks the hook's working directory and variables.
func TestRunEnvironment(t *testing.T) {
	r := newRig(t)
	out := filepath.Join(r.dir, "env")
	run := r.runner(one(Stop, "", `printf '%s\n%s\n%s\n' "$PWD" "$CLAUDE_PROJECT_DIR" "$CODELOOP_HOOK_EVENT" > `+out, 0))
	run.Run(context.Background(), Input{Event: Stop})
	data, _ := os.ReadFile(out)
	want := r.dir + "\n" + r.dir + "\nStop\n"
	if string(data) != want {
		t.Errorf("environment = %q, want %q", data, want)
	}
}

// TestRunParallel shows the hooks of one event run at the same time: each
// waits for the other to have started, which would time out one after the
// other.
func TestRunParallel(t *testing.T) {
	r := newRig(t)
	a, b := filepath.Join(r.dir, "a"), filepath.Join(r.dir, "b")
	wait := func(mine, other string) string {
		return "touch " + mine + "; for i in $(seq 100); do [ -e " + other + " ] && exit 0; sleep 0.05; done; exit 1"
	}
	spec := Spec{Stop: {{Hooks: []HandlerSpec{{Command: wait(a, b), Timeout: 20}, {Command: wait(b, a), Timeout: 20}}}}}
	r.runner(spec).Run(context.Background(), Input{Event: Stop})
	if len(r.notices) != 0 {
		t.Fatalf("hooks did not run together: %+v", r.notices)
	}
}

// TestRunTimeout shows a hook past its timeout is killed, with what it
// started, and reported; the run goes on without its decision.
func TestRunTimeout(t *testing.T) {
	r := newRig(t)
	pids := filepath.Join(r.dir, "pids")
	cmd := `sleep 300 & echo $! > ` + pids + `; echo $$ >> ` + pids + `; wait; exit 2`
	res := r.runner(one(PreToolUse, "Bash", cmd, 0.5)).Run(context.Background(), bashCall("ls"))
	if res.Block {
		t.Errorf("a timed-out hook blocked: %+v", res)
	}
	if len(r.notices) != 1 || !strings.Contains(r.notices[0].Text, "timed out after 500ms") || !r.notices[0].Error {
		t.Fatalf("notices = %+v", r.notices)
	}
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		if alive(pid) {
			t.Errorf("process %d of the timed-out hook is still running", pid)
		}
	}
}

// alive reports whether pid still runs after waiting for it to end (a
// zombie waiting to be reaped by init counts as gone).
func alive(pid int) bool {
	return !waitfor.Within(waitfor.Deadline, func() bool {
		if !processAlive(pid) {
			return true
		}
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		return err == nil && strings.Contains(string(st), ") Z ")
	})
}

// TestRunAborted: a session abort stops the hooks without a notice.
func TestRunAborted(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.runner(one(Stop, "", "sleep 5; exit 2", 0)).Run(ctx, Input{Event: Stop})
	if res.Block || len(r.notices) != 0 {
		t.Errorf("aborted hook: %+v, notices %+v", res, r.notices)
	}
}

func TestRunExecForm(t *testing.T) {
	r := newRig(t)
	script := filepath.Join(r.dir, "block.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"from $1\" >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := Spec{PreToolUse: {{Hooks: []HandlerSpec{{Command: "${CLAUDE_PROJECT_DIR}/block.sh", Args: []string{"$CLAUDE_PROJECT_DIR"}}}}}}
	res := r.runner(spec).Run(context.Background(), bashCall("ls"))
	if !res.Block || res.Reason != "from "+r.dir {
		t.Errorf("exec form: %+v", res)
	}
}

func TestBuildTrust(t *testing.T) {
	srcs := []Source{
		{Origin: "/home/u/.claude/settings.json", Hooks: one(Stop, "", "echo user", 0)},
		{Origin: "/p/.claude/settings.json", Project: true, Hooks: one(Stop, "", "echo project", 0)},
		{Origin: "/p/.claude/settings.local.json", Project: true, Hooks: Spec{
			Stop:         {{Hooks: []HandlerSpec{{Command: "echo user"}}}}, // the same as the user's: runs once
			"TaskCreate": {{Hooks: []HandlerSpec{{Command: "x"}}}},
		}},
	}
	untrusted := Build(srcs, false)
	if got := untrusted.matching(Stop, nil); len(got) != 1 || got[0].Command != "echo user" {
		t.Errorf("untrusted: %+v", got)
	}
	if sk := untrusted.Skipped(); len(sk) != 2 || sk[0].Command != "echo project" {
		t.Errorf("skipped: %+v", sk)
	}
	trusted := Build(srcs, true)
	if got := trusted.matching(Stop, nil); len(got) != 2 {
		t.Errorf("trusted: %+v", got)
	}
	if w := trusted.Warnings(); len(w) != 1 || !strings.Contains(w[0], "TaskCreate") {
		t.Errorf("warnings: %v", w)
	}
	// disableAllHooks in an untrusted project does not count; in the
	// user's file it turns everything off.
	off := append(srcs, Source{Origin: "/p/x", Project: true, DisableAll: true})
	if Build(off, false).Len() != 1 {
		t.Error("an untrusted project turned hooks off")
	}
	off = append(srcs, Source{Origin: "/home/u/x", DisableAll: true})
	if Build(off, true).Len() != 0 {
		t.Error("disableAllHooks ignored")
	}
}

func TestClaudeSources(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "settings.json"), `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"u"}]}]}}`)
	write(filepath.Join(proj, ".claude", "settings.json"), `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"p","timeout":5}]}]}}`)
	write(filepath.Join(proj, ".claude", "settings.local.json"), `{"hooks": {`)
	srcs, errs := ClaudeSources(ClaudeOptions{UserDir: home, Dir: proj, Worktree: proj})
	if len(srcs) != 2 || srcs[0].Project || !srcs[1].Project {
		t.Fatalf("sources = %+v", srcs)
	}
	if h := srcs[1].Hooks[PreToolUse][0].Hooks[0]; h.Command != "p" || h.Timeout != 5 {
		t.Errorf("handler = %+v", h)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "settings.local.json") {
		t.Errorf("errors = %v", errs)
	}
}
