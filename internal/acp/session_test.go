package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/acp"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/waitfor"
)

const askEdit = `"permission": {"edit": "ask"}`

const twoEdits = `
step
call call_1 edit {"filePath":"a.txt","oldString":"one","newString":"ONE"}
finish tool-calls
step
text First done.
finish stop
step
call call_2 edit {"filePath":"a.txt","oldString":"two","newString":"TWO"}
finish tool-calls
step
text Second done.
finish stop
`

const sameEditTwice = `
step
call call_1 edit {"filePath":"a.txt","oldString":"one","newString":"ONE"}
finish tool-calls
step
call call_2 edit {"filePath":"a.txt","oldString":"one","newString":"ONE"}
finish tool-calls
step
text Gave up.
finish stop
`

// TestPermissionOptions answers the editor's permission requests with
// each of the four options and checks what the engine did.
func TestPermissionOptions(t *testing.T) {
	for _, c := range []struct {
		option string
		// asks is how many requests reach the editor over two prompts;
		// want is the file after them.
		asks int
		want string
	}{
		{"allow_once", 2, "ONE\nTWO\n"},
		{"allow_always", 1, "ONE\nTWO\n"},
		{"reject_once", 2, "one\ntwo\n"},
		{"reject_always", 1, "one\ntwo\n"},
	} {
		t.Run(c.option, func(t *testing.T) {
			script := twoEdits
			if strings.HasPrefix(c.option, "reject") {
				// A rejection ends the turn: the next prompt's answer asks
				// for the same change again.
				script = sameEditTwice
			}
			r := newRig(t, script, askEdit, map[string]string{"a.txt": "one\ntwo\n"})
			r.ed.choose = func(req sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
				return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(c.option))}
			}
			sess := r.newSession()
			r.prompt(sess.SessionId, sdk.TextBlock("first"))
			r.prompt(sess.SessionId, sdk.TextBlock("second"))
			asked := r.ed.requests()
			if len(asked) != c.asks {
				t.Errorf("%d requests reached the editor, want %d", len(asked), c.asks)
			}
			if len(asked) > 0 {
				req := asked[0]
				if req.ToolCall.ToolCallId != "call_1" || req.ToolCall.Kind == nil || *req.ToolCall.Kind != sdk.ToolKindEdit {
					t.Errorf("request names %+v", req.ToolCall)
				}
				var kinds []sdk.PermissionOptionKind
				for _, o := range req.Options {
					kinds = append(kinds, o.Kind)
				}
				if len(kinds) != 4 {
					t.Errorf("options %v", kinds)
				}
				if len(req.ToolCall.Content) != 1 || req.ToolCall.Content[0].Diff == nil || !strings.Contains(req.ToolCall.Content[0].Diff.NewText, "ONE") {
					t.Errorf("the request does not show the change: %+v", req.ToolCall.Content)
				}
			}
			if got := readFile(t, r.project.Dir, "a.txt"); got != c.want {
				t.Errorf("a.txt = %q, want %q", got, c.want)
			}
		})
	}
}

// TestCancelWithdrawsPermission cancels a prompt while its permission
// request waits: the prompt ends cancelled and the file is unchanged.
func TestCancelWithdrawsPermission(t *testing.T) {
	r := newRig(t, twoEdits, askEdit, map[string]string{"a.txt": "one\ntwo\n"})
	sess := r.newSession() // r.ed.choose is nil: the editor never answers
	result := make(chan sdk.PromptResponse, 1)
	go func() { result <- r.prompt(sess.SessionId, sdk.TextBlock("first")) }()
	if !waitfor.Within(timeout, func() bool { return len(r.ed.requests()) > 0 }) {
		t.Fatal("no permission request")
	}
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
	if got := readFile(t, r.project.Dir, "a.txt"); got != "one\ntwo\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// TestLoadReplaysHistory answers a prompt in one connection, then loads
// the session in another: the history arrives as updates before the
// answer to session/load.
func TestLoadReplaysHistory(t *testing.T) {
	r := newRig(t, readScript, "", map[string]string{"a.txt": "hello world\n"})
	sess := r.newSession()
	r.prompt(sess.SessionId, sdk.TextBlock("what does a.txt say?"))
	r.close()

	r2 := connect(t, r.project)
	r2.initialize()
	resp, err := r2.ed.conn.LoadSession(r2.ctx(), sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: r.project.Dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != "build" {
		t.Errorf("modes %+v", resp.Modes)
	}
	us := r2.ed.snapshot(sess.SessionId)
	want := []string{"user_message_chunk", "agent_thought_chunk", "agent_message_chunk", "tool_call", "agent_message_chunk", "available_commands_update"}
	if got := squeeze(us); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("replay:\n got %v\nwant %v", got, want)
	}
	if got := text(us, "user_message_chunk"); got != "what does a.txt say?" {
		t.Errorf("user text %q", got)
	}
	if got := text(us, "agent_message_chunk"); got != "I will read a.txt.It says hello world." {
		t.Errorf("agent text %q", got)
	}
	if st := lastStatus(us, "call_1"); st != sdk.ToolCallStatusCompleted {
		t.Errorf("call_1 replayed as %q", st)
	}

	// The loaded session takes prompts; an unknown one is refused.
	if _, err := r2.ed.conn.LoadSession(r2.ctx(), sdk.LoadSessionRequest{SessionId: "ses_missing", Cwd: r.project.Dir, McpServers: []sdk.McpServer{}}); err == nil {
		t.Error("loading a missing session succeeded")
	}
	list, err := r2.ed.conn.ListSessions(r2.ctx(), sdk.ListSessionsRequest{})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != sess.SessionId || list.Sessions[0].Cwd != r.project.Dir {
		t.Errorf("session/list = %+v, %v", list, err)
	}
}

// TestBadInput sends what an editor should not: lines that are not JSON,
// JSON that is no message, unknown methods, a prompt for an unknown
// session, a relative cwd. Each gets a JSON-RPC error and the agent goes
// on serving.
func TestBadInput(t *testing.T) {
	p := newProject(t)
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- acp.Serve(context.Background(), toAgentR, fromAgentW, acp.Options{Open: p.open, Dir: p.Dir, Version: "test"})
		_ = fromAgentW.Close()
	}()
	replies := bufio.NewScanner(fromAgentR)
	exchange := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(toAgentW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		got := make(chan map[string]any, 1)
		go func() {
			if !replies.Scan() {
				got <- nil
				return
			}
			var m map[string]any
			_ = json.Unmarshal(replies.Bytes(), &m)
			got <- m
		}()
		select {
		case m := <-got:
			if m == nil {
				t.Fatalf("no reply to %s", line)
			}
			return m
		case <-time.After(timeout):
			t.Fatalf("no reply to %s", line)
		}
		return nil
	}
	code := func(m map[string]any) int {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return int(c)
	}
	for _, c := range []struct {
		line string
		code int
		id   any
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"`, -32700, nil},
		{`not json at all`, -32700, nil},
		{`[1,2,3]`, -32600, nil},
		{`{"jsonrpc":"2.0","id":2}`, -32600, 2.0},
		{`{"jsonrpc":"2.0","id":3,"method":"no/such_method","params":{}}`, -32601, 3.0},
		{`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"ses_nope","prompt":[{"type":"text","text":"hi"}]}}`, -32602, 4.0},
		{`{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`, -32602, 5.0},
		{`{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":42}}`, -32602, 6.0},
	} {
		m := exchange(c.line)
		if code(m) != c.code || m["id"] != c.id {
			t.Errorf("%s:\n got %v\nwant code %d id %v", c.line, m, c.code, c.id)
		}
		if e, _ := m["error"].(map[string]any); e != nil && c.code == -32602 && !strings.Contains(e["message"].(string)+toJSON(e["data"]), "session") && !strings.Contains(e["message"].(string)+toJSON(e["data"]), "cwd") {
			t.Errorf("%s: the error does not say what is wrong: %v", c.line, e)
		}
	}
	// Still serving.
	m := exchange(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1}}`)
	if _, ok := m["result"]; !ok {
		t.Errorf("initialize after bad input: %v", m)
	}
	_ = toAgentW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(timeout):
		t.Error("Serve did not return")
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// testProject is a project without a rig, for tests that speak raw lines.
type testProject struct {
	Dir  string
	open func(ctx context.Context, dir string, mcp []acp.MCPServer) (client.Client, error)
}

func newProject(t *testing.T) testProject {
	r := newRig(t, "", "", nil)
	r.close()
	p := r.project
	return testProject{Dir: p.Dir, open: func(ctx context.Context, dir string, _ []acp.MCPServer) (client.Client, error) {
		return openLocal(ctx, p, dir)
	}}
}

// TestNewSessionReportsTrust checks that session/new tells the editor,
// under _meta.codeloop.trust, that the project is not trusted and what of
// its own files is held back.
func TestNewSessionReportsTrust(t *testing.T) {
	r := newRig(t, "", `"shell": "/tmp/not-a-shell"`, nil)
	r.initialize()
	resp := r.newSession()
	b, err := json.Marshal(resp.Meta)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Codeloop struct {
			Trust client.ProjectTrust `json:"trust"`
		} `json:"codeloop"`
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	tr := meta.Codeloop.Trust
	if tr.State != "not trusted" || len(tr.HeldBack) == 0 || tr.HeldBack[0].Kind != "shell" {
		t.Errorf("_meta = %s, want the untrusted shell setting", b)
	}
}
