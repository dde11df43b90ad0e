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
	"os"
	"sync"

	"github.com/codeloop/codeloop/internal/app"
	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// Client serves client.Client from an app. Close ends its subscriptions
// and background work; the app stays open, its owner closes it.
type Client struct {
	app *app.App

	ctx    context.Context // background work; cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	subs map[*events]struct{} // nil once closed
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
	subs := c.subs
	c.subs = nil
	c.cancel()
	c.mu.Unlock()
	for e := range subs {
		_ = e.Close()
	}
	c.wg.Wait()
	return nil
}

func (c *Client) alive() error {
	if c.ctx.Err() != nil {
		return fmt.Errorf("client: %w", client.ErrClosed)
	}
	return nil
}

func (c *Client) track(e *events) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs == nil {
		_ = e.Close()
		return
	}
	c.subs[e] = struct{}{}
}

// background runs f in a goroutine Close waits for; f's context ends when
// the client closes. It reports false when the client is closed.
func (c *Client) background(f func(ctx context.Context)) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs == nil {
		return false
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		f(c.ctx)
	}()
	return true
}

// clientError maps the engine's errors to the client's: missing records
// and requests no longer pending to ErrNotFound, refused paths to
// ErrForbidden, a busy session to ErrBusy, snapshots turned off to an
// UnsupportedError.
func clientError(err error) error {
	var ns *app.NoSessionError
	var nf *app.NotFoundError
	var busy *session.BusyError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ns):
		return fmt.Errorf("%w: session %s", client.ErrNotFound, ns.ID)
	case errors.As(err, &nf):
		return fmt.Errorf("%w: %s", client.ErrNotFound, nf.What)
	case errors.Is(err, store.ErrNotFound), errors.Is(err, permission.ErrUnknownRequest), errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%w: %s", client.ErrNotFound, err.Error())
	case errors.Is(err, tool.ErrRefused):
		return fmt.Errorf("%w: %s", client.ErrForbidden, err.Error())
	case errors.Is(err, session.ErrBusy), errors.As(err, &busy):
		return fmt.Errorf("%w: %s", client.ErrBusy, err.Error())
	case errors.Is(err, session.ErrSnapshotsOff):
		return &client.UnsupportedError{Op: "revert", Reason: err.Error()}
	}
	return err
}

// result converts the result of an app method with to and maps its
// error (clientError), as in result(toSession)(c.app.Session(ctx, id)).
func result[T, U any](to func(T) U) func(T, error) (U, error) {
	return func(v T, err error) (U, error) {
		if err != nil {
			var zero U
			return zero, clientError(err)
		}
		return to(v), nil
	}
}

// each converts every element of a list with to; the list it returns is
// never nil.
func each[T, U any](to func(T) U) func([]T) []U {
	return func(in []T) []U {
		out := make([]U, len(in))
		for i, v := range in {
			out[i] = to(v)
		}
		return out
	}
}

// Path returns the project's directories.
func (c *Client) Path(context.Context) (client.Path, error) {
	d := c.app.Dirs
	return client.Path{Home: d.Home, State: d.State, Config: d.Config, Worktree: c.app.Worktree, Directory: c.app.Dir,
		Trust: projectTrust(c.app.Trust)}, nil
}

// ListSessions lists the project's sessions, the one used last first.
func (c *Client) ListSessions(ctx context.Context, opts client.ListSessionsOptions) ([]client.Session, error) {
	q := app.SessionQuery{Roots: opts.Roots, Search: opts.Search, Limit: opts.Limit, Details: opts.Details}
	return result(each(func(s app.SessionListing) client.Session {
		out := toSession(s.Info)
		out.Messages, out.Preview = s.Overview.Messages, s.Overview.Preview
		return out
	}))(c.app.ListSessions(ctx, q))
}

// GetSession returns a session.
func (c *Client) GetSession(ctx context.Context, sessionID string) (client.Session, error) {
	return result(toSession)(c.app.Session(ctx, sessionID))
}

// CreateSession makes a session in the project's directory.
func (c *Client) CreateSession(ctx context.Context, in client.CreateSessionInput) (client.Session, error) {
	return result(toSession)(c.app.CreateSession(ctx, app.NewSession{ParentID: in.ParentID, Title: in.Title,
		Rules: fromRules(in.Permission), Sandbox: in.Sandbox}))
}

// DeleteSession stops the session's loop and shell command, then deletes
// it with its children.
func (c *Client) DeleteSession(ctx context.Context, sessionID string) error {
	return clientError(c.app.DeleteSession(ctx, sessionID))
}

// UpdateSession renames a session, adds rules to it or tightens its
// sandbox.
func (c *Client) UpdateSession(ctx context.Context, sessionID string, in client.UpdateSessionInput) (client.Session, error) {
	return result(toSession)(c.app.UpdateSession(ctx, sessionID, app.SessionChange{Title: in.Title,
		Rules: fromRules(in.Permission), Sandbox: in.Sandbox}))
}

// ForkSession copies a session into a new one.
func (c *Client) ForkSession(ctx context.Context, sessionID string, in client.ForkSessionInput) (client.Session, error) {
	return result(toSession)(c.app.ForkSession(ctx, sessionID, in.MessageID))
}

// Children lists the sessions a session's sub-agents started.
func (c *Client) Children(ctx context.Context, sessionID string) ([]client.Session, error) {
	return result(each(toSession))(c.app.Children(ctx, sessionID))
}

// Messages returns a session's messages, oldest first.
func (c *Client) Messages(ctx context.Context, sessionID string, opts client.MessagesOptions) ([]client.Message, error) {
	return result(toMessages)(c.app.Messages(ctx, sessionID, opts.Before, opts.Limit))
}

// Message returns one message of a session.
func (c *Client) Message(ctx context.Context, sessionID, messageID string) (client.Message, error) {
	return result(toMessage)(c.app.Message(ctx, sessionID, messageID))
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
