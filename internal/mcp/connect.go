package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/codeloop/codeloop/internal/config"
)

// ErrNeedsAuth reports a remote server that wants an OAuth authorisation
// codeloop does not have; `codeloop mcp auth <name>` obtains one.
var ErrNeedsAuth = errors.New("the server needs OAuth authorisation")

// ConnectError reports a server that could not be connected.
type ConnectError struct {
	Server string
	Err    error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("connecting to MCP server %q: %v", e.Server, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

func (m *Manager) connectTimeout(cfg config.MCP) time.Duration {
	if cfg.Timeout != nil && *cfg.Timeout > 0 {
		return time.Duration(*cfg.Timeout) * time.Millisecond
	}
	if m.opts.ConnectTimeout > 0 {
		return m.opts.ConnectTimeout
	}
	return DefaultConnectTimeout
}

func (m *Manager) callTimeout(cfg config.MCP) time.Duration {
	if cfg.Timeout != nil && *cfg.Timeout > 0 {
		return time.Duration(*cfg.Timeout) * time.Millisecond
	}
	if m.opts.CallTimeout > 0 {
		return m.opts.CallTimeout
	}
	return DefaultCallTimeout
}

// connect connects s, lists what it offers and installs the connection.
// interactive, when set, is the OAuth handler of an authorisation the user
// is present for; the caller's ctx then bounds the whole attempt.
func (m *Manager) connect(ctx context.Context, s *server, interactive auth.OAuthHandler) error {
	var cancel context.CancelFunc
	limit := m.connectTimeout(s.cfg)
	if interactive == nil {
		ctx, cancel = context.WithTimeout(ctx, limit)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	defer context.AfterFunc(m.ctx, cancel)()

	c := &conn{refresh: make(chan struct{}, 1)}
	client := m.newClient(s, c)
	var err error
	switch s.cfg.Type {
	case "local":
		c.protocol = "stdio"
		c.session, err = client.Connect(ctx, m.localTransport(s), nil)
	case "remote":
		err = m.dialRemote(ctx, s, c, client, interactive)
	case "":
		err = errors.New(`the entry has no "type": set it to "local" or "remote"`)
	default:
		err = fmt.Errorf(`unknown type %q: want "local" or "remote"`, s.cfg.Type)
	}
	if err == nil {
		c.init = c.session.InitializeResult()
		if c.tools, c.prompts, err = m.lists(ctx, s, c); err != nil {
			c.close()
			err = fmt.Errorf("listing tools: %w", err)
		}
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil && m.ctx.Err() == nil && interactive == nil {
			err = fmt.Errorf("no answer within %s: %w", limit, err)
		}
		st := Status{State: StateFailed, Error: err.Error()}
		if errors.Is(err, ErrNeedsAuth) {
			st = Status{State: StateNeedsAuth}
		}
		m.setStatus(s, st)
		m.log.Warn("mcp server not connected", "server", s.name, "status", st.State, "error", err)
		return &ConnectError{Server: s.name, Err: err}
	}
	if !m.install(s, c) {
		return &ConnectError{Server: s.name, Err: errors.New("codeloop is shutting down")}
	}
	m.log.Info("mcp server connected", "server", s.name, "transport", c.protocol, "tools", len(c.tools))
	return nil
}

func (m *Manager) newClient(s *server, c *conn) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: m.opts.ClientName, Version: m.opts.ClientVersion}, &sdk.ClientOptions{
		Logger:       m.log.With("server", s.name),
		Capabilities: &sdk.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			c.requestRefresh()
		},
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) {
			c.requestRefresh()
		},
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			if req.Params == nil {
				return
			}
			if f, ok := m.progress.Load(fmt.Sprint(req.Params.ProgressToken)); ok {
				f.(func(*sdk.ProgressNotificationParams))(req.Params)
			}
		},
	})
}

func (c *conn) requestRefresh() {
	select {
	case c.refresh <- struct{}{}:
	default:
	}
}

func (m *Manager) localTransport(s *server) *processTransport {
	dir := s.cfg.Cwd
	switch {
	case dir == "":
		dir = m.opts.Dir
	case !filepath.IsAbs(dir) && m.opts.Dir != "":
		dir = filepath.Join(m.opts.Dir, dir)
	}
	return &processTransport{
		ctx:     m.procCtx,
		name:    s.name,
		command: s.cfg.Command,
		dir:     dir,
		env:     serverEnv(m.opts.Env, s.cfg.Environment),
		log:     m.log,
	}
}

func oauthEnabled(cfg config.MCP) bool { return cfg.OAuth == nil || !cfg.OAuth.Disabled }

// dialRemote connects over streamable HTTP and, when that fails for a
// reason other than authorisation, over SSE.
func (m *Manager) dialRemote(ctx context.Context, s *server, c *conn, client *sdk.Client, interactive auth.OAuthHandler) error {
	if s.cfg.URL == "" {
		return errors.New(`the entry has no "url"`)
	}
	useOAuth := oauthEnabled(s.cfg)
	var tokens oauth2.TokenSource
	if useOAuth {
		tokens = m.storedTokens(s)
	}
	rt := &headerTransport{base: m.baseTransport(), headers: s.cfg.Headers}
	st := &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: m.clientWith(rt)}
	switch {
	case interactive != nil:
		st.OAuthHandler = interactive
	case useOAuth:
		st.OAuthHandler = &backgroundAuth{tokens: tokens}
	}
	cs, err := client.Connect(ctx, st, nil)
	if err == nil {
		c.session, c.protocol = cs, "streamable-http"
		return nil
	}
	if err := authFailure(err, rt, useOAuth); err != nil || ctx.Err() != nil {
		if err != nil {
			return err
		}
		return ctx.Err()
	}
	rt2 := &headerTransport{base: m.baseTransport(), headers: s.cfg.Headers, tokens: tokens}
	sse := &sseTransport{inner: &sdk.SSEClientTransport{Endpoint: s.cfg.URL, HTTPClient: m.clientWith(rt2)}}
	sse.life, sse.cancel = context.WithCancel(m.ctx)
	cs, err2 := client.Connect(ctx, sse, nil)
	if err2 == nil {
		c.session, c.protocol = cs, "sse"
		return nil
	}
	if aerr := authFailure(err2, rt2, useOAuth); aerr != nil {
		return aerr
	}
	return fmt.Errorf("streamable HTTP: %w; SSE: %v", err, err2)
}

// sseTransport keeps an SSE connection's event stream open after the
// connect that opened it returns: the SDK ties the stream to the context
// given to Connect, so it gets one living as long as the connection, cut
// short only when the connect itself is abandoned.
type sseTransport struct {
	inner  *sdk.SSEClientTransport
	life   context.Context
	cancel context.CancelFunc
}

func (t *sseTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	stop := context.AfterFunc(ctx, t.cancel)
	conn, err := t.inner.Connect(t.life)
	if !stop() {
		if conn != nil {
			_ = conn.Close()
		}
		return nil, ctx.Err()
	}
	if err != nil {
		t.cancel()
		return nil, err
	}
	return &sseConn{Connection: conn, cancel: t.cancel}, nil
}

// sseConn ends its stream's context when closed.
type sseConn struct {
	sdk.Connection
	cancel context.CancelFunc
}

func (c *sseConn) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}

// authFailure classifies a failed attempt as a want of authorisation, or
// returns nil.
func authFailure(err error, rt *headerTransport, useOAuth bool) error {
	switch {
	case errors.Is(err, ErrNeedsAuth):
		return err
	case rt.unauthorized.Load() && useOAuth:
		return fmt.Errorf("%w: %v", ErrNeedsAuth, err)
	case rt.unauthorized.Load():
		return fmt.Errorf("the server answered 401 Unauthorized and OAuth is disabled for it: %w", err)
	}
	return nil
}

func (m *Manager) baseTransport() http.RoundTripper {
	if m.http.Transport != nil {
		return m.http.Transport
	}
	return http.DefaultTransport
}

func (m *Manager) clientWith(rt http.RoundTripper) *http.Client {
	return &http.Client{Transport: rt, Jar: m.http.Jar, CheckRedirect: m.http.CheckRedirect}
}

// headerTransport adds a server's configured headers (and, for SSE, its
// OAuth token) to every request and notes a 401 answer.
type headerTransport struct {
	base         http.RoundTripper
	headers      map[string]string
	tokens       oauth2.TokenSource
	unauthorized atomic.Bool
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		if req.Header.Get(k) == "" {
			req.Header.Set(k, v)
		}
	}
	if t.tokens != nil && req.Header.Get("Authorization") == "" {
		if tok, err := t.tokens.Token(); err == nil && tok != nil && tok.AccessToken != "" {
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		t.unauthorized.Store(true)
	}
	return resp, err
}

// lists fetches the tools and prompts of a connection.
func (m *Manager) lists(ctx context.Context, s *server, c *conn) ([]*mcpTool, []Prompt, error) {
	caps := &sdk.ServerCapabilities{}
	if c.init != nil && c.init.Capabilities != nil {
		caps = c.init.Capabilities
	}
	var tools []*mcpTool
	if caps.Tools != nil {
		for t, err := range c.session.Tools(ctx, nil) {
			if err != nil {
				return nil, nil, err
			}
			tools = append(tools, m.newTool(s, t))
		}
		tools = dedupeTools(tools, m.log)
	}
	var prompts []Prompt
	if caps.Prompts != nil {
		for p, err := range c.session.Prompts(ctx, nil) {
			if err != nil {
				// Prompts are a convenience; a server whose list fails
				// still serves its tools.
				m.log.Warn("mcp prompt list failed", "server", s.name, "error", err)
				prompts = nil
				break
			}
			prompts = append(prompts, newPrompt(s.name, p))
		}
	}
	return tools, prompts, nil
}

// refreshTools lists a connection's tools and prompts again after the
// server said they changed.
func (m *Manager) refreshTools(s *server, c *conn) error {
	ctx, cancel := context.WithTimeout(m.ctx, m.connectTimeout(s.cfg))
	defer cancel()
	tools, prompts, err := m.lists(ctx, s, c)
	if err != nil {
		return err
	}
	m.mu.Lock()
	current := s.conn == c
	if current {
		c.tools, c.prompts = tools, prompts
	}
	m.mu.Unlock()
	if current {
		m.publishToolsChanged(s.name)
	}
	return nil
}
