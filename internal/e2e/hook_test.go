package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installScripts copies scripts from testdata/hooks to dir, executable.
func installScripts(t *testing.T, dir string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("testdata", "hooks", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// userHooks writes the user's Claude Code settings with hooks: one
// handler per event, running the named script from ~/.claude/hooks.
func (p *project) userHooks(spec map[string][2]string, timeout float64) {
	p.t.Helper()
	dir := filepath.Join(p.home, ".claude", "hooks")
	hooks := map[string]any{}
	for event, ms := range spec {
		installScripts(p.t, dir, ms[1])
		h := map[string]any{"type": "command", "command": filepath.Join(dir, ms[1])}
		if timeout > 0 {
			h["timeout"] = timeout
		}
		hooks[event] = []any{map[string]any{"matcher": ms[0], "hooks": []any{h}}}
	}
	data, _ := json.Marshal(map[string]any{"hooks": hooks})
	if err := os.WriteFile(filepath.Join(p.home, ".claude", "settings.json"), data, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// requestText is the model's i-th request body.
func (p *project) requestText(i int) string {
	p.t.Helper()
	reqs := p.model.Requests()
	if i >= len(reqs) {
		p.t.Fatalf("the model got %d requests, want more than %d", len(reqs), i)
	}
	return string(reqs[i].Body)
}

func (p *project) mustRun(args ...string) (string, string) {
	p.t.Helper()
	stdout, stderr, code := p.run(args...)
	if code != 0 {
		p.t.Fatalf("codeloop %v: exit status %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout, stderr)
	}
	return stdout, stderr
}

const bashThenAnswer = `
step
call call_1 bash {"command":%q,"description":"run it"}
finish tool-calls input=100 output=10
step
text done.
finish stop input=200 output=5
`

// TestHookPreToolUseExit2 blocks rm -rf with a hook that exits 2: the
// command does not run and the hook's reason reaches the model.
func TestHookPreToolUseExit2(t *testing.T) {
	p := newProject(t, fmt.Sprintf(bashThenAnswer, "rm -rf build"), map[string]string{"keep.txt": "x"})
	p.write(map[string]string{"build/out.bin": "data"})
	p.userHooks(map[string][2]string{"PreToolUse": {"Bash", "no-rm.sh"}}, 0)
	p.mustRun("run", "--auto", "clean up")
	if _, err := os.Stat(filepath.Join(p.dir, "build", "out.bin")); err != nil {
		t.Errorf("the blocked command ran: %v", err)
	}
	if body := p.requestText(1); !strings.Contains(body, "rm -rf is not allowed in this repository; delete files one by one") ||
		!strings.Contains(body, "PreToolUse hook blocked this call") {
		t.Errorf("the hook's reason did not reach the model:\n%s", body)
	}
}

// TestHookPermissionDecision: "deny" refuses a call with its reason;
// "allow" runs a call the rules would ask about, with nobody to ask.
func TestHookPermissionDecision(t *testing.T) {
	for _, tt := range []struct {
		name, command string
		ran           bool
	}{
		{"deny", "curl -s http://example.invalid > fetched.txt", false},
		{"allow", "echo allowed > fetched.txt", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, fmt.Sprintf(bashThenAnswer, tt.command), nil)
			p.write(map[string]string{"codeloop.json": `{"permission": {"bash": "ask"}}`})
			p.userHooks(map[string][2]string{"PreToolUse": {"Bash", "decide.sh"}}, 0)
			// No --auto: every ask is refused, so only the hook can allow.
			_, stderr, code := p.run("run", "do it")
			_, err := os.Stat(filepath.Join(p.dir, "fetched.txt"))
			if (err == nil) != tt.ran {
				t.Fatalf("command ran = %v, want %v (exit %d)\n%s", err == nil, tt.ran, code, stderr)
			}
			body := p.requestText(1)
			if !tt.ran && !strings.Contains(body, "no network from this repository") {
				t.Errorf("the deny reason did not reach the model:\n%s", body)
			}
			if tt.ran && (code != 0 || strings.Contains(stderr, "permission requested")) {
				t.Errorf("an allowed call was asked about: exit %d\n%s", code, stderr)
			}
		})
	}
}

// TestHookUpdatedInput: a hook's updatedInput is the command that runs,
// and the stored call shows it.
func TestHookUpdatedInput(t *testing.T) {
	p := newProject(t, fmt.Sprintf(bashThenAnswer, "echo original > original.txt"), nil)
	p.userHooks(map[string][2]string{"PreToolUse": {"Bash", "rewrite.sh"}}, 0)
	p.mustRun("run", "--auto", "write it")
	if _, err := os.Stat(filepath.Join(p.dir, "original.txt")); err == nil {
		t.Error("the original command ran")
	}
	if got := p.read("rewritten.txt"); got != "rewritten\n" {
		t.Errorf("rewritten.txt = %q", got)
	}
}

// TestHookPostToolUseContext: a PostToolUse hook's additionalContext
// reaches the model with the edit's result; the hook saw the edit under
// Claude Code's name and argument names.
func TestHookPostToolUseContext(t *testing.T) {
	script := `
step
call call_1 edit {"filePath":"a.txt","oldString":"hello","newString":"goodbye"}
finish tool-calls input=100 output=10
step
text edited.
finish stop input=200 output=5
`
	p := newProject(t, script, map[string]string{"a.txt": "hello\n"})
	p.userHooks(map[string][2]string{"PostToolUse": {"Edit|Write", "lint.sh"}}, 0)
	p.mustRun("run", "--auto", "edit a.txt")
	if body := p.requestText(1); !strings.Contains(body, "lint of a.txt: 2 warnings") {
		t.Errorf("the hook's context did not reach the model:\n%s", body)
	}
}

// TestHookUserPromptSubmitContext: a prompt hook's standard output is
// added to the prompt the model reads.
func TestHookUserPromptSubmitContext(t *testing.T) {
	p := newProject(t, "step\ntext ok.\nfinish stop input=10 output=2\n", nil)
	p.userHooks(map[string][2]string{"UserPromptSubmit": {"", "branch.sh"}}, 0)
	p.mustRun("run", "what branch am I on?")
	if body := p.requestText(0); !strings.Contains(body, "current branch: feature/hooks-e2e") {
		t.Errorf("the prompt hook's context is missing:\n%s", body)
	}
}

// TestHookStopBlocksOnce: a Stop hook that blocks once makes the loop take
// one more step with its reason, then lets it stop.
func TestHookStopBlocksOnce(t *testing.T) {
	script := `
step
text all done.
finish stop input=10 output=2
step
text the tests pass; now done.
finish stop input=20 output=3
`
	p := newProject(t, script, nil)
	p.userHooks(map[string][2]string{"Stop": {"", "tests-first.sh"}}, 0)
	stdout, _ := p.mustRun("run", "finish the task")
	if n := len(p.model.Requests()); n != 2 {
		t.Fatalf("the model got %d requests, want 2", n)
	}
	if body := p.requestText(1); !strings.Contains(body, "the tests have not run yet: run them before you finish") {
		t.Errorf("the stop hook's reason did not reach the model:\n%s", body)
	}
	if !strings.Contains(stdout, "the tests pass; now done.") {
		t.Errorf("stdout = %q", stdout)
	}
}

// TestHookTimeout: a hook that hangs is stopped at its timeout and
// reported; the call goes on.
func TestHookTimeout(t *testing.T) {
	p := newProject(t, fmt.Sprintf(bashThenAnswer, "echo ran > ran.txt"), nil)
	p.userHooks(map[string][2]string{"PreToolUse": {"Bash", "slow.sh"}}, 1)
	_, stderr := p.mustRun("run", "--auto", "run it")
	if !strings.Contains(stderr, "timed out after 1s and was stopped") {
		t.Errorf("the timeout was not reported:\n%s", stderr)
	}
	if got := p.read("ran.txt"); got != "ran\n" {
		t.Errorf("the call did not run after the timeout: %q", got)
	}
}

// TestHookProjectTrust: the project's own hooks do not run until the user
// trusts the project, the run says so, and a change to them needs trust
// again.
func TestHookProjectTrust(t *testing.T) {
	script := fmt.Sprintf(bashThenAnswer, "true")
	p := newProject(t, script+script+script, nil)
	installScripts(t, filepath.Join(p.dir, ".claude", "hooks"), "marker.sh")
	p.write(map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash",
		"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/marker.sh"}]}]}}`})
	marker := filepath.Join(p.dir, "hook-ran.txt")

	_, stderr := p.mustRun("run", "--auto", "go")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted project's hook ran")
	}
	if !strings.Contains(stderr, "skipped the project's 1 hook: this project is not trusted") ||
		!strings.Contains(stderr, "codeloop trust") {
		t.Errorf("the user was not told:\n%s", stderr)
	}

	out, _ := p.mustRun("trust")
	if !strings.Contains(out, "PreToolUse [Bash]") || !strings.Contains(out, "Trusted "+p.dir) {
		t.Errorf("trust output:\n%s", out)
	}
	p.mustRun("run", "--auto", "go")
	if got, _ := os.ReadFile(marker); string(got) != "ran\n" {
		t.Fatalf("the trusted hook did not run: %q", got)
	}

	// An edited hook script is not trusted.
	p.write(map[string]string{".claude/hooks/marker.sh": "#!/bin/sh\necho changed >> \"$CLAUDE_PROJECT_DIR/hook-ran.txt\"\n"})
	_, stderr = p.mustRun("run", "--auto", "go")
	if got, _ := os.ReadFile(marker); string(got) != "ran\n" {
		t.Errorf("a changed hook ran: %q", got)
	}
	if !strings.Contains(stderr, "its files changed since you trusted it (changed .claude/hooks/marker.sh)") {
		t.Errorf("the change was not reported:\n%s", stderr)
	}
}

const toolsScript = `
step
call call_1 wordcount {"text":"one two three four"}
call call_2 greet {"name":"Ada"}
finish tool-calls input=100 output=10
step
call call_3 crash {}
finish tool-calls input=200 output=10
step
text counted and greeted.
finish stop input=300 output=5
`

// TestCustomTools: tools in Python and shell are offered with their
// schemas and run with JSON arguments; a tool that crashes is a tool
// error and the session goes on.
func TestCustomTools(t *testing.T) {
	p := newProject(t, toolsScript, nil)
	installScripts(t, filepath.Join(p.home, ".config", "codeloop", "tools"), "wordcount.py", "greet.sh", "crash.sh")
	stdout, stderr := p.mustRun("run", "--auto", "count and greet")
	first := p.requestText(0)
	for _, want := range []string{`"name":"wordcount"`, `Count the words of a text.`, `the text to count`,
		`"name":"greet"`, `Greet someone by name.`, `"name":"crash"`} {
		if !strings.Contains(first, want) {
			t.Errorf("the tools offered lack %s:\n%s", want, first)
		}
	}
	second := p.requestText(1)
	for _, want := range []string{"4 words", "hello, Ada"} {
		if !strings.Contains(second, want) {
			t.Errorf("the tool results lack %q:\n%s", want, second)
		}
	}
	third := p.requestText(2)
	if !strings.Contains(third, "the crash tool crashed") || !strings.Contains(third, "panic: database is locked") {
		t.Errorf("the crash did not reach the model as a tool error:\n%s", third)
	}
	if !strings.Contains(stdout, "counted and greeted.") {
		t.Errorf("the session did not go on after the crash:\nstdout %s\nstderr %s", stdout, stderr)
	}
}

// TestCustomToolAsksByDefault: a custom tool's call is asked about unless
// a rule names it; run refuses the ask.
func TestCustomToolAsksByDefault(t *testing.T) {
	script := `
step
call call_1 greet {"name":"Ada"}
finish tool-calls input=100 output=10
step
text refused.
finish stop input=200 output=5
`
	p := newProject(t, script, nil)
	installScripts(t, filepath.Join(p.home, ".config", "codeloop", "tools"), "greet.sh")
	_, stderr, _ := p.run("run", "greet")
	if !strings.Contains(stderr, "permission requested: greet") {
		t.Errorf("the call was not asked about:\n%s", stderr)
	}

	q := newProject(t, script, nil)
	installScripts(t, filepath.Join(q.home, ".config", "codeloop", "tools"), "greet.sh")
	q.writeConfig(`{"permission": {"greet": "allow"}}`)
	q.mustRun("run", "greet")
	if body := q.requestText(1); !strings.Contains(body, "hello, Ada") {
		t.Errorf("an allowed custom tool did not run:\n%s", body)
	}
}

// TestCustomToolProjectNeedsTrust: a tool in the project's .codeloop/tools
// is offered only once the project is trusted.
func TestCustomToolProjectNeedsTrust(t *testing.T) {
	script := "step\ntext hi.\nfinish stop input=10 output=2\n"
	p := newProject(t, script+script, nil)
	installScripts(t, filepath.Join(p.dir, ".codeloop", "tools"), "greet.sh")
	_, stderr := p.mustRun("run", "hi")
	if strings.Contains(p.requestText(0), `"name":"greet"`) {
		t.Error("an untrusted project's tool was offered")
	}
	if !strings.Contains(stderr, "skipped the project's 1 custom tool") {
		t.Errorf("the user was not told:\n%s", stderr)
	}
	p.mustRun("trust")
	p.mustRun("run", "hi")
	if !strings.Contains(p.requestText(1), `"name":"greet"`) {
		t.Error("a trusted project's tool was not offered")
	}
}

// TestHookUserPromptSubmitRefuses: a prompt hook that blocks refuses the
// prompt: nothing reaches the model and the user reads the reason.
func TestHookUserPromptSubmitRefuses(t *testing.T) {
	p := newProject(t, "step\ntext ok.\nfinish stop input=10 output=2\n", nil)
	if err := os.MkdirAll(filepath.Join(p.home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
		"command": "grep -q 'sk-' && { echo 'the prompt holds an API key; remove it' >&2; exit 2; }; exit 0"}]}]}}`
	if err := os.WriteFile(filepath.Join(p.home, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := p.run("run", "my key is sk-12345")
	if code == 0 || !strings.Contains(stderr, "the prompt holds an API key; remove it") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	if n := len(p.model.Requests()); n != 0 {
		t.Errorf("a refused prompt reached the model (%d requests)", n)
	}
}

// TestHookPreCompact runs a PreCompact hook when the user compacts a
// session: it is told the trigger and the session on standard input.
func TestHookPreCompact(t *testing.T) {
	script := "step\ntext The project is small.\nfinish stop input=10 output=2\nstep\ntext SUMMARY: small project.\nfinish stop input=10 output=2\n"
	p := newProject(t, script, nil)
	if err := os.MkdirAll(filepath.Join(p.home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(p.home, "precompact.json")
	settings := `{"hooks": {"PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "cat > ` + out + `"}]}]}}`
	if err := os.WriteFile(filepath.Join(p.home, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	p.mustRun("run", "describe the project")
	p.mustRun("run", "-c", "--command", "compact")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the PreCompact hook did not run: %v", err)
	}
	var in map[string]any
	if err := json.Unmarshal(b, &in); err != nil || in["hook_event_name"] != "PreCompact" || in["trigger"] != "manual" || in["session_id"] == "" {
		t.Errorf("the hook read %s (%v)", b, err)
	}
}

// TestHookSessionLife: a session's first prompt runs the SessionStart
// hooks ("startup"), whose output reaches the model; a completed bash call
// shows PostToolUse hooks Claude Code's tool_response; closing runs the
// SessionEnd hooks of the session.
func TestHookSessionLife(t *testing.T) {
	p := newProject(t, fmt.Sprintf(bashThenAnswer, "echo from-bash"), nil)
	p.userHooks(map[string][2]string{"SessionStart": {"", "record.sh"}, "PostToolUse": {"Bash", "record.sh"},
		"SessionEnd": {"", "record.sh"}}, 0)
	p.mustRun("run", "--auto", "run it")
	if body := p.requestText(0); !strings.Contains(body, "session context: started fresh") {
		t.Errorf("the SessionStart hook's context did not reach the model:\n%s", body)
	}
	data, err := os.ReadFile(filepath.Join(p.home, "hooks.log"))
	if err != nil {
		t.Fatal(err)
	}
	var events []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("hook input %q: %v", line, err)
		}
		events = append(events, e)
	}
	var names []string
	for _, e := range events {
		names = append(names, fmt.Sprint(e["hook_event_name"]))
	}
	if got := strings.Join(names, " "); got != "SessionStart PostToolUse SessionEnd" {
		t.Fatalf("hook events %q, want SessionStart PostToolUse SessionEnd", got)
	}
	if events[0]["source"] != "startup" || events[2]["reason"] != "other" ||
		events[0]["session_id"] != events[2]["session_id"] || events[0]["session_id"] == "" {
		t.Errorf("SessionStart %v, SessionEnd %v", events[0], events[2])
	}
	resp, _ := events[1]["tool_response"].(map[string]any)
	if out, _ := resp["stdout"].(string); !strings.Contains(out, "from-bash") || resp["interrupted"] != false {
		t.Errorf("PostToolUse tool_response = %v, want Bash's stdout", events[1]["tool_response"])
	}
}
