package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codeloop/codeloop/internal/acp/acptest"
	"github.com/codeloop/codeloop/internal/waitfor"
)

// acpEditor is the editor's side of a codeloop acp process: the ACP SDK's
// client, the lines each side wrote, and the permission answer to give.
type acpEditor struct {
	t    *testing.T
	cmd  *exec.Cmd
	conn *sdk.ClientSideConnection
	in   *lineWriter
	exit chan error

	stderr bytes.Buffer

	mu      sync.Mutex
	out     [][]byte          // the agent's lines, in order
	methods map[string]string // the editor's request ids → methods
	updates []sdk.SessionNotification
	asked   int
	answer  string
	// buffers, when set, are the editor's open buffers by path: it then
	// serves fs/read_text_file (other files from the disk) and
	// fs/write_text_file (into the buffers).
	buffers map[string]string
	fsCalls []string
	// terms, when set, are the editor's terminals: it then serves the
	// terminal methods by running the commands.
	terms *acptest.Terminals
}

// lineWriter forwards the editor's lines to the agent, recording the
// method of each request, and lets a test add raw lines of its own.
type lineWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
	ed *acpEditor
}

func (l *lineWriter) Write(p []byte) (int, error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(p, &m) == nil && m.Method != "" && len(m.ID) > 0 {
		l.ed.mu.Lock()
		l.ed.methods[string(m.ID)] = m.Method
		l.ed.mu.Unlock()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// startACP starts codeloop acp in the project and connects an editor.
func startACP(t *testing.T, p *project, answer string) *acpEditor {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := p.command(ctx, "acp")
	ed := &acpEditor{t: t, cmd: cmd, methods: map[string]string{}, answer: answer, exit: make(chan error, 1)}
	cmd.Stderr = &ed.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The SDK reads what the agent wrote after it is recorded.
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			line := slices.Clone(sc.Bytes())
			ed.mu.Lock()
			ed.out = append(ed.out, line)
			ed.mu.Unlock()
			if _, err := pw.Write(append(line, '\n')); err != nil {
				break
			}
		}
		_ = pw.Close()
		ed.exit <- cmd.Wait()
	}()
	ed.in = &lineWriter{w: stdin, ed: ed}
	ed.conn = sdk.NewClientSideConnection(ed, ed.in, pr)
	ed.conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
	})
	return ed
}

// close closes the agent's standard input and returns its exit status.
func (ed *acpEditor) close() int {
	ed.t.Helper()
	_ = ed.in.w.Close()
	select {
	case <-ed.exit:
	case <-time.After(20 * time.Second):
		ed.t.Fatalf("codeloop acp did not exit after its input closed\n%s", ed.stderr.String())
	}
	return ed.cmd.ProcessState.ExitCode()
}

func (ed *acpEditor) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	ed.t.Cleanup(cancel)
	return ctx
}

func (ed *acpEditor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	ed.updates = append(ed.updates, n)
	return nil
}

func (ed *acpEditor) RequestPermission(_ context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	ed.asked++
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(ed.answer))}, nil
}

var errNotOffered = errors.New("the test editor offers no file system or terminal")

func (ed *acpEditor) ReadTextFile(_ context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if ed.buffers == nil {
		return sdk.ReadTextFileResponse{}, errNotOffered
	}
	ed.fsCalls = append(ed.fsCalls, "read "+r.Path)
	if text, ok := ed.buffers[r.Path]; ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	b, err := os.ReadFile(r.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return sdk.ReadTextFileResponse{Content: string(b)}, nil
}
func (ed *acpEditor) WriteTextFile(_ context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	if ed.buffers == nil {
		return sdk.WriteTextFileResponse{}, errNotOffered
	}
	ed.fsCalls = append(ed.fsCalls, "write "+r.Path)
	ed.buffers[r.Path] = r.Content
	return sdk.WriteTextFileResponse{}, nil
}
func (ed *acpEditor) CreateTerminal(ctx context.Context, r sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	if ed.terms == nil {
		return sdk.CreateTerminalResponse{}, errNotOffered
	}
	return ed.terms.CreateTerminal(ctx, r)
}
func (ed *acpEditor) KillTerminal(ctx context.Context, r sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	if ed.terms == nil {
		return sdk.KillTerminalResponse{}, errNotOffered
	}
	return ed.terms.KillTerminal(ctx, r)
}
func (ed *acpEditor) TerminalOutput(ctx context.Context, r sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	if ed.terms == nil {
		return sdk.TerminalOutputResponse{}, errNotOffered
	}
	return ed.terms.TerminalOutput(ctx, r)
}
func (ed *acpEditor) ReleaseTerminal(ctx context.Context, r sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	if ed.terms == nil {
		return sdk.ReleaseTerminalResponse{}, errNotOffered
	}
	return ed.terms.ReleaseTerminal(ctx, r)
}
func (ed *acpEditor) WaitForTerminalExit(ctx context.Context, r sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	if ed.terms == nil {
		return sdk.WaitForTerminalExitResponse{}, errNotOffered
	}
	return ed.terms.WaitForTerminalExit(ctx, r)
}

// kinds names the updates received so far, runs of one chunk kind once.
func (ed *acpEditor) kinds() []string {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	var out []string
	for _, n := range ed.updates {
		b, _ := json.Marshal(n.Update)
		var u struct {
			Kind string `json:"sessionUpdate"`
		}
		_ = json.Unmarshal(b, &u)
		if u.Kind == "session_info_update" {
			continue
		}
		if k := len(out); k > 0 && out[k-1] == u.Kind && strings.HasSuffix(u.Kind, "_chunk") {
			continue
		}
		out = append(out, u.Kind)
	}
	return out
}

func (ed *acpEditor) reset() {
	ed.mu.Lock()
	ed.updates = nil
	ed.mu.Unlock()
}

// waitKind waits for an update of kind k.
func (ed *acpEditor) waitKind(k string) {
	ed.t.Helper()
	if !waitfor.Within(waitfor.Deadline, func() bool { return slices.Contains(ed.kinds(), k) }) {
		ed.t.Fatalf("no %s update; got %v", k, ed.kinds())
	}
}

// waitLine waits for a line of the agent containing s.
func (ed *acpEditor) waitLine(s string) string {
	ed.t.Helper()
	var line string
	waitfor.Until(ed.t, "a line with "+s, func() bool {
		ed.mu.Lock()
		defer ed.mu.Unlock()
		for _, l := range ed.out {
			if strings.Contains(string(l), s) {
				line = string(l)
				return true
			}
		}
		return false
	})
	return line
}

// acpSchema validates messages against the protocol's JSON schema.
type acpSchema struct {
	defs     map[string]any
	resolved map[string]*jsonschema.Resolved
}

func loadACPSchema(t *testing.T) *acpSchema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "acp", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var root struct {
		Defs map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	return &acpSchema{defs: root.Defs, resolved: map[string]*jsonschema.Resolved{}}
}

// validate checks v against the definition def.
func (s *acpSchema) validate(def string, v any) error {
	rs, ok := s.resolved[def]
	if !ok {
		if _, ok := s.defs[def]; !ok {
			return fmt.Errorf("the schema has no %s", def)
		}
		b, _ := json.Marshal(map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": s.defs, "$ref": "#/$defs/" + def})
		var sch jsonschema.Schema
		if err := json.Unmarshal(b, &sch); err != nil {
			return err
		}
		var err error
		if rs, err = sch.Resolve(nil); err != nil {
			return err
		}
		s.resolved[def] = rs
	}
	return rs.Validate(v)
}

// agentRequestTypes are the params types of the agent's requests.
var agentRequestTypes = map[string]string{
	"session/request_permission": "RequestPermissionRequest",
	"fs/read_text_file":          "ReadTextFileRequest",
	"fs/write_text_file":         "WriteTextFileRequest",
	"terminal/create":            "CreateTerminalRequest",
	"terminal/output":            "TerminalOutputRequest",
	"terminal/wait_for_exit":     "WaitForTerminalExitRequest",
	"terminal/kill":              "KillTerminalRequest",
	"terminal/release":           "ReleaseTerminalRequest",
}

// responseTypes are the result types of the editor's requests.
var responseTypes = map[string]string{
	"initialize":                "InitializeResponse",
	"session/new":               "NewSessionResponse",
	"session/load":              "LoadSessionResponse",
	"session/prompt":            "PromptResponse",
	"session/list":              "ListSessionsResponse",
	"session/set_mode":          "SetSessionModeResponse",
	"session/set_config_option": "SetSessionConfigOptionResponse",
}

// checkLines validates every line the agent wrote: a JSON-RPC message of
// the agent's, whose params or result have the type its method says.
func (ed *acpEditor) checkLines(s *acpSchema) (n int) {
	ed.t.Helper()
	ed.mu.Lock()
	defer ed.mu.Unlock()
	for _, line := range ed.out {
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			ed.t.Errorf("standard output carries a line that is not JSON: %s", line)
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params any             `json:"params"`
			Result any             `json:"result"`
			Error  any             `json:"error"`
		}
		_ = json.Unmarshal(line, &m)
		var whole, part, def string
		var partV any
		switch {
		case m.Method != "" && len(m.ID) > 0:
			whole = "AgentRequest"
			part, partV = agentRequestTypes[m.Method], m.Params
		case m.Method != "":
			whole = "AgentNotification"
			part, partV = map[string]string{"session/update": "SessionNotification"}[m.Method], m.Params
		case m.Error != nil:
			whole, part, partV = "AgentResponse", "Error", m.Error
		default:
			whole = "AgentResponse"
			part, partV = responseTypes[ed.methods[string(m.ID)]], m.Result
		}
		if err := s.validate(whole, v); err != nil {
			ed.t.Errorf("%s does not validate as %s: %v", line, whole, err)
		}
		def = part
		if def == "" {
			ed.t.Errorf("no schema type known for %s", line)
			continue
		}
		if err := s.validate(def, partV); err != nil {
			ed.t.Errorf("%s: its %s does not validate: %v", line, def, err)
		}
		n++
	}
	return n
}

const acpScript = `
step
reasoning The user wants a.txt changed.
text Reading a.txt first.
call call_1 read {"filePath":"a.txt"}
finish tool-calls input=100 output=10
step
call call_2 todowrite {"todos":[{"id":"1","content":"Change the greeting","status":"in_progress","priority":"high"}]}
finish tool-calls input=120 output=10
step
call call_3 edit {"filePath":"a.txt","oldString":"hello","newString":"goodbye"}
finish tool-calls input=150 output=10
step
text a.txt now says goodbye.
finish stop input=200 output=8
step
text A one-pixel image.
finish stop input=300 output=5
step
text Resumed in the terminal.
finish stop input=400 output=5
`

// TestACPEditor drives codeloop acp as an editor does, with the ACP SDK's
// client over the process's standard input and output: a session with a
// read, a plan, an edit the editor approves and an image; the same
// session resumed in the terminal; then in a second process, bad input
// answered with JSON-RPC errors and the session loaded with its history.
// Every line the agent wrote validates against the protocol's schema.
func TestACPEditor(t *testing.T) {
	p := newProject(t, acpScript, map[string]string{"a.txt": "hello world\n"})
	p.writeConfig(`{"permission": {"edit": "ask"}}`)
	schema := loadACPSchema(t)

	ed := startACP(t, p, "allow_once")
	init, err := ed.conn.Initialize(ed.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientInfo: &sdk.Implementation{Name: "e2e", Version: "1"}})
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, ed.stderr.String())
	}
	if init.ProtocolVersion != sdk.ProtocolVersionNumber || !init.AgentCapabilities.LoadSession {
		t.Errorf("initialize: %+v", init)
	}
	sess, err := ed.conn.NewSession(ed.ctx(), sdk.NewSessionRequest{Cwd: p.dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	ed.waitKind("available_commands_update")
	ed.reset()

	resp, err := ed.conn.Prompt(ed.ctx(), sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("change hello to goodbye in a.txt")}})
	if err != nil {
		t.Fatalf("session/prompt: %v\n%s", err, ed.stderr.String())
	}
	if resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stopReason = %q", resp.StopReason)
	}
	want := []string{
		"agent_thought_chunk", "agent_message_chunk",
		"tool_call", "tool_call_update", "tool_call_update", // read: running, completed
		"tool_call", "tool_call_update", "plan", "tool_call_update", // todowrite
		"tool_call", "tool_call_update", "tool_call_update", // edit, asked and approved
		"agent_message_chunk",
	}
	if got := ed.kinds(); !slices.Equal(got, want) {
		t.Errorf("updates:\n got %v\nwant %v", got, want)
	}
	if ed.asked != 1 {
		t.Errorf("%d permission requests, want 1", ed.asked)
	}
	if got := p.read("a.txt"); got != "goodbye world\n" {
		t.Errorf("a.txt = %q", got)
	}

	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	resp, err = ed.conn.Prompt(ed.ctx(), sdk.PromptRequest{SessionId: sess.SessionId,
		Prompt: []sdk.ContentBlock{sdk.TextBlock("what is this?"), sdk.ImageBlock(png, "image/png")}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("image prompt: %+v %v", resp, err)
	}
	reqs := p.model.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "data:image/png;base64,"+png) {
		t.Errorf("the model did not receive the image")
	}
	if code := ed.close(); code != 0 {
		t.Errorf("codeloop acp exited %d\n%s", code, ed.stderr.String())
	}
	if n := ed.checkLines(schema); n < 20 {
		t.Errorf("only %d messages validated", n)
	}

	// The editor's session is the terminal's too.
	if ids := p.sessions(); !slices.Contains(ids, string(sess.SessionId)) {
		t.Fatalf("session list %v lacks %s", ids, sess.SessionId)
	}
	stdout, stderr, code := p.run("run", "--session", string(sess.SessionId), "go on")
	if code != 0 || !strings.Contains(stdout, "Resumed in the terminal.") {
		t.Errorf("run --session: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// A second editor process: bad input first, then the session loaded.
	ed2 := startACP(t, p, "allow_once")
	for _, c := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":`, `"code":-32700`},
		{`{"jsonrpc":"2.0","id":"x1","method":"no/such_method","params":{}}`, `"id":"x1","error":{"code":-32601`},
		{`{"jsonrpc":"2.0","id":"x2","method":"session/prompt","params":{"sessionId":"ses_nope","prompt":[{"type":"text","text":"hi"}]}}`, `"id":"x2","error":{"code":-32602`},
	} {
		ed2.in.mu.Lock()
		_, err := io.WriteString(ed2.in.w, c.line+"\n")
		ed2.in.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		ed2.waitLine(c.want)
	}
	ed2.mu.Lock()
	ed2.methods[`"x1"`], ed2.methods[`"x2"`] = "no/such_method", "session/prompt"
	ed2.mu.Unlock()
	if _, err := ed2.conn.Initialize(ed2.ctx(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize after bad input: %v", err)
	}
	if _, err := ed2.conn.LoadSession(ed2.ctx(), sdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: p.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	replay := ed2.kinds()
	if len(replay) < 6 || replay[0] != "user_message_chunk" || !slices.Contains(replay, "tool_call") ||
		strings.Count(strings.Join(replay, " "), "user_message_chunk") < 3 {
		t.Errorf("replay: %v", replay)
	}
	if code := ed2.close(); code != 0 {
		t.Errorf("second codeloop acp exited %d\n%s", code, ed2.stderr.String())
	}
	ed2.checkLines(schema)
}
