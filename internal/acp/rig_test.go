package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/acp"
	"github.com/codeloop/codeloop/internal/acp/acptest"
	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/clienttest"
	"github.com/codeloop/codeloop/internal/client/local"
)

// timeout bounds every wait of the tests.
const timeout = 30 * time.Second

// editor is the client side of a connection: the SDK's own client,
// recording what the agent sends and answering permission requests with
// choose.
type editor struct {
	t    *testing.T
	conn *sdk.ClientSideConnection

	mu      sync.Mutex
	updates []sdk.SessionNotification
	asked   []sdk.RequestPermissionRequest
	// extensions are the extension notifications received, as
	// "method params".
	extensions []string
	changed    chan struct{} // signalled on every update and request
	choose     func(sdk.RequestPermissionRequest) sdk.RequestPermissionResponse

	// buffers, when set, makes the editor offer its file system: the open
	// buffers by path (any other file reads from the disk); fsCalls
	// records the requests as "read path" and "write path".
	buffers map[string]string
	fsCalls []string

	// terms, when set, makes the editor offer terminals that really run
	// the commands; wire is every line the agent wrote, in order.
	terms *acptest.Terminals
	wire  lines
}

var _ sdk.Client = (*editor)(nil)

func (e *editor) signal() {
	select {
	case e.changed <- struct{}{}:
	default:
	}
}

func (e *editor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n)
	e.mu.Unlock()
	e.signal()
	return nil
}

// HandleExtensionMethod records an extension notification.
func (e *editor) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	e.mu.Lock()
	e.extensions = append(e.extensions, method+" "+string(params))
	e.mu.Unlock()
	e.signal()
	return nil, nil
}

func (e *editor) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.asked = append(e.asked, r)
	choose := e.choose
	e.mu.Unlock()
	e.signal()
	if choose == nil {
		// Wait like a user who does not answer, until the agent withdraws
		// the request.
		<-ctx.Done()
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return choose(r), nil
}

func (e *editor) ReadTextFile(_ context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.buffers == nil {
		return sdk.ReadTextFileResponse{}, errors.New("not offered")
	}
	e.fsCalls = append(e.fsCalls, "read "+r.Path)
	if text, ok := e.buffers[r.Path]; ok {
		return sdk.ReadTextFileResponse{Content: text}, nil
	}
	b, err := os.ReadFile(r.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	return sdk.ReadTextFileResponse{Content: string(b)}, nil
}

func (e *editor) WriteTextFile(_ context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.buffers == nil {
		return sdk.WriteTextFileResponse{}, errors.New("not offered")
	}
	e.fsCalls = append(e.fsCalls, "write "+r.Path)
	e.buffers[r.Path] = r.Content
	return sdk.WriteTextFileResponse{}, nil
}

// errNoTerminals answers the terminal methods of an editor that does not
// offer them.
var errNoTerminals = errors.New("not offered")

func (e *editor) CreateTerminal(ctx context.Context, r sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	if e.terms == nil {
		return sdk.CreateTerminalResponse{}, errNoTerminals
	}
	return e.terms.CreateTerminal(ctx, r)
}

func (e *editor) KillTerminal(ctx context.Context, r sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	if e.terms == nil {
		return sdk.KillTerminalResponse{}, errNoTerminals
	}
	return e.terms.KillTerminal(ctx, r)
}

func (e *editor) TerminalOutput(ctx context.Context, r sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	if e.terms == nil {
		return sdk.TerminalOutputResponse{}, errNoTerminals
	}
	return e.terms.TerminalOutput(ctx, r)
}

func (e *editor) ReleaseTerminal(ctx context.Context, r sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	if e.terms == nil {
		return sdk.ReleaseTerminalResponse{}, errNoTerminals
	}
	return e.terms.ReleaseTerminal(ctx, r)
}

func (e *editor) WaitForTerminalExit(ctx context.Context, r sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	if e.terms == nil {
		return sdk.WaitForTerminalExitResponse{}, errNoTerminals
	}
	return e.terms.WaitForTerminalExit(ctx, r)
}

// snapshot returns the updates of session id received so far.
func (e *editor) snapshot(id sdk.SessionId) []sdk.SessionUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []sdk.SessionUpdate
	for _, n := range e.updates {
		if n.SessionId == id {
			out = append(out, n.Update)
		}
	}
	return out
}

// reset forgets the updates received so far.
func (e *editor) reset() {
	e.mu.Lock()
	e.updates = nil
	e.asked = nil
	e.mu.Unlock()
}

func (e *editor) requests() []sdk.RequestPermissionRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]sdk.RequestPermissionRequest(nil), e.asked...)
}

// waitFor waits until cond holds of the updates of session id.
func (e *editor) waitFor(id sdk.SessionId, what string, cond func([]sdk.SessionUpdate) bool) []sdk.SessionUpdate {
	e.t.Helper()
	deadline := time.After(timeout)
	for {
		if u := e.snapshot(id); cond(u) {
			return u
		}
		select {
		case <-e.changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			e.t.Fatalf("timed out waiting for %s; updates: %v", what, kinds(e.snapshot(id)))
		}
	}
}

// rig runs the agent over pipes on a project, with an editor connected.
type rig struct {
	t       *testing.T
	project *clienttest.Project
	ed      *editor
	done    chan error
	close   func()
}

// newRig starts the agent on a project whose model plays script and whose
// config adds extra.
func newRig(t *testing.T, script, extra string, files map[string]string) *rig {
	t.Helper()
	p := clienttest.NewProject(t, script, extra, files)
	return connect(t, p)
}

// connect starts an agent over the project and connects an editor to it.
func connect(t *testing.T, p *clienttest.Project) *rig {
	t.Helper()
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	open := func(ctx context.Context, dir string, _ []acp.MCPServer) (client.Client, error) {
		return openLocal(ctx, p, dir)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{t: t, project: p, done: make(chan error, 1)}
	go func() {
		r.done <- acp.Serve(ctx, toAgentR, fromAgentW, acp.Options{Open: open, Dir: p.Dir, Version: "test"})
		_ = fromAgentW.Close()
	}()
	r.ed = &editor{t: t, changed: make(chan struct{}, 1)}
	r.ed.conn = sdk.NewClientSideConnection(r.ed, toAgentW, io.TeeReader(fromAgentR, &r.ed.wire))
	r.ed.conn.SetLogger(slog.New(slog.DiscardHandler))
	var once sync.Once
	r.close = func() {
		once.Do(func() {
			_ = toAgentW.Close()
			select {
			case err := <-r.done:
				if err != nil {
					t.Errorf("Serve: %v", err)
				}
			case <-time.After(timeout):
				t.Error("Serve did not return after the editor closed its stream")
			}
			cancel()
		})
	}
	t.Cleanup(r.close)
	return r
}

// openLocal opens the in-process client on the project's app in dir.
func openLocal(ctx context.Context, p *clienttest.Project, dir string) (client.Client, error) {
	a, err := app.Open(ctx, app.Options{Dir: dir, Dirs: p.Dirs, Getenv: p.Getenv, NoMCP: true, Version: "test"})
	if err != nil {
		return nil, err
	}
	return closer{Client: local.New(a), app: a}, nil
}

// readFile returns a file of dir.
func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// closer closes the app with its client.
type closer struct {
	*local.Client
	app *app.App
}

func (c closer) Close() error { return errors.Join(c.Client.Close(), c.app.Close()) }

// ctx is a context bounded by the tests' timeout.
func (r *rig) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	r.t.Cleanup(cancel)
	return ctx
}

// initialize does the handshake.
func (r *rig) initialize() sdk.InitializeResponse {
	r.t.Helper()
	req := sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}
	r.ed.mu.Lock()
	if r.ed.buffers != nil {
		req.ClientCapabilities.Fs = sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}
	}
	req.ClientCapabilities.Terminal = r.ed.terms != nil
	r.ed.mu.Unlock()
	resp, err := r.ed.conn.Initialize(r.ctx(), req)
	if err != nil {
		r.t.Fatalf("initialize: %v", err)
	}
	return resp
}

// newSession initializes and creates a session in the project, waiting
// for its commands.
func (r *rig) newSession() sdk.NewSessionResponse {
	r.t.Helper()
	r.initialize()
	resp, err := r.ed.conn.NewSession(r.ctx(), sdk.NewSessionRequest{Cwd: r.project.Dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		r.t.Fatalf("session/new: %v", err)
	}
	r.ed.waitFor(resp.SessionId, "the commands", func(u []sdk.SessionUpdate) bool {
		return len(u) > 0 && u[0].AvailableCommandsUpdate != nil
	})
	r.ed.reset()
	return resp
}

// prompt sends text and returns the stop reason.
func (r *rig) prompt(id sdk.SessionId, blocks ...sdk.ContentBlock) sdk.PromptResponse {
	r.t.Helper()
	resp, err := r.ed.conn.Prompt(r.ctx(), sdk.PromptRequest{SessionId: id, Prompt: blocks})
	if err != nil {
		r.t.Fatalf("session/prompt: %v", err)
	}
	return resp
}

// kind names an update by its sessionUpdate discriminator.
func kind(u sdk.SessionUpdate) string {
	switch {
	case u.UserMessageChunk != nil:
		return "user_message_chunk"
	case u.AgentMessageChunk != nil:
		return "agent_message_chunk"
	case u.AgentThoughtChunk != nil:
		return "agent_thought_chunk"
	case u.ToolCall != nil:
		return "tool_call"
	case u.ToolCallUpdate != nil:
		return "tool_call_update"
	case u.Plan != nil:
		return "plan"
	case u.AvailableCommandsUpdate != nil:
		return "available_commands_update"
	case u.CurrentModeUpdate != nil:
		return "current_mode_update"
	case u.ConfigOptionUpdate != nil:
		return "config_option_update"
	case u.SessionInfoUpdate != nil:
		return "session_info_update"
	case u.UsageUpdate != nil:
		return "usage_update"
	}
	return "?"
}

func kinds(us []sdk.SessionUpdate) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = kind(u)
	}
	return out
}

// squeeze names the updates, runs of the same chunk kind once: how many
// chunks a text streams in is the model's business.
func squeeze(us []sdk.SessionUpdate) []string {
	var out []string
	for _, u := range us {
		k := kind(u)
		if k == "session_info_update" {
			continue // the title arrives whenever the title model answers
		}
		if n := len(out); n > 0 && out[n-1] == k && (k == "agent_message_chunk" || k == "agent_thought_chunk") {
			continue
		}
		out = append(out, k)
	}
	return out
}

// text joins the text of the chunks of one kind.
func text(us []sdk.SessionUpdate, k string) string {
	s := ""
	for _, u := range us {
		if kind(u) != k {
			continue
		}
		var b *sdk.ContentBlock
		switch {
		case u.AgentMessageChunk != nil:
			b = &u.AgentMessageChunk.Content
		case u.AgentThoughtChunk != nil:
			b = &u.AgentThoughtChunk.Content
		case u.UserMessageChunk != nil:
			b = &u.UserMessageChunk.Content
		}
		if b != nil && b.Text != nil {
			s += b.Text.Text
		}
	}
	return s
}

// toolUpdates returns the tool_call and tool_call_update updates of a call.
func toolUpdates(us []sdk.SessionUpdate, id string) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	for _, u := range us {
		if u.ToolCall != nil && string(u.ToolCall.ToolCallId) == id || u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id {
			out = append(out, u)
		}
	}
	return out
}

// lastStatus is the status the editor last heard for a call.
func lastStatus(us []sdk.SessionUpdate, id string) sdk.ToolCallStatus {
	var st sdk.ToolCallStatus
	for _, u := range toolUpdates(us, id) {
		switch {
		case u.ToolCall != nil:
			st = u.ToolCall.Status
		case u.ToolCallUpdate.Status != nil:
			st = *u.ToolCallUpdate.Status
		}
	}
	return st
}

// messages reads a session's messages through a client of its own.
func (r *rig) messages(sessionID string) []client.Message {
	r.t.Helper()
	p := r.project
	a, err := app.Open(r.ctx(), app.Options{Dir: p.Dir, Dirs: p.Dirs, Getenv: p.Getenv, NoMCP: true, Version: "test"})
	if err != nil {
		r.t.Fatal(err)
	}
	c := local.New(a)
	defer func() { _ = c.Close(); _ = a.Close() }()
	msgs, err := c.Messages(r.ctx(), sessionID, client.MessagesOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	return msgs
}
