package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/sandbox"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/snapshot"
	"github.com/codeloop/codeloop/internal/store"
)

// The use cases over a project's sessions that front ends share: each
// checks that the session it names exists, and fails with an error that
// wraps store.ErrNotFound when it does not.

// NotFoundError says a record a use case was asked about does not exist.
// It matches store.ErrNotFound.
type NotFoundError struct{ What string }

func (e *NotFoundError) Error() string { return e.What + " not found" }

// Unwrap returns store.ErrNotFound.
func (e *NotFoundError) Unwrap() error { return store.ErrNotFound }

// session returns the session with id; the error is a *NoSessionError when
// there is none.
func (a *App) session(ctx context.Context, id string) (session.Info, error) {
	s, err := a.Sessions.Get(ctx, id)
	return s, noSession(err, id)
}

// SessionQuery selects the sessions ListSessions returns.
type SessionQuery struct {
	Roots   bool   // only the sessions no sub-agent started
	Search  string // a part of the title, in any case
	Limit   int    // at most this many; 0 for all
	Details bool   // with each one's overview
}

// SessionListing is a listed session with its overview, when asked for.
type SessionListing struct {
	Info     session.Info
	Overview store.SessionOverview
}

// ListSessions lists the project's sessions q selects, the one used last
// first.
func (a *App) ListSessions(ctx context.Context, q SessionQuery) ([]SessionListing, error) {
	f := store.SessionFilter{ProjectID: a.ProjectID, RootsOnly: q.Roots}
	if q.Search == "" {
		f.Limit = q.Limit
	}
	list, err := a.Sessions.List(ctx, f)
	if err != nil {
		return nil, err
	}
	search := strings.ToLower(q.Search)
	out := make([]SessionListing, 0, len(list))
	for _, s := range list {
		if search != "" && !strings.Contains(strings.ToLower(s.Title), search) {
			continue
		}
		out = append(out, SessionListing{Info: s})
		if q.Limit > 0 && len(out) == q.Limit {
			break
		}
	}
	if !q.Details || len(out) == 0 {
		return out, nil
	}
	ids := make([]string, len(out))
	for i, s := range out {
		ids[i] = s.Info.ID
	}
	over, err := a.Store.SessionOverviews(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Overview = over[out[i].Info.ID]
	}
	return out, nil
}

// Session returns a session of the project.
func (a *App) Session(ctx context.Context, sessionID string) (session.Info, error) {
	return a.session(ctx, sessionID)
}

// NewSession is what a front end asks of a new session. Rules tighten
// the user's rules for it only (see FloorRules); Sandbox is a sandbox mode.
type NewSession struct {
	ParentID string
	Title    string
	Rules    permission.Ruleset
	Sandbox  string
}

// CreateSession makes a session in the project's directory, under
// in.ParentID when set.
func (a *App) CreateSession(ctx context.Context, in NewSession) (session.Info, error) {
	if in.ParentID != "" {
		if _, err := a.session(ctx, in.ParentID); err != nil {
			return session.Info{}, err
		}
	}
	rules, err := FloorRules(in.Rules)
	if err != nil {
		return session.Info{}, err
	}
	mode, err := stricterSandbox("", in.Sandbox)
	if err != nil {
		return session.Info{}, err
	}
	return a.Sessions.Create(ctx, session.CreateInput{
		ProjectID: a.ProjectID, Directory: a.Dir, ParentID: in.ParentID, Title: in.Title, Permission: rules, Sandbox: mode,
	})
}

// SessionChange is what a front end changes of a session: its title when
// Title is set, rules added (see FloorRules), and a sandbox mode, which
// applies only where it is stricter than the session's.
type SessionChange struct {
	Title   *string
	Rules   permission.Ruleset
	Sandbox string
}

// UpdateSession changes a session.
func (a *App) UpdateSession(ctx context.Context, sessionID string, in SessionChange) (session.Info, error) {
	if in.Title != nil && strings.TrimSpace(*in.Title) == "" {
		return session.Info{}, errors.New("a session's title cannot be empty")
	}
	rules, err := FloorRules(in.Rules)
	if err != nil {
		return session.Info{}, err
	}
	if _, err := stricterSandbox("", in.Sandbox); err != nil {
		return session.Info{}, err
	}
	s, err := a.Sessions.Update(ctx, sessionID, func(s *session.Info) {
		s.Sandbox, _ = stricterSandbox(s.Sandbox, in.Sandbox)
		if in.Title != nil {
			s.Title = strings.TrimSpace(*in.Title)
		}
		for _, r := range rules {
			if !slices.Contains(s.Permission, r) {
				s.Permission = append(s.Permission, r)
			}
		}
	})
	return s, noSession(err, sessionID)
}

// sessionLayer is the floor layer of the rules front ends send with a
// session, evaluated apart from an untrusted project's.
const sessionLayer = "session"

// FloorRules checks the rules a front end sends with a session and makes
// them floor rules, which can only tighten the user's: their deny and ask
// rules apply, their allow rules never loosen anything (see
// permission.Evaluate). None gives nil.
func FloorRules(in permission.Ruleset) (permission.Ruleset, error) {
	out := make(permission.Ruleset, 0, len(in))
	for i, r := range in {
		switch r.Action {
		case permission.Allow, permission.Ask, permission.Deny:
		default:
			return nil, fmt.Errorf("permission rule %d: action %q: want allow, ask or deny", i, r.Action)
		}
		if r.Permission == "" || r.Pattern == "" {
			return nil, fmt.Errorf("permission rule %d: permission and pattern are required", i)
		}
		out = append(out, permission.Rule{Permission: r.Permission, Pattern: r.Pattern, Action: r.Action, Floor: true, Layer: sessionLayer})
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// stricterSandbox returns the sandbox mode want names when it is stricter
// than have, else have; an empty want keeps have.
func stricterSandbox(have, want string) (string, error) {
	if want == "" {
		return have, nil
	}
	m, err := sandbox.ParseMode(want)
	if err != nil {
		return have, fmt.Errorf("sandbox: %w", err)
	}
	if m.Stricter(sandbox.Mode(have)) {
		return string(m), nil
	}
	return have, nil
}

// DeleteSession stops the session's loop and shell command, waits for
// them, then deletes the session with its children.
func (a *App) DeleteSession(ctx context.Context, sessionID string) error {
	if _, err := a.session(ctx, sessionID); err != nil {
		return err
	}
	if a.Engine.Busy(sessionID) {
		a.Engine.Cancel(sessionID)
		if _, err := a.Engine.Wait(ctx, sessionID); err != nil && ctx.Err() != nil {
			return err
		}
	}
	return noSession(a.Sessions.Delete(ctx, sessionID), sessionID)
}

// ForkSession copies a session, up to messageID when set, into a new one.
func (a *App) ForkSession(ctx context.Context, sessionID, messageID string) (session.Info, error) {
	s, err := a.Sessions.Fork(ctx, sessionID, messageID)
	return s, noSession(err, sessionID)
}

// Children lists the sessions a session's sub-agents started.
func (a *App) Children(ctx context.Context, sessionID string) ([]session.Info, error) {
	if _, err := a.session(ctx, sessionID); err != nil {
		return nil, err
	}
	return a.Sessions.List(ctx, store.SessionFilter{ParentID: sessionID})
}

// Messages returns a session's messages, oldest first: those before the
// message before when it is set, the last limit of them when limit is
// above 0.
func (a *App) Messages(ctx context.Context, sessionID, before string, limit int) ([]message.Message, error) {
	if _, err := a.session(ctx, sessionID); err != nil {
		return nil, err
	}
	if limit > 0 {
		// A page: read only it.
		return a.Sessions.MessagesPage(ctx, sessionID, before, limit)
	}
	msgs, err := a.Sessions.Messages(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if before != "" {
		n := 0
		for n < len(msgs) && msgs[n].Info.ID < before {
			n++
		}
		msgs = msgs[:n]
	}
	return msgs, nil
}

// Message returns one message of a session.
func (a *App) Message(ctx context.Context, sessionID, messageID string) (message.Message, error) {
	m, err := a.Sessions.Message(ctx, messageID)
	if err == nil && m.Info.SessionID != sessionID {
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) {
		return message.Message{}, &NotFoundError{What: "message " + messageID + " of session " + sessionID}
	}
	return m, err
}

// Abort interrupts the session's loop and its shell command.
func (a *App) Abort(ctx context.Context, sessionID string) error {
	if _, err := a.session(ctx, sessionID); err != nil {
		return err
	}
	a.Engine.Cancel(sessionID)
	return nil
}

// ActiveSessions returns the status of the project's sessions that are
// not idle, by id.
func (a *App) ActiveSessions(ctx context.Context) (map[string]session.Status, error) {
	list, err := a.Sessions.List(ctx, store.SessionFilter{ProjectID: a.ProjectID})
	if err != nil {
		return nil, err
	}
	out := map[string]session.Status{}
	for _, s := range list {
		if st := a.Engine.Status(s.ID); st.Type != session.StatusIdle {
			out[s.ID] = st
		}
	}
	return out, nil
}

// Todos returns a session's todo list.
func (a *App) Todos(ctx context.Context, sessionID string) ([]store.Todo, error) {
	if _, err := a.session(ctx, sessionID); err != nil {
		return nil, err
	}
	return a.Store.ListTodos(ctx, sessionID)
}

// SessionDiff returns the file changes a session (or one of its messages)
// made, each file relative to the worktree when it lies inside it; none
// where file snapshots are off.
func (a *App) SessionDiff(ctx context.Context, sessionID, messageID string) ([]snapshot.FileDiff, error) {
	if _, err := a.session(ctx, sessionID); err != nil {
		return nil, err
	}
	ds, err := a.Engine.Diff(ctx, sessionID, messageID)
	if errors.Is(err, session.ErrSnapshotsOff) {
		return nil, nil
	}
	if err != nil {
		return nil, noSession(err, sessionID)
	}
	for i, d := range ds {
		if rel, err := filepath.Rel(a.Worktree, d.File); err == nil && !strings.HasPrefix(rel, "..") {
			ds[i].File = filepath.ToSlash(rel)
		}
	}
	return ds, nil
}
