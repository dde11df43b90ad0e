package e2e

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/mcp/mcptest"
)

// TestACPEditorMCP passes an MCP server over HTTP in session/new, as an
// editor passes its own: the session's model is offered the server's tool
// and its call reaches the server, while a session opened without the
// server in the same process is not offered it.
func TestACPEditorMCP(t *testing.T) {
	const script = `
step
call call_1 tools_echo {"text":"ping from the editor's server"}
finish tool-calls
step
text The server answered.
finish stop
step
text No tools here.
finish stop
`
	srv := mcptest.Start(t)
	p := newProject(t, script, nil)
	ed := startACP(t, p, "allow_once")
	if _, err := ed.conn.Initialize(ed.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v\n%s", err, ed.stderr.String())
	}
	servers := []sdk.McpServer{{Http: &sdk.McpServerHttpInline{Type: "http", Name: "tools", Url: srv.URL,
		Headers: []sdk.HttpHeader{{Name: "X-Editor", Value: "e2e"}}}}}
	withServer, err := ed.conn.NewSession(ed.ctx(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: servers})
	if err != nil {
		t.Fatalf("session/new: %v\n%s", err, ed.stderr.String())
	}
	resp, err := ed.conn.Prompt(ed.ctx(), sdk.PromptRequest{SessionId: withServer.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("call the echo tool")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v %v\n%s", resp, err, ed.stderr.String())
	}
	calls := srv.Calls()
	if len(calls) != 1 || calls[0].Tool != "echo" || calls[0].Arguments["text"] != "ping from the editor's server" {
		t.Errorf("server calls = %+v, want one echo", calls)
	}
	if got := p.toolResults()["call_1"]; !strings.Contains(got, "ping from the editor's server") {
		t.Errorf("the tool result did not reach the model: %q", got)
	}

	plain, err := ed.conn.NewSession(ed.ctx(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	if _, err := ed.conn.Prompt(ed.ctx(), sdk.PromptRequest{SessionId: plain.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hello")}}); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	reqs := p.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), `"tools_echo"`) {
		t.Errorf("the session with the editor's server was not offered tools_echo")
	}
	if strings.Contains(string(reqs[2].Body), `"tools_echo"`) {
		t.Errorf("the session without the editor's server was offered tools_echo")
	}

	// A server without a url is refused with a message that says so.
	bad := []sdk.McpServer{{Http: &sdk.McpServerHttpInline{Type: "http", Name: "broken", Headers: []sdk.HttpHeader{}}}}
	_, err = ed.conn.NewSession(ed.ctx(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: bad})
	if re, ok := err.(*sdk.RequestError); !ok || re.Code != -32602 || !strings.Contains(re.Message, `("broken") has no url`) {
		t.Errorf("session/new with a server without url: %v", err)
	}
	if code := ed.close(); code != 0 {
		t.Errorf("codeloop acp exited %d\n%s", code, ed.stderr.String())
	}
	ed.checkLines(loadACPSchema(t))
}
