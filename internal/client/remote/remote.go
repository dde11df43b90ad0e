// Package remote is the implementation of client.Client over codeloop's
// HTTP API (internal/server): every call is a request to a running
// codeloop serve, and events arrive over its server-sent event stream. A
// front end behaves the same over it as in process.
//
// Like client, it imports nothing of the engine.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/client/wire"
)

// Client reaches a codeloop server. Close ends its event streams and its
// idle connections; the server goes on.
type Client struct {
	base  string // scheme://host, no trailing slash
	token string
	tr    *http.Transport
	hc    *http.Client
	// streams carries the event streams on connections of their own,
	// never pooled: a stream's connection ends with it.
	streams *http.Client

	ctx    context.Context // event streams; cancelled by Close
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	subs   map[*events]struct{}
}

var _ client.Client = (*Client)(nil)

// Options configure a Client.
type Options struct {
	// Token is the server's token.
	Token string
	// Timeout bounds a call that is not a stream or a shell command
	// (a minute when zero).
	Timeout time.Duration
}

// New returns a client of the server at rawURL: http://host:port, or
// unix:///path/to/socket for a server on a Unix socket.
func New(rawURL string, opts Options) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("server address %q: %w", rawURL, err)
	}
	tr := &http.Transport{
		Proxy:               nil, // the server is local or named exactly; never through a proxy
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   false,
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	var base string
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return nil, fmt.Errorf("server address %q has no host", rawURL)
		}
		base = u.Scheme + "://" + u.Host
		tr.DialContext = dialer.DialContext
	case "unix":
		sock := u.Path
		if sock == "" {
			sock = u.Opaque
		}
		if sock == "" {
			return nil, fmt.Errorf("server address %q names no socket: write unix:///path/to/socket", rawURL)
		}
		base = "http://localhost"
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, "unix", sock)
		}
	default:
		return nil, fmt.Errorf("server address %q: want http://host:port or unix:///path/to/socket", rawURL)
	}
	str := tr.Clone()
	str.DisableKeepAlives = true
	ctx, cancel := context.WithCancel(context.Background())
	return &Client{
		base: base, token: opts.Token, tr: tr, hc: &http.Client{Transport: tr}, streams: &http.Client{Transport: str},
		ctx: ctx, cancel: cancel, subs: map[*events]struct{}{},
	}, nil
}

// Close ends the client's event streams and drops its idle connections.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	subs := c.subs
	c.subs = nil
	c.mu.Unlock()
	c.cancel()
	for e := range subs {
		_ = e.Close()
	}
	c.tr.CloseIdleConnections()
	return nil
}

func (c *Client) alive() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("client: %w", client.ErrClosed)
	}
	return nil
}

// Error is an error the server answered with. It matches the client's
// errors by status: 404 client.ErrNotFound, 409 client.ErrBusy, 501
// client.ErrUnsupported.
type Error struct {
	Status int
	// Name is the server's kind of error (NotFoundError, BadRequestError, ...).
	Name    string
	Message string
	// Field names the member of the request that could not be read.
	Field string
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return fmt.Sprintf("the server answered %d %s", e.Status, http.StatusText(e.Status))
}

// Is matches the client's errors.
func (e *Error) Is(target error) bool {
	switch e.Status {
	case http.StatusNotFound:
		return target == client.ErrNotFound
	case http.StatusConflict:
		return target == client.ErrBusy
	case http.StatusNotImplemented:
		return target == client.ErrUnsupported
	}
	return false
}

// request is one call: its route with the route's parameters, or a
// method and a path.
type request struct {
	route        wire.Route
	params       []string
	method, path string
	query        url.Values
	body         any
	out          any  // decoded from a 200's body when not nil
	long         bool // no timeout: it lasts as long as the work
}

// do makes the call and returns the answer's headers.
func (c *Client) do(ctx context.Context, r request) (http.Header, error) {
	if err := c.alive(); err != nil {
		return nil, err
	}
	if r.route.Pattern != "" {
		r.method, r.path = r.route.Method, r.route.Path(r.params...)
	}
	if !r.long {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Minute)
		defer cancel()
	}
	req, err := c.newRequest(ctx, r.method, r.path, r.query, r.body)
	if err != nil {
		return nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("reaching the codeloop server at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return nil, readError(resp)
	}
	if r.out != nil && resp.StatusCode != http.StatusNoContent {
		if err := json.NewDecoder(resp.Body).Decode(r.out); err != nil {
			return nil, fmt.Errorf("reading the answer to %s %s: %w", r.method, r.path, err)
		}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096)) // lets the connection be reused
	return resp.Header, nil
}

func (c *Client) newRequest(ctx context.Context, method, path string, query url.Values, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encoding %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// readError turns an error answer into an error.
func readError(resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var w wire.Error
	if json.Unmarshal(data, &w) != nil || w.Name == "" {
		msg := strings.TrimSpace(string(data))
		if len(msg) > 200 {
			msg = msg[:200]
		}
		return &Error{Status: resp.StatusCode, Message: fmt.Sprintf("the server answered %s: %s", resp.Status, msg)}
	}
	if resp.StatusCode == http.StatusNotImplemented && w.Data.Op != "" {
		return &client.UnsupportedError{Op: w.Data.Op, Reason: w.Data.Reason}
	}
	if resp.StatusCode == http.StatusUnauthorized {
		w.Data.Message = "the server refused the token: " + w.Data.Message
	}
	return &Error{Status: resp.StatusCode, Name: w.Name, Message: w.Data.Message, Field: w.Data.Field}
}

var errNoID = errors.New("the server did not say which message it stored")
