package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/tool"
)

// Defaults of the Options.
const (
	// DefaultStartupWait is how long the first prompt waits for the servers
	// still connecting: long enough for a local server that starts quickly,
	// short enough that a slow one never holds up an answer that does not
	// need it. A server that connects later brings its tools from the next
	// step on.
	DefaultStartupWait = 3 * time.Second
	// DefaultConnectTimeout bounds connecting to a server that sets no
	// timeout of its own.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultCallTimeout bounds a tool call, prompt or resource read on a
	// server that sets no timeout of its own.
	DefaultCallTimeout = 5 * time.Minute
	// DefaultCallbackPort is the port of the OAuth callback server.
	DefaultCallbackPort = 19876
)

// State is a server's connection state.
type State string

// The states of a server.
const (
	StateConnecting State = "connecting"
	StateConnected  State = "connected"
	StateDisabled   State = "disabled"
	StateFailed     State = "failed"
	StateNeedsAuth  State = "needs_auth"
)

// Status is a server's state and, when it failed, why.
type Status struct {
	State State  `json:"status"`
	Error string `json:"error,omitempty"`
}

// ToolsChanged is the payload of the bus.MCPToolsChanged event.
type ToolsChanged struct {
	Server string `json:"server"`
}

// Options configure a Manager. The zero value works.
type Options struct {
	// Dir is the session's working directory; a local server's cwd is
	// relative to it.
	Dir string
	// Bus receives bus.MCPToolsChanged events; nil publishes nothing.
	Bus *bus.Bus
	// Logger receives the manager's log and local servers' stderr.
	Logger *slog.Logger
	// Auth keeps OAuth clients and tokens; nil keeps nothing, so servers
	// needing OAuth stay in needs_auth.
	Auth *AuthStore
	// Env is the environment local servers inherit (os.Environ() when nil).
	Env []string
	// HTTPClient is the base client for remote servers (a default one when
	// nil). Its Transport is wrapped to add the configured headers.
	HTTPClient *http.Client
	// CallTimeout bounds calls on servers that set no timeout
	// (DefaultCallTimeout when zero); the app passes
	// experimental.mcp_timeout here.
	CallTimeout time.Duration
	// ConnectTimeout bounds connecting to servers that set no timeout
	// (DefaultConnectTimeout when zero).
	ConnectTimeout time.Duration
	// CallbackPort is the OAuth callback port for servers that configure
	// none: zero means DefaultCallbackPort, a negative value any free port.
	CallbackPort int
	// ClientName and ClientVersion identify codeloop to servers.
	ClientName, ClientVersion string
	// Truncate cuts the text the tools return to the tool output limits,
	// as for every tool; nil leaves it whole.
	Truncate *tool.Truncator
}

// Manager connects the configured MCP servers and gives access to what they
// offer. Its methods are safe for concurrent use.
type Manager struct {
	opts Options
	log  *slog.Logger
	http *http.Client

	// ctx bounds connects, calls and refreshes; procCtx bounds the local
	// servers' processes, so that Close can stop them gracefully after
	// cancelling everything else.
	ctx, procCtx       context.Context
	cancel, cancelProc context.CancelFunc
	wg                 sync.WaitGroup
	ready              chan struct{}
	progressID         atomic.Int64
	progress           sync.Map // progress token -> func(*sdk.ProgressNotificationParams)

	mu      sync.RWMutex
	closed  bool
	servers map[string]*server
}

type server struct {
	name   string
	cfg    config.MCP
	status Status
	conn   *conn
}

// conn is one live connection to a server and what it reported.
type conn struct {
	session  *sdk.ClientSession
	init     *sdk.InitializeResult
	tools    []*mcpTool
	prompts  []Prompt
	refresh  chan struct{}
	closing  atomic.Bool
	protocol string // "stdio", "streamable-http" or "sse"
}

// Start returns a manager that connects every enabled server of servers in
// the background. Close stops it.
func Start(servers map[string]config.MCP, opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ClientName == "" {
		opts.ClientName = "codeloop"
	}
	if opts.ClientVersion == "" {
		opts.ClientVersion = "dev"
	}
	m := &Manager{
		opts:    opts,
		log:     opts.Logger.With("component", "mcp"),
		ready:   make(chan struct{}),
		servers: make(map[string]*server, len(servers)),
	}
	m.http = opts.HTTPClient
	if m.http == nil {
		m.http = &http.Client{}
	}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.procCtx, m.cancelProc = context.WithCancel(context.Background())

	var pending sync.WaitGroup
	for name, cfg := range servers {
		s := &server{name: name, cfg: cfg}
		m.servers[name] = s
		if !enabled(cfg) {
			s.status = Status{State: StateDisabled}
			continue
		}
		s.status = Status{State: StateConnecting}
		pending.Add(1)
		m.wg.Go(func() {
			defer pending.Done()
			_ = m.connect(m.ctx, s, nil)
		})
	}
	m.wg.Go(func() {
		pending.Wait()
		close(m.ready)
	})
	return m
}

func enabled(cfg config.MCP) bool { return cfg.Enabled == nil || *cfg.Enabled }

// WaitReady waits until every server has finished its first connection
// attempt, at most max (DefaultStartupWait when max is not positive), and
// reports whether all had. The first prompt of a session calls it so that
// tools are there when the model first looks.
func (m *Manager) WaitReady(ctx context.Context, max time.Duration) bool {
	if max <= 0 {
		max = DefaultStartupWait
	}
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-m.ready:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// Close disconnects every server, stops the local ones and waits for the
// manager's goroutines to end. Calls still running fail.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	var conns []*conn
	for _, s := range m.servers {
		if s.conn != nil {
			conns = append(conns, s.conn)
			s.conn = nil
		}
	}
	m.mu.Unlock()
	// Cancelled calls retire at once, so closing a session need not wait
	// for a hung one.
	m.cancel()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(c.close)
	}
	wg.Wait()
	m.cancelProc()
	m.wg.Wait()
	return nil
}

func (c *conn) close() {
	c.closing.Store(true)
	_ = c.session.Close()
}

// Status reports the state of every configured server by name.
func (m *Manager) Status() map[string]Status {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make(map[string]Status, len(m.servers))
	for name, s := range m.servers {
		out[name] = s.status
	}
	return out
}

// ServerInfo describes one configured server.
type ServerInfo struct {
	Name    string
	Type    string // local or remote
	Status  Status
	Tools   int
	Prompts int
	// Transport is how it is connected: stdio, streamable-http or sse.
	Transport string
	// Capabilities, Instructions and Version come from its initialisation.
	Capabilities *sdk.ServerCapabilities
	Instructions string
	Version      string
}

// Servers describes every configured server, sorted by name.
func (m *Manager) Servers() []ServerInfo {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]ServerInfo, 0, len(m.servers))
	for name, s := range m.servers {
		info := ServerInfo{Name: name, Type: s.cfg.Type, Status: s.status}
		if c := s.conn; c != nil {
			info.Tools, info.Prompts, info.Transport = len(c.tools), len(c.prompts), c.protocol
			if c.init != nil {
				info.Capabilities, info.Instructions = c.init.Capabilities, c.init.Instructions
				if c.init.ServerInfo != nil {
					info.Version = c.init.ServerInfo.Name + " " + c.init.ServerInfo.Version
				}
			}
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b ServerInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Instructions maps each connected server that gave instructions to them,
// for the system prompt.
func (m *Manager) Instructions() map[string]string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := map[string]string{}
	for name, s := range m.servers {
		if s.conn != nil && s.conn.init != nil && s.conn.init.Instructions != "" {
			out[name] = s.conn.init.Instructions
		}
	}
	return out
}

// Reconnect drops the server's connection, if any, and connects it again,
// waiting for the outcome.
func (m *Manager) Reconnect(ctx context.Context, name string) error {
	s, err := m.lookup(name)
	if err != nil {
		return err
	}
	if !enabled(s.cfg) {
		return fmt.Errorf("MCP server %q is disabled", name)
	}
	m.drop(s, Status{State: StateConnecting})
	return m.connect(ctx, s, nil)
}

// lookup finds a server by its configured or its sanitised name.
func (m *Manager) lookup(name string) (*server, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if s, ok := m.servers[name]; ok {
		return s, nil
	}
	for n, s := range m.servers {
		if sanitize(n) == name {
			return s, nil
		}
	}
	return nil, &UnknownServerError{Name: name}
}

// UnknownServerError reports a server name that is not configured.
type UnknownServerError struct{ Name string }

func (e *UnknownServerError) Error() string {
	return fmt.Sprintf("no MCP server is named %q", e.Name)
}

// session returns the live session of a connected server.
func (m *Manager) session(name string) (*server, *conn, error) {
	s, err := m.lookup(name)
	if err != nil {
		return nil, nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if s.conn == nil {
		return s, nil, &NotConnectedError{Name: s.name, Status: s.status}
	}
	return s, s.conn, nil
}

// NotConnectedError reports a use of a server that is not connected.
type NotConnectedError struct {
	Name   string
	Status Status
}

func (e *NotConnectedError) Error() string {
	msg := fmt.Sprintf("MCP server %q is not connected (%s", e.Name, e.Status.State)
	if e.Status.Error != "" {
		msg += ": " + e.Status.Error
	}
	return msg + ")"
}

// install makes c the server's connection and watches it.
func (m *Manager) install(s *server, c *conn) bool {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		c.close()
		return false
	}
	old := s.conn
	s.conn, s.status = c, Status{State: StateConnected}
	// The goroutines are added under the lock, so that Close, which sets
	// closed under it before waiting, never waits while one is added.
	if old != nil {
		m.wg.Go(old.close)
	}
	m.wg.Go(func() { m.watch(s, c) })
	m.mu.Unlock()
	m.publishToolsChanged(s.name)
	return true
}

// drop closes the server's connection, if any, and sets its status.
func (m *Manager) drop(s *server, st Status) {
	m.mu.Lock()
	old := s.conn
	s.conn, s.status = nil, st
	m.mu.Unlock()
	if old != nil {
		old.close()
		m.publishToolsChanged(s.name)
	}
}

// fail marks the server failed when c is still its connection.
func (m *Manager) fail(s *server, c *conn, err error) {
	m.mu.Lock()
	if s.conn != c {
		m.mu.Unlock()
		return
	}
	s.conn = nil
	s.status = Status{State: StateFailed, Error: err.Error()}
	m.mu.Unlock()
	m.log.Warn("mcp server disconnected", "server", s.name, "error", err)
	m.publishToolsChanged(s.name)
}

func (m *Manager) setStatus(s *server, st Status) {
	m.mu.Lock()
	s.status = st
	m.mu.Unlock()
}

// watch serves the refresh requests of c and notices when it closes.
func (m *Manager) watch(s *server, c *conn) {
	done := make(chan error, 1)
	go func() { done <- c.session.Wait() }()
	for {
		select {
		case <-c.refresh:
			if err := m.refreshTools(s, c); err != nil {
				m.log.Warn("mcp tool list refresh failed", "server", s.name, "error", err)
			}
		case err := <-done:
			if c.closing.Load() {
				return
			}
			msg := "the server closed the connection"
			if err != nil {
				msg += ": " + err.Error()
			}
			m.fail(s, c, errors.New(msg))
			c.close()
			return
		}
	}
}

func (m *Manager) publishToolsChanged(server string) {
	if m.opts.Bus == nil {
		return
	}
	m.opts.Bus.Publish(m.ctx, bus.Event{Type: bus.MCPToolsChanged, Properties: ToolsChanged{Server: server}})
}
