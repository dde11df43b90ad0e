package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/acp/acptest"
)

// TestACPEditorTerminal has codeloop acp run the bash tool's command in
// the editor's terminal: the editor (this test) offers terminals, the
// project's config sets acp.terminal, and the command runs in a terminal
// the editor starts (its EDITOR_TERMINAL variable set, codeloop's HOME
// passed on, in the project directory); the call shows the terminal, the
// terminal is released, and the output with the exit code reaches the
// model. With a sandbox mode on, the command stays in codeloop's shell and
// the log says why. Every line validates against the protocol's schema,
// the terminal requests included.
func TestACPEditorTerminal(t *testing.T) {
	const script = `
step
call call_1 bash {"command":"echo \"terminal=[$EDITOR_TERMINAL] home=[$HOME] dir=[$(pwd)]\"; exit 3","description":"say where it runs"}
finish tool-calls
step
text Done.
finish stop
`
	tests := []struct {
		name     string
		config   string
		terminal string // EDITOR_TERMINAL as the command sees it
	}{
		{"terminal", `{"acp": {"terminal": true}}`, "e2e"},
		{"sandbox keeps bash local", `{"acp": {"terminal": true}, "sandbox": {"mode": "workspace-write"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, script, nil)
			p.writeConfig(tt.config)
			ed := startACP(t, p, "allow_once")
			ed.terms = &acptest.Terminals{Env: []string{"EDITOR_TERMINAL=e2e"}}
			t.Cleanup(ed.terms.Close)
			if _, err := ed.conn.Initialize(ed.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
				ClientCapabilities: sdk.ClientCapabilities{Terminal: true}}); err != nil {
				t.Fatalf("initialize: %v\n%s", err, ed.stderr.String())
			}
			sess, err := ed.conn.NewSession(ed.ctx(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: []sdk.McpServer{}})
			if err != nil {
				t.Fatalf("session/new: %v", err)
			}
			resp, err := ed.conn.Prompt(ed.ctx(), sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("where do commands run?")}})
			if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
				t.Fatalf("session/prompt: %+v %v\n%s", resp, err, ed.stderr.String())
			}
			if code := ed.close(); code != 0 {
				t.Errorf("codeloop acp exited %d\n%s", code, ed.stderr.String())
			}

			want := "terminal=[" + tt.terminal + "] home=[" + p.home + "] dir=[" + p.dir + "]"
			got := p.toolResults()["call_1"]
			if !strings.Contains(got, want) || !strings.Contains(got, "Exit code: 3") {
				t.Errorf("the model got %q, want %q and the exit code", got, want)
			}
			calls := ed.terms.Calls()
			if tt.terminal == "" {
				if len(calls) != 0 {
					t.Errorf("the editor's terminals were used with the sandbox on: %v", calls)
				}
				if log := readLogs(t, p); !strings.Contains(log, "not the editor's terminals, because a sandbox mode is on") {
					t.Errorf("the log does not say why the terminal was not used:\n%s", log)
				}
			} else {
				if len(calls) == 0 || calls[0] != "create term-1" || calls[len(calls)-1] != "release term-1" || !slices.Contains(calls, "wait term-1") {
					t.Errorf("terminal requests %v: want create, wait, release", calls)
				}
				shown := ed.lineIndex(`"sessionUpdate":"tool_call_update"`, `"terminalId":"term-1"`)
				released := ed.lineIndex(`"method":"terminal/release"`)
				if shown < 0 || released < 0 || shown > released {
					t.Errorf("the terminal was shown at line %d and released at line %d: it must be shown first", shown, released)
				}
			}
			if n := ed.checkLines(loadACPSchema(t)); n == 0 {
				t.Error("no lines checked")
			}
		})
	}
}

// lineIndex is the position of the first line the agent wrote holding
// every one of subs, or -1.
func (ed *acpEditor) lineIndex(subs ...string) int {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	for i, l := range ed.out {
		if !slices.ContainsFunc(subs, func(s string) bool { return !strings.Contains(string(l), s) }) {
			return i
		}
	}
	return -1
}

// readLogs returns the text of codeloop's log files of the project's home.
func readLogs(t *testing.T, p *project) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(p.home, ".local/share/codeloop/log/*.log"))
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}
