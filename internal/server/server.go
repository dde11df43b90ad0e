// Package server is codeloop's HTTP API: OpenCode's routes and JSON
// shapes over a client.Client, live events as server-sent events on
// GET /event, and an OpenAPI 3.1 description generated from the Go types
// on GET /doc.
//
// It is closed by default: every request must carry the server's token
// (Authorization: Bearer, or HTTP Basic with the token as password), its
// Host must name the address the server listens on (no DNS rebinding),
// and a request from a browser page (an Origin header) is refused unless
// that origin is configured, in which case it also receives CORS headers.
// On Linux a connection from another user of the machine is refused
// before anything else, whatever it carries.
//
// Like every front end it reaches the engine only through internal/client.
package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// Defaults of Options.
const (
	DefaultMaxBody   = 16 << 20
	DefaultHeartbeat = 10 * time.Second
	// writeWait bounds one write to an event stream: a subscriber that
	// takes no bytes for this long is disconnected, so it never holds
	// the engine's events back.
	writeWait = 5 * time.Second
	// bodyWait bounds reading a request's body.
	bodyWait = 60 * time.Second
)

// Options configure a Server.
type Options struct {
	// Token is the secret every request must present. It must not be
	// empty.
	Token string
	// Hosts are the Host header values accepted, compared without regard
	// to case ("127.0.0.1:4096", "localhost:4096"); empty accepts any,
	// for a server listening on every address.
	Hosts []string
	// Origins are the browser origins allowed to call the server
	// ("https://app.example.com"); they receive CORS headers. A request
	// with any other Origin is refused.
	Origins []string
	// MaxBody caps a request body in bytes (DefaultMaxBody when zero).
	MaxBody int64
	// Heartbeat is the interval of server.heartbeat events
	// (DefaultHeartbeat when zero).
	Heartbeat time.Duration
	// Version is reported by GET /global/health and GET /doc.
	Version string
	// Log receives a line per refused request and server error; nil
	// discards them.
	Log *slog.Logger
	// Web, when set, is a browser front end (internal/web) served under
	// its prefix, with the API served a second time under prefix+"api/"
	// and accepting the front end's session cookie (see Web).
	Web Web
}

// Web is a browser front end served beside the API.
//
// Its pages are served without the token; they show nothing of a session
// by themselves. The API then accepts, instead of the token, a session
// cookie the front end issued, from the page's own origin only: a request
// the cookie authenticates must not come from another origin (Origin,
// Sec-Fetch-Site), and one that changes anything must carry the page's
// own Origin.
type Web interface {
	http.Handler
	// Prefix is the path the front end is served under ("/web/").
	Prefix() string
	// Authenticated reports whether r carries a session cookie the
	// front end issued.
	Authenticated(r *http.Request) bool
}

// Server serves the API over a client.
type Server struct {
	c       client.Client
	opts    Options
	token   [sha256.Size]byte
	hosts   map[string]bool
	origins map[string]bool
	log     *slog.Logger
	mux     *http.ServeMux
	ops     []*operation
	// eventBase and eventSeq make the ids of the events streamed.
	eventBase int64
	eventSeq  atomic.Uint64
	// delivery follows the event streams for synchronous prompts.
	delivery *delivery
}

// New returns a server over c. It fails when the options leave it open.
func New(c client.Client, opts Options) (*Server, error) {
	if opts.Token == "" {
		return nil, errors.New("server: a token is required")
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	s := &Server{c: c, opts: opts, token: sha256.Sum256([]byte(opts.Token)), log: opts.Log, mux: http.NewServeMux(), eventBase: time.Now().UnixMilli(),
		delivery: newDelivery()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if len(opts.Hosts) > 0 {
		s.hosts = map[string]bool{}
		for _, h := range opts.Hosts {
			s.hosts[strings.ToLower(h)] = true
		}
	}
	s.origins = map[string]bool{}
	for _, o := range opts.Origins {
		s.origins[strings.TrimRight(o, "/")] = true
	}
	s.ops = s.operations()
	for _, op := range s.ops {
		s.mux.Handle(op.Method+" "+op.Path, op.handler)
	}
	s.mux.HandleFunc("/", s.notFound)
	return s, nil
}

// ServeHTTP checks the request's peer (under Serve, a connection from
// another user of the machine is refused), Host, Origin and token, then
// routes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if reason := foreignPeer(r.Context()); reason != "" {
		s.refuse(w, r, http.StatusForbidden, "ForbiddenError", reason+"; the server answers its own user only")
		return
	}
	if s.hosts != nil && !s.hosts[strings.ToLower(r.Host)] {
		s.refuse(w, r, http.StatusForbidden, "ForbiddenError", fmt.Sprintf("host %q is not the address this server listens on", r.Host))
		return
	}
	origin := r.Header.Get("Origin")
	own := s.opts.Web != nil && origin != "" && sameOrigin(r, origin)
	if origin != "" && !own {
		if !s.origins[origin] {
			s.refuse(w, r, http.StatusForbidden, "ForbiddenError", fmt.Sprintf("origin %q is not allowed; list it in the config's server.cors to allow it", origin))
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, PUT, DELETE")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Prefer")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	if s.opts.Web != nil {
		setWebHeaders(w.Header())
		prefix := s.opts.Web.Prefix()
		api := prefix + "api/"
		switch p := r.URL.Path; {
		case strings.HasPrefix(p, api):
			// The API for the page, under the cookie's path.
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/" + strings.TrimPrefix(p, api)
			r2.URL.RawPath = ""
			r = r2
		case strings.HasPrefix(p, prefix) || p == strings.TrimSuffix(prefix, "/"):
			s.opts.Web.ServeHTTP(w, r)
			return
		}
	}
	if name := credentialInQuery(r); name != "" {
		// Neither the value nor the query is logged or echoed.
		s.refuse(w, r, http.StatusBadRequest, "BadRequestError", fmt.Sprintf(
			"the query parameter %q looks like a credential, and credentials in the URL are refused: send the token in the Authorization header (Bearer, or Basic with the token as password)", name))
		return
	}
	if msg := s.checkToken(r); msg != "" && !s.cookieAuthenticated(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="codeloop"`)
		s.refuse(w, r, http.StatusUnauthorized, "UnauthorizedError", msg)
		return
	}
	if r.ContentLength > s.opts.MaxBody {
		s.refuse(w, r, http.StatusRequestEntityTooLarge, "PayloadTooLargeError", fmt.Sprintf("the body is %d bytes; the limit is %d", r.ContentLength, s.opts.MaxBody))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBody)
	s.mux.ServeHTTP(w, r)
}

// credentialParam reports whether a query parameter's name is one that
// carries a credential (token, api_key, apiKey, access_token, password,
// secret, ...), compared without regard to case, "-" or "_".
func credentialParam(name string) bool {
	n := strings.NewReplacer("-", "", "_", "", ".", "").Replace(strings.ToLower(name))
	switch n {
	case "key", "auth", "pass", "pwd", "jwt", "bearer", "authorization", "credential", "credentials", "sig", "signature":
		return true
	}
	for _, suffix := range []string{"token", "password", "passwd", "secret", "apikey", "accesskey", "secretkey", "privatekey", "sessionkey"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// credentialInQuery returns the name of r's first query parameter that
// would carry a credential in the URL, where logs, proxies and browser
// histories keep it, or "". No route takes one.
func credentialInQuery(r *http.Request) string {
	q := r.URL.Query()
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if credentialParam(k) {
			return k
		}
	}
	return ""
}

// checkToken returns why r is not authorised, or "" when it is.
func (s *Server) checkToken(r *http.Request) string {
	var got string
	auth := r.Header.Get("Authorization")
	if scheme, rest, ok := strings.Cut(auth, " "); ok && strings.EqualFold(scheme, "Bearer") {
		got = strings.TrimSpace(rest)
	} else if _, pass, ok := r.BasicAuth(); ok {
		got = pass
	} else {
		return "the server's token is required: send Authorization: Bearer <token>"
	}
	sum := sha256.Sum256([]byte(got))
	if subtle.ConstantTimeCompare(sum[:], s.token[:]) != 1 {
		return "the token is not this server's; codeloop serve writes the current one to its state file"
	}
	return ""
}

// cookieAuthenticated reports whether r, without a token, carries the
// web front end's session cookie and comes from the page itself: no other
// origin, and the page's own Origin on a request that changes anything.
// SameSite does not cover this: another port of the same host is the same
// site.
func (s *Server) cookieAuthenticated(r *http.Request) bool {
	if s.opts.Web == nil || r.Header.Get("Authorization") != "" || !s.opts.Web.Authenticated(r) {
		return false
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	origin := r.Header.Get("Origin")
	if origin != "" && !sameOrigin(r, origin) {
		return false
	}
	safe := r.Method == http.MethodGet || r.Method == http.MethodHead
	return safe || origin != ""
}

// sameOrigin reports whether origin ("http://host:port") is the one r was
// sent to, as its Host header names it.
func sameOrigin(r *http.Request, origin string) bool {
	scheme, host, ok := strings.Cut(origin, "://")
	return ok && (scheme == "http" || scheme == "https") && !strings.ContainsAny(host, "/?#") && strings.EqualFold(host, r.Host)
}

// setWebHeaders sets the headers that keep a browser from framing the
// API's answers or reading them as anything but what they are.
func setWebHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "no-referrer")
}

func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, name, msg string) {
	s.log.Warn("server: request refused", "method", r.Method, "path", r.URL.Path, "status", status, "reason", msg, "remote", r.RemoteAddr)
	writeJSON(w, status, errorBody{Name: name, Data: errorData{Message: msg}})
}

// Serve answers requests on ln until ctx ends, then stops: event streams
// and waiting requests end at once, other requests get up to grace to
// finish. It returns nil after a stop that ctx asked for.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
		ConnContext:       connContext,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	var wg sync.WaitGroup
	wg.Add(1)
	var shutErr error
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
		case <-base.Done():
			return
		}
		cancel()
		sctx, stop := context.WithTimeout(context.Background(), grace)
		defer stop()
		shutErr = srv.Shutdown(sctx)
		if shutErr != nil {
			_ = srv.Close()
		}
	}()
	err := srv.Serve(ln)
	if !errors.Is(err, http.ErrServerClosed) {
		cancel()
		wg.Wait()
		return err
	}
	wg.Wait()
	return shutErr
}
