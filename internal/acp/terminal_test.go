package acp_test

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/acp/acptest"
	"github.com/codeloop/codeloop/internal/client"
)

// lines records a stream's lines in order.
type lines struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	done []string
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			l.buf.WriteString(line)
			return len(p), nil
		}
		l.done = append(l.done, line)
	}
}

// index is the position of the first line holding every one of subs, or
// -1.
func (l *lines) index(subs ...string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, line := range l.done {
		all := true
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			return i
		}
	}
	return -1
}

const terminalScript = `
step
call call_1 bash {"command":"echo \"via [$EDITOR_TERMINAL]\"; exit 4","description":"print where it runs"}
finish tool-calls
step
text Done.
finish stop
`

// terminalConfig asks for the editor's terminals.
const terminalConfig = `"acp": {"terminal": true}`

// allowAll answers every permission request with allow once.
func allowAll(r sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("allow_once")}
}

// toolOutput is the stored output of a session's call.
func (r *rig) toolOutput(sessionID, callID string) string {
	r.t.Helper()
	for _, m := range r.messages(sessionID) {
		for _, p := range m.Parts {
			if p.Type == client.PartTool && p.CallID == callID && p.State != nil {
				return p.State.Output
			}
		}
	}
	r.t.Fatalf("no call %s stored", callID)
	return ""
}

// terminalShown returns the terminal id the updates show in the call, or
// "".
func terminalShown(us []sdk.SessionUpdate, callID string) string {
	id := ""
	for _, u := range toolUpdates(us, callID) {
		content := []sdk.ToolCallContent(nil)
		if u.ToolCall != nil {
			content = u.ToolCall.Content
		} else {
			content = u.ToolCallUpdate.Content
		}
		for _, c := range content {
			if c.Terminal != nil {
				id = c.Terminal.TerminalId
			}
		}
	}
	return id
}

// TestEditorTerminal runs bash in the editor's terminal when the editor
// offers terminals and the config asks for them, and in codeloop's shell
// otherwise.
func TestEditorTerminal(t *testing.T) {
	tests := []struct {
		name    string
		offered bool
		config  string
		want    string // where the command ran, as it printed it
	}{
		{"offered and asked for", true, terminalConfig, "via [rig]"},
		{"offered, not asked for", true, "", "via []"},
		{"offered, turned off", true, `"acp": {"terminal": false}`, "via []"},
		{"asked for, not offered", false, terminalConfig, "via []"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, terminalScript, tt.config, nil)
			host := &acptest.Terminals{Env: []string{"EDITOR_TERMINAL=rig"}}
			t.Cleanup(host.Close)
			if tt.offered {
				r.ed.terms = host
			}
			r.ed.choose = allowAll
			sess := r.newSession()
			if resp := r.prompt(sess.SessionId, sdk.TextBlock("where do commands run?")); resp.StopReason != sdk.StopReasonEndTurn {
				t.Errorf("stopReason = %q", resp.StopReason)
			}
			out := r.toolOutput(string(sess.SessionId), "call_1")
			if !strings.Contains(out, tt.want) || !strings.Contains(out, "Exit code: 4") {
				t.Errorf("the tool result is %q, want %q and the exit code", out, tt.want)
			}
			reqs := r.project.Model.Requests()
			if len(reqs) < 2 || !strings.Contains(string(reqs[1].Body), tt.want) {
				t.Errorf("the model was not given the output %q", tt.want)
			}
			calls := host.Calls()
			us := r.ed.snapshot(sess.SessionId)
			if tt.want != "via [rig]" {
				if len(calls) != 0 {
					t.Errorf("the editor's terminals were used: %v", calls)
				}
				if id := terminalShown(us, "call_1"); id != "" {
					t.Errorf("the call shows terminal %q", id)
				}
				return
			}
			if len(calls) == 0 || calls[0] != "create term-1" || calls[len(calls)-1] != "release term-1" {
				t.Fatalf("terminal requests %v: want create first, release last", calls)
			}
			for _, want := range []string{"wait term-1", "output term-1"} {
				if !slices.Contains(calls, want) {
					t.Errorf("terminal requests %v lack %q", calls, want)
				}
			}
			if slices.Contains(calls, "kill term-1") {
				t.Errorf("a command that ended by itself was killed: %v", calls)
			}
			c := host.Created()[0]
			if len(c.Args) != 2 || c.Args[0] != "-c" || !strings.HasPrefix(c.Args[1], "echo") || !strings.HasSuffix(c.Command, "sh") {
				t.Errorf("terminal/create ran %q %q, want the shell with -c and the command", c.Command, c.Args)
			}
			if c.Cwd == nil || *c.Cwd != r.project.Dir || c.OutputByteLimit == nil || *c.OutputByteLimit <= 0 {
				t.Errorf("terminal/create cwd %v, outputByteLimit %v", c.Cwd, c.OutputByteLimit)
			}
			if !slices.ContainsFunc(c.Env, func(v sdk.EnvVariable) bool { return v.Name == "PATH" && v.Value == os.Getenv("PATH") }) {
				t.Errorf("terminal/create does not pass codeloop's environment: %v", c.Env)
			}
			if id := terminalShown(us, "call_1"); id != "term-1" {
				t.Errorf("the call shows terminal %q, want term-1; updates %v", id, kinds(toolUpdates(us, "call_1")))
			}
			if st := lastStatus(us, "call_1"); st != sdk.ToolCallStatusCompleted {
				t.Errorf("call_1 ended %q", st)
			}
			shown := r.ed.wire.index(`"session/update"`, `"type":"terminal"`, `"terminalId":"term-1"`)
			released := r.ed.wire.index(`"terminal/release"`)
			if shown < 0 || released < 0 || shown > released {
				t.Errorf("the terminal was shown at line %d and released at line %d: it must be shown first", shown, released)
			}
		})
	}
}

const longCommandScript = `
step
call call_1 bash {"command":"echo started; exec sleep 30","description":"wait"%s}
finish tool-calls
step
text The command stopped.
finish stop
`

// TestEditorTerminalCancel cancels a prompt while its command runs in the
// editor's terminal: the terminal is killed and released, and the prompt
// ends cancelled.
func TestEditorTerminalCancel(t *testing.T) {
	r := newRig(t, fmt.Sprintf(longCommandScript, ""), terminalConfig, nil)
	host := &acptest.Terminals{Env: []string{"EDITOR_TERMINAL=rig"}}
	t.Cleanup(host.Close)
	r.ed.terms = host
	r.ed.choose = allowAll
	sess := r.newSession()
	result := make(chan sdk.PromptResponse, 1)
	go func() { result <- r.prompt(sess.SessionId, sdk.TextBlock("wait a while")) }()
	r.ed.waitFor(sess.SessionId, "the terminal shown", func(us []sdk.SessionUpdate) bool {
		return terminalShown(us, "call_1") == "term-1"
	})
	if err := r.ed.conn.Cancel(r.ctx(), sdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	select {
	case resp := <-result:
		if resp.StopReason != sdk.StopReasonCancelled {
			t.Errorf("stopReason = %q, want cancelled", resp.StopReason)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the prompt did not end after session/cancel")
	}
	calls := host.Calls()
	kill, release := slices.Index(calls, "kill term-1"), slices.Index(calls, "release term-1")
	if kill < 0 || release < kill || release != len(calls)-1 {
		t.Errorf("terminal requests %v: want kill, then release last", calls)
	}
	if host.Running() {
		t.Error("the command still runs")
	}
	us := r.ed.snapshot(sess.SessionId)
	if st := lastStatus(us, "call_1"); st != sdk.ToolCallStatusFailed {
		t.Errorf("call_1 ended %q, want failed", st)
	}
	if id := terminalShown(us, "call_1"); id != "term-1" {
		t.Errorf("the failed call shows terminal %q, want term-1", id)
	}
}

// TestEditorTerminalTimeout kills a command in the editor's terminal that
// outlives its timeout; the model is told so as with codeloop's shell.
func TestEditorTerminalTimeout(t *testing.T) {
	r := newRig(t, fmt.Sprintf(longCommandScript, `,"timeout":500`), terminalConfig, nil)
	host := &acptest.Terminals{Env: []string{"EDITOR_TERMINAL=rig"}}
	t.Cleanup(host.Close)
	r.ed.terms = host
	r.ed.choose = allowAll
	sess := r.newSession()
	if resp := r.prompt(sess.SessionId, sdk.TextBlock("wait a while")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stopReason = %q", resp.StopReason)
	}
	calls := host.Calls()
	kill, release := slices.Index(calls, "kill term-1"), slices.Index(calls, "release term-1")
	if kill < 0 || release < kill || release != len(calls)-1 {
		t.Errorf("terminal requests %v: want kill, then release last", calls)
	}
	if host.Running() {
		t.Error("the command still runs")
	}
	const note = "bash tool terminated the command after exceeding the timeout of 500 ms"
	reqs := r.project.Model.Requests()
	if len(reqs) < 2 || !strings.Contains(string(reqs[1].Body), note) || !strings.Contains(string(reqs[1].Body), "started") {
		t.Errorf("the model was not told of the timeout")
	}
}

const subagentTerminalScript = `
step
call call_1 task {"description":"say where","prompt":"Print where commands run.","subagent_type":"general"}
finish tool-calls
step
call call_c bash {"command":"echo \"child via [$EDITOR_TERMINAL]\""}
finish tool-calls
step
text Printed.
finish stop
step
text The sub-agent printed it.
finish stop
`

// TestEditorTerminalSubagent runs a sub-agent's commands in the editor's
// terminals too. The editor is not told of a sub-agent's calls, so their
// terminals are not shown in one.
func TestEditorTerminalSubagent(t *testing.T) {
	r := newRig(t, subagentTerminalScript, terminalConfig, nil)
	host := &acptest.Terminals{Env: []string{"EDITOR_TERMINAL=rig"}}
	t.Cleanup(host.Close)
	r.ed.terms = host
	r.ed.choose = allowAll
	sess := r.newSession()
	if resp := r.prompt(sess.SessionId, sdk.TextBlock("delegate it")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stopReason = %q", resp.StopReason)
	}
	if calls := host.Calls(); len(calls) == 0 || calls[0] != "create term-1" || calls[len(calls)-1] != "release term-1" {
		t.Errorf("terminal requests %v: want create first, release last", calls)
	}
	reqs := r.project.Model.Requests()
	if len(reqs) < 3 || !strings.Contains(string(reqs[2].Body), "child via [rig]") {
		t.Errorf("the sub-agent's model was not given the terminal's output")
	}
	if i := r.ed.wire.index(`"terminalId":"term-1"`, `"session/update"`); i >= 0 {
		t.Errorf("a sub-agent's terminal was shown: line %d", i)
	}
}
