// Package acp serves codeloop as an agent of the Agent Client Protocol:
// JSON-RPC 2.0 over a pair of streams (standard input and output), so
// editors such as Zed, JetBrains IDEs, Neovim and Emacs can drive it.
//
// It translates between the protocol (through github.com/coder/acp-go-sdk)
// and the engine, which it reaches only through internal/client: prompts
// become user messages, the session's events become session/update
// notifications, permission asks become session/request_permission
// requests, primary agents are the session's modes and the model is a
// config option.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/codeloop/codeloop/internal/client"
)

// Options say how the agent reaches the engine.
type Options struct {
	// Open returns a client for the project in dir, an absolute directory,
	// with the editor's MCP servers (sorted by name, maybe none) connected
	// beside the project's. The agent opens one client per directory and
	// set of servers, and closes it when Serve returns.
	Open func(ctx context.Context, dir string, mcp []MCPServer) (client.Client, error)
	// Dir is the directory session/list lists when the editor names none.
	Dir string
	// Version is codeloop's version, reported to the editor.
	Version string
	// Log receives the connection's diagnostics; nil discards them.
	Log *slog.Logger
}

// Serve speaks the protocol on r and w until the editor closes r or ctx
// ends. Only protocol messages are written to w. When it returns, the
// running prompts have been aborted and the clients it opened are closed.
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) error {
	if opts.Open == nil {
		return errors.New("acp: Options.Open is required")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := newWire(w)
	a := &Agent{opts: opts, ctx: ctx, out: out, clients: map[string]client.Client{}, sessions: map[string]*session{}}
	// The connection reads from its first moment; nothing is read until
	// its logger and the agent's handle on it are set.
	opened := make(chan struct{})
	in := gate{r: out.filter(r, opts.Log), open: opened}
	conn := sdk.NewAgentSideConnection(a, out, in)
	conn.SetLogger(opts.Log)
	a.conn = conn
	close(opened)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	// Running prompts end cancelled; every request read gets its answer
	// before the clients close.
	cancel()
	if !out.drain(drainWait) {
		opts.Log.Warn("acp: requests left unanswered at exit")
	}
	a.close()
	return nil
}

// gate holds back reads from r until open is closed.
type gate struct {
	r    io.Reader
	open <-chan struct{}
}

func (g gate) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

// drainWait bounds how long Serve waits, once the editor has gone, for the
// answers to the requests it sent.
const drainWait = 10 * time.Second

// Agent implements the protocol's agent side over client.Client.
type Agent struct {
	opts Options
	ctx  context.Context // ends when Serve returns
	conn *sdk.AgentSideConnection
	out  *wire
	wg   sync.WaitGroup // goroutines the agent started

	mu       sync.Mutex
	clients  map[string]client.Client // by clientKey
	sessions map[string]*session      // by session id
	// editorFS says the editor offered fs/read_text_file and
	// fs/write_text_file: the file tools then go through it.
	editorFS bool
	// editorTerminal says the editor offered the terminal methods: bash
	// then runs its commands there when the project's config asks.
	editorTerminal bool
}

var (
	_ sdk.Agent       = (*Agent)(nil)
	_ sdk.AgentLoader = (*Agent)(nil)
)

// close aborts the running prompts, waits for the agent's goroutines and
// closes the clients.
func (a *Agent) close() {
	a.mu.Lock()
	sessions := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	a.mu.Unlock()
	for _, s := range sessions {
		if s.running() {
			_ = s.c.Abort(context.Background(), s.id)
		}
	}
	a.wg.Wait()
	a.mu.Lock()
	clients := a.clients
	a.clients = map[string]client.Client{}
	a.mu.Unlock()
	for key, c := range clients {
		if err := c.Close(); err != nil {
			dir, _, _ := strings.Cut(key, "\x00")
			a.opts.Log.Warn("closing the client", "dir", dir, "err", err)
		}
	}
}

// goBackground runs f in a goroutine close waits for.
func (a *Agent) goBackground(f func()) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		f()
	}()
}

// Initialize answers the editor's handshake with codeloop's capabilities.
func (a *Agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.editorFS = p.ClientCapabilities.Fs.ReadTextFile && p.ClientCapabilities.Fs.WriteTextFile
	a.editorTerminal = p.ClientCapabilities.Terminal
	a.mu.Unlock()
	version := sdk.ProtocolVersion(sdk.ProtocolVersionNumber)
	if p.ProtocolVersion < version {
		version = p.ProtocolVersion
	}
	title := "codeloop"
	return sdk.InitializeResponse{
		ProtocolVersion: version,
		AgentInfo:       &sdk.Implementation{Name: "codeloop", Title: &title, Version: a.opts.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
			},
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate is not needed: providers are configured with codeloop auth
// or the environment.
func (a *Agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, invalidParams("codeloop offers no authentication methods: add provider keys with `codeloop auth login` or the environment")
}

// client returns the client for dir with the editor's MCP servers,
// opening it on first use.
func (a *Agent) client(ctx context.Context, cwd string, servers []MCPServer) (client.Client, string, error) {
	if cwd == "" {
		return nil, "", invalidParams("cwd is required: the absolute path of the project directory")
	}
	if !filepath.IsAbs(cwd) {
		return nil, "", invalidParams(fmt.Sprintf("cwd %q is not an absolute path", cwd))
	}
	dir := filepath.Clean(cwd)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, "", invalidParams(fmt.Sprintf("cwd %q is not a directory", cwd))
	}
	key := clientKey(dir, servers)
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.clients[key]; ok {
		return c, dir, nil
	}
	if a.ctx.Err() != nil {
		return nil, "", a.ctx.Err()
	}
	c, err := a.opts.Open(ctx, dir, servers)
	if err != nil {
		return nil, "", fmt.Errorf("opening the project in %s: %w", dir, err)
	}
	a.clients[key] = c
	return c, dir, nil
}

// lookup returns the session the editor created or loaded in this
// connection.
func (a *Agent) lookup(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.sessions[string(id)]; ok {
		return s, nil
	}
	return nil, invalidParams(fmt.Sprintf("unknown session %q: create it with session/new or open it with session/load", id))
}

// update sends one session/update notification.
func (a *Agent) update(ctx context.Context, sessionID string, u sdk.SessionUpdate) error {
	return a.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(sessionID), Update: u})
}

// invalidParams is the JSON-RPC error for a request the agent cannot take
// as it is; message says what to change.
func invalidParams(message string) *sdk.RequestError {
	return &sdk.RequestError{Code: -32602, Message: message}
}

// requestError maps an engine error to a JSON-RPC error whose message is
// the error's own text.
func requestError(err error) error {
	var re *sdk.RequestError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re):
		return re
	case errors.Is(err, client.ErrNotFound):
		return invalidParams(err.Error())
	case errors.Is(err, context.Canceled):
		return sdk.NewRequestCancelled(map[string]any{"error": err.Error()})
	}
	return &sdk.RequestError{Code: -32603, Message: err.Error()}
}
