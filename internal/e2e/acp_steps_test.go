package e2e

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestACPStepLimit has codeloop acp answer a prompt with an agent allowed
// two steps whose model keeps calling tools: the turn ends with
// max_turn_requests, and the answer validates against the schema.
func TestACPStepLimit(t *testing.T) {
	const script = `
step
call call_1 read {"filePath":"a.txt"}
finish tool-calls
step
call call_2 read {"filePath":"a.txt"}
finish tool-calls
step
text Never reached.
finish stop
`
	p := newProject(t, script, map[string]string{"a.txt": "x\n"})
	p.writeConfig(`{"agent": {"build": {"steps": 2}}}`)
	ed := startACP(t, p, "allow_once")
	if _, err := ed.conn.Initialize(ed.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v\n%s", err, ed.stderr.String())
	}
	sess, err := ed.conn.NewSession(ed.ctx(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	resp, err := ed.conn.Prompt(ed.ctx(), sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("read a.txt forever")}})
	if err != nil {
		t.Fatalf("session/prompt: %v\n%s", err, ed.stderr.String())
	}
	if resp.StopReason != sdk.StopReasonMaxTurnRequests {
		t.Errorf("stopReason = %q, want max_turn_requests", resp.StopReason)
	}
	if n := len(p.model.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want 2", n)
	}
	if code := ed.close(); code != 0 {
		t.Errorf("codeloop acp exited %d\n%s", code, ed.stderr.String())
	}
	ed.checkLines(loadACPSchema(t))
}
