package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestACPEditorFiles has codeloop acp work on an editor's unsaved buffer:
// the editor offers fs/read_text_file and fs/write_text_file, the model
// reads a.txt and edits it, and the edit lands in the buffer while the
// file on disk keeps its saved text. Every line validates against the
// protocol's schema, the agent's file requests included.
func TestACPEditorFiles(t *testing.T) {
	const script = `
step
call call_1 read {"filePath":"a.txt"}
finish tool-calls
step
call call_2 edit {"filePath":"a.txt","oldString":"unsaved","newString":"edited"}
finish tool-calls
step
text Done.
finish stop
`
	p := newProject(t, script, map[string]string{"a.txt": "saved text\n"})
	a := filepath.Join(p.dir, "a.txt")
	ed := startACP(t, p, "allow_once")
	ed.buffers = map[string]string{a: "unsaved text\n"}
	if _, err := ed.conn.Initialize(ed.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		t.Fatalf("initialize: %v\n%s", err, ed.stderr.String())
	}
	sess, err := ed.conn.NewSession(ed.ctx(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	resp, err := ed.conn.Prompt(ed.ctx(), sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("change a.txt")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v %v\n%s", resp, err, ed.stderr.String())
	}
	if code := ed.close(); code != 0 {
		t.Errorf("codeloop acp exited %d\n%s", code, ed.stderr.String())
	}
	if got := ed.buffers[a]; got != "edited text\n" {
		t.Errorf("the editor's buffer holds %q", got)
	}
	if got := p.read("a.txt"); got != "saved text\n" {
		t.Errorf("a.txt on disk = %q", got)
	}
	// read; edit reads, writes, then reads what a formatter may have left.
	if want := []string{"read " + a, "read " + a, "write " + a, "read " + a}; !slices.Equal(ed.fsCalls, want) {
		t.Errorf("file requests %v, want %v", ed.fsCalls, want)
	}
	if got := p.toolResults()["call_2"]; !strings.Contains(got, "Edit applied successfully.") {
		t.Errorf("the edit's result: %q", got)
	}
	reqs := p.model.Requests()
	if second := string(reqs[1].Body); !strings.Contains(second, "1: unsaved text") {
		t.Errorf("the model did not see the unsaved buffer: %s", second)
	}
	ed.checkLines(loadACPSchema(t))
}
