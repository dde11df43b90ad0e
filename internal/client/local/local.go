// Package local is the in-process implementation of client.Client: it
// serves a front end from an app.App opened in the same process,
// converting the engine's records into the client's types.
//
// It imports the engine's packages; front ends import only client and
// receive a *Client from the command that opened the app.
package local

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
)

// Client serves client.Client from an app. Close ends its subscriptions
// and background work; the app stays open, its owner closes it.
type Client struct {
	app *app.App

	ctx    context.Context // background work; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	closed bool
	subs   map[*events]struct{}
}

var _ client.Client = (*Client)(nil)

// New returns a client over a.
func New(a *app.App) *Client {
	ctx, cancel := context.WithCancel(context.Background())
	return &Client{app: a, ctx: ctx, cancel: cancel, subs: map[*events]struct{}{}}
}

// Close stops the shell commands the client runs, ends its event streams
// and waits for its background work.
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
	c.wg.Wait()
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

func (c *Client) track(e *events) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		_ = e.Close()
		return
	}
	c.subs[e] = struct{}{}
}

// background runs f in a goroutine Close waits for; f's context ends when
// the client closes. It reports false when the client is closed.
func (c *Client) background(f func(ctx context.Context)) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		f(c.ctx)
	}()
	return true
}

// notFound maps the store's missing records to client.ErrNotFound.
func notFound(err error, what string) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %s", client.ErrNotFound, what)
	}
	return err
}

// Path returns the project's directories.
func (c *Client) Path(context.Context) (client.Path, error) {
	d := c.app.Dirs
	return client.Path{Home: d.Home, State: d.State, Config: d.Config, Worktree: c.app.Worktree, Directory: c.app.Dir,
		Trust: projectTrust(c.app.Trust)}, nil
}

// ListSessions lists the project's sessions, the one used last first.
func (c *Client) ListSessions(ctx context.Context, opts client.ListSessionsOptions) ([]client.Session, error) {
	f := store.SessionFilter{ProjectID: c.app.ProjectID, RootsOnly: opts.Roots}
	if opts.Search == "" {
		f.Limit = opts.Limit
	}
	list, err := c.app.Sessions.List(ctx, f)
	if err != nil {
		return nil, err
	}
	search := strings.ToLower(opts.Search)
	out := make([]client.Session, 0, len(list))
	for _, s := range list {
		if search != "" && !strings.Contains(strings.ToLower(s.Title), search) {
			continue
		}
		out = append(out, toSession(s))
		if opts.Limit > 0 && len(out) == opts.Limit {
			break
		}
	}
	if opts.Details && len(out) > 0 {
		ids := make([]string, len(out))
		for i, s := range out {
			ids[i] = s.ID
		}
		over, err := c.app.Store.SessionOverviews(ctx, ids)
		if err != nil {
			return nil, err
		}
		for i := range out {
			o := over[out[i].ID]
			out[i].Messages, out[i].Preview = o.Messages, o.Preview
		}
	}
	return out, nil
}

// GetSession returns a session.
func (c *Client) GetSession(ctx context.Context, sessionID string) (client.Session, error) {
	s, err := c.app.Sessions.Get(ctx, sessionID)
	if err != nil {
		return client.Session{}, notFound(err, "session "+sessionID)
	}
	return toSession(s), nil
}

// CreateSession makes a session in the project's directory.
func (c *Client) CreateSession(ctx context.Context, in client.CreateSessionInput) (client.Session, error) {
	if in.ParentID != "" {
		if _, err := c.GetSession(ctx, in.ParentID); err != nil {
			return client.Session{}, err
		}
	}
	rules, err := floorRules(in.Permission)
	if err != nil {
		return client.Session{}, err
	}
	mode, err := sessionSandbox("", in.Sandbox)
	if err != nil {
		return client.Session{}, err
	}
	s, err := c.app.Sessions.Create(ctx, session.CreateInput{
		ProjectID: c.app.ProjectID, Directory: c.app.Dir, ParentID: in.ParentID, Title: in.Title, Permission: rules,
		Sandbox: mode,
	})
	if err != nil {
		return client.Session{}, err
	}
	return toSession(s), nil
}

// DeleteSession stops the session's loop and shell command, then deletes
// it with its children.
func (c *Client) DeleteSession(ctx context.Context, sessionID string) error {
	if _, err := c.GetSession(ctx, sessionID); err != nil {
		return err
	}
	if c.app.Engine.Busy(sessionID) {
		c.app.Engine.Cancel(sessionID)
		if _, err := c.app.Engine.Wait(ctx, sessionID); err != nil && ctx.Err() != nil {
			return err
		}
	}
	return notFound(c.app.Sessions.Delete(ctx, sessionID), "session "+sessionID)
}

// UpdateSession renames a session.
func (c *Client) UpdateSession(ctx context.Context, sessionID string, in client.UpdateSessionInput) (client.Session, error) {
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		return client.Session{}, errors.New("a session's title cannot be empty")
	}
	rules, err := floorRules(in.Permission)
	if err != nil {
		return client.Session{}, err
	}
	if _, err := sessionSandbox("", in.Sandbox); err != nil {
		return client.Session{}, err
	}
	s, err := c.app.Sessions.Update(ctx, sessionID, func(s *session.Info) {
		s.Sandbox, _ = sessionSandbox(s.Sandbox, in.Sandbox)
		if in.Title != nil {
			s.Title = strings.TrimSpace(*in.Title)
		}
		for _, r := range rules {
			if !slices.Contains(s.Permission, r) {
				s.Permission = append(s.Permission, r)
			}
		}
	})
	if err != nil {
		return client.Session{}, notFound(err, "session "+sessionID)
	}
	return toSession(s), nil
}

// ForkSession copies a session into a new one.
func (c *Client) ForkSession(ctx context.Context, sessionID string, in client.ForkSessionInput) (client.Session, error) {
	s, err := c.app.Sessions.Fork(ctx, sessionID, in.MessageID)
	if err != nil {
		return client.Session{}, notFound(err, "session "+sessionID)
	}
	return toSession(s), nil
}

// Children lists the sessions a session's sub-agents started.
func (c *Client) Children(ctx context.Context, sessionID string) ([]client.Session, error) {
	if _, err := c.GetSession(ctx, sessionID); err != nil {
		return nil, err
	}
	list, err := c.app.Sessions.List(ctx, store.SessionFilter{ParentID: sessionID})
	if err != nil {
		return nil, err
	}
	out := make([]client.Session, len(list))
	for i, s := range list {
		out[i] = toSession(s)
	}
	return out, nil
}

// Messages returns a session's messages, oldest first.
func (c *Client) Messages(ctx context.Context, sessionID string, opts client.MessagesOptions) ([]client.Message, error) {
	if _, err := c.GetSession(ctx, sessionID); err != nil {
		return nil, err
	}
	if opts.Limit > 0 {
		// A page: read only it.
		msgs, err := c.app.Sessions.MessagesPage(ctx, sessionID, opts.Before, opts.Limit)
		if err != nil {
			return nil, err
		}
		return toMessages(msgs), nil
	}
	msgs, err := c.app.Sessions.Messages(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if opts.Before != "" {
		n := 0
		for n < len(msgs) && msgs[n].Info.ID < opts.Before {
			n++
		}
		msgs = msgs[:n]
	}
	if opts.Limit > 0 && len(msgs) > opts.Limit {
		msgs = msgs[len(msgs)-opts.Limit:]
	}
	return toMessages(msgs), nil
}

// Message returns one message of a session.
func (c *Client) Message(ctx context.Context, sessionID, messageID string) (client.Message, error) {
	m, err := c.app.Sessions.Message(ctx, messageID)
	if err == nil && m.Info.SessionID != sessionID {
		err = store.ErrNotFound
	}
	if err != nil {
		return client.Message{}, notFound(err, "message "+messageID+" of session "+sessionID)
	}
	return toMessage(m), nil
}

// projectTrust converts the app's trust for clients; what is held back is
// listed only while the project is not trusted.
func projectTrust(t *app.Trust) *client.ProjectTrust {
	if t == nil {
		return nil
	}
	out := &client.ProjectTrust{State: t.Verdict.State.String(), Changes: t.Verdict.Changes}
	if t.Held() {
		for _, it := range t.Items {
			out.HeldBack = append(out.HeldBack, client.TrustItem{Kind: string(it.Kind), Name: it.Name, Detail: it.Detail,
				File: t.Relative(it.File), Line: it.Line})
		}
	}
	return out
}
