package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// callbackPath is the path of the OAuth callback on 127.0.0.1.
const callbackPath = "/mcp/oauth/callback"

// persistingSource hands out a server's OAuth token, refreshing it through
// base, and saves every new token in the auth store. A token that cannot be
// had (the refresh token was revoked, say) is reported as none, so that the
// server answers 401 and the server is marked needs_auth.
type persistingSource struct {
	base   oauth2.TokenSource
	store  *AuthStore
	server string
	url    string
	log    *slog.Logger

	mu   sync.Mutex
	last string
}

func (p *persistingSource) Token() (*oauth2.Token, error) {
	t, err := p.base.Token()
	if err != nil {
		p.log.Warn("mcp oauth token unavailable", "server", p.server, "error", err)
		return nil, nil
	}
	p.mu.Lock()
	changed := t.AccessToken != p.last
	p.last = t.AccessToken
	p.mu.Unlock()
	if changed {
		err := p.store.Update(p.server, func(e *AuthEntry) {
			e.ServerURL = p.url
			e.setToken(t)
		})
		if err != nil {
			p.log.Warn("mcp oauth token not saved", "server", p.server, "error", err)
		}
	}
	return t, nil
}

// refreshContext is the context of token refreshes: never cancelled, using
// the manager's HTTP client.
func (m *Manager) refreshContext() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, m.http)
}

// storedTokens returns the saved token source of a remote server, or nil
// when none is saved for its URL.
func (m *Manager) storedTokens(s *server) oauth2.TokenSource {
	if m.opts.Auth == nil {
		return nil
	}
	e, ok, err := m.opts.Auth.Get(s.name)
	if err != nil {
		m.log.Warn("mcp auth store unreadable", "error", err)
		return nil
	}
	if !ok || e.ServerURL != s.cfg.URL || e.AccessToken == "" {
		return nil
	}
	return &persistingSource{
		base:   e.oauthConfig().TokenSource(m.refreshContext(), e.token()),
		store:  m.opts.Auth,
		server: s.name,
		url:    s.cfg.URL,
		log:    m.log,
		last:   e.AccessToken,
	}
}

// backgroundAuth is the OAuth handler of connections made without the user:
// it sends the saved token and, when the server wants another, gives up
// with ErrNeedsAuth instead of starting a flow nobody would see.
type backgroundAuth struct{ tokens oauth2.TokenSource }

func (b *backgroundAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	return b.tokens, nil
}

func (b *backgroundAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode == http.StatusForbidden && !insufficientScope(resp) {
		// A plain 403 is not about the token; let the request report it.
		return nil
	}
	return ErrNeedsAuth
}

func insufficientScope(resp *http.Response) bool {
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return false
	}
	for _, c := range cs {
		if c.Params["error"] == "insufficient_scope" {
			return true
		}
	}
	return false
}

// Authenticate runs the OAuth authorisation of a remote server with the
// user present: discovery of the server's authorisation server, dynamic
// client registration when no client id is configured or saved, and the
// authorisation-code flow with PKCE. open receives the URL the user must
// visit (the CLI prints it and tries a browser); the authorisation server
// redirects to a callback server on 127.0.0.1. The tokens are saved and the
// server is connected. ctx bounds the whole flow.
func (m *Manager) Authenticate(ctx context.Context, name string, open func(url string) error) error {
	s, err := m.lookup(name)
	if err != nil {
		return err
	}
	switch {
	case s.cfg.Type != "remote":
		return fmt.Errorf("MCP server %q is not a remote server; only remote servers use OAuth", s.name)
	case !oauthEnabled(s.cfg):
		return fmt.Errorf("MCP server %q has OAuth disabled (\"oauth\": false)", s.name)
	case m.opts.Auth == nil:
		return errors.New("no auth store to keep the tokens in")
	}
	cb, err := m.listenCallback(s)
	if err != nil {
		return err
	}
	defer cb.close()
	h, err := auth.NewAuthorizationCodeHandler(m.authConfig(s, cb, open))
	if err != nil {
		return fmt.Errorf("setting up OAuth for MCP server %q: %w", s.name, err)
	}
	m.drop(s, Status{State: StateConnecting})
	return m.connect(ctx, s, h)
}

func (m *Manager) authConfig(s *server, cb *callbackServer, open func(string) error) *auth.AuthorizationCodeHandlerConfig {
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         cb.redirect,
		RequestRefreshToken: true,
		Client:              m.http,
		InitialTokenSource:  m.storedTokens(s),
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if err := open(args.URL); err != nil {
				return nil, err
			}
			return cb.wait(ctx)
		},
		NewTokenSource: func(ctx context.Context, oc *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			err := m.opts.Auth.Update(s.name, func(e *AuthEntry) {
				e.ServerURL = s.cfg.URL
				e.setConfig(oc)
				e.setToken(tok)
			})
			if err != nil {
				return nil, fmt.Errorf("saving the token: %w", err)
			}
			return &persistingSource{
				base: oc.TokenSource(ctx, tok), store: m.opts.Auth, server: s.name,
				url: s.cfg.URL, log: m.log, last: tok.AccessToken,
			}, nil
		},
	}
	oa := s.cfg.OAuth
	if oa != nil && oa.Scope != "" {
		scopes := strings.Fields(oa.Scope)
		cfg.ScopeFilter = func([]string) []string { return scopes }
	}
	saved, ok, _ := m.opts.Auth.Get(s.name)
	switch {
	case oa != nil && oa.ClientID != "":
		cfg.PreregisteredClient = clientCredentials(oa.ClientID, oa.ClientSecret)
	case ok && saved.ServerURL == s.cfg.URL && saved.ClientID != "" && saved.RedirectURL == cb.redirect:
		cfg.PreregisteredClient = clientCredentials(saved.ClientID, saved.ClientSecret)
	default:
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				RedirectURIs:            []string{cb.redirect},
				ClientName:              m.opts.ClientName,
				GrantTypes:              []string{"authorization_code", "refresh_token"},
				ResponseTypes:           []string{"code"},
				TokenEndpointAuthMethod: "none",
			},
		}
	}
	return cfg
}

func clientCredentials(id, secret string) *oauthex.ClientCredentials {
	c := &oauthex.ClientCredentials{ClientID: id}
	if secret != "" {
		c.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
	}
	return c
}

// callbackServer receives the authorisation server's redirect.
type callbackServer struct {
	redirect string
	srv      *http.Server
	results  chan callbackResult
	served   chan struct{}
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// listenCallback starts the callback server of s on 127.0.0.1: on the port
// and path of its configured redirectUri, else on its callbackPort, the
// manager's CallbackPort or DefaultCallbackPort.
func (m *Manager) listenCallback(s *server) (*callbackServer, error) {
	port, path, redirect := m.opts.CallbackPort, callbackPath, ""
	if port == 0 {
		port = DefaultCallbackPort
	} else if port < 0 {
		port = 0
	}
	if oa := s.cfg.OAuth; oa != nil {
		if oa.CallbackPort != nil {
			port = *oa.CallbackPort
		}
		if oa.RedirectURI != "" {
			u, err := url.Parse(oa.RedirectURI)
			if err != nil {
				return nil, fmt.Errorf("oauth.redirectUri %q: %w", oa.RedirectURI, err)
			}
			redirect, path = oa.RedirectURI, u.Path
			if p, err := strconv.Atoi(u.Port()); err == nil {
				port = p
			}
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("starting the OAuth callback server: %w", err)
	}
	if redirect == "" {
		redirect = fmt.Sprintf("http://127.0.0.1:%d%s", ln.Addr().(*net.TCPAddr).Port, path)
	}
	cb := &callbackServer{redirect: redirect, results: make(chan callbackResult, 1), served: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc(path, cb.handle)
	cb.srv = &http.Server{Handler: mux}
	go func() {
		defer close(cb.served)
		_ = cb.srv.Serve(ln)
	}()
	return cb, nil
}

func (cb *callbackServer) handle(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var res callbackResult
	if e := q.Get("error"); e != "" {
		msg := e
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		res.err = fmt.Errorf("the authorisation server refused: %s", msg)
	} else if q.Get("code") == "" {
		http.Error(w, "missing code", http.StatusBadRequest)
		return
	} else {
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
	}
	select {
	case cb.results <- res:
	default:
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if res.err != nil {
		fmt.Fprint(w, "<!doctype html><title>codeloop</title><p>Authorisation failed. You can close this window.</p>")
		return
	}
	fmt.Fprint(w, "<!doctype html><title>codeloop</title><p>Authorisation complete. You can close this window and return to codeloop.</p>")
}

func (cb *callbackServer) wait(ctx context.Context) (*auth.AuthorizationResult, error) {
	select {
	case r := <-cb.results:
		return r.res, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the OAuth callback: %w", ctx.Err())
	}
}

func (cb *callbackServer) close() {
	_ = cb.srv.Close()
	<-cb.served
}
