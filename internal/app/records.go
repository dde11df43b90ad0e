package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/codeloop/codeloop/internal/id"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
)

// The stored records the command line shows, under the names of this
// layer: a front end names them without reaching into the store.
type (
	// SessionInfo is a stored session.
	SessionInfo = session.Info
	// SessionExport is a session with its messages, as export prints it.
	SessionExport = session.Export
	// Approval is a saved "always" answer to a permission request.
	Approval = store.Approval
	// Stats sums the usage of stored answers.
	Stats = store.Stats
	// Usage is one row of Stats.
	Usage = store.Usage
	// StatsFilter selects the answers Stats sums.
	StatsFilter = store.StatsFilter
	// StoreSize is what the database holds and how much space it takes.
	StoreSize = store.Size
)

// Records are the use cases over stored sessions, approvals and usage that
// need no engine: listing, deleting, exporting, importing and pruning
// sessions, saved approvals, usage statistics.
type Records struct {
	st       *store.Store
	sessions *session.Sessions
	project  string
}

// Records returns the use cases over the project's stored records.
func (d *Data) Records() Records {
	return Records{st: d.Store, sessions: d.Sessions, project: d.ProjectID}
}

// Records returns the use cases over the project's stored records.
func (a *App) Records() Records {
	return Records{st: a.Store, sessions: a.Sessions, project: a.ProjectID}
}

// NoSessionError says a session named by its id does not exist.
type NoSessionError struct{ ID string }

func (e *NoSessionError) Error() string {
	return fmt.Sprintf("session %s does not exist: `codeloop session list` shows this project's sessions", e.ID)
}

// Unwrap returns store.ErrNotFound.
func (e *NoSessionError) Unwrap() error { return store.ErrNotFound }

// noSession maps the store's missing record to a NoSessionError.
func noSession(err error, sessionID string) error {
	if errors.Is(err, store.ErrNotFound) {
		return &NoSessionError{ID: sessionID}
	}
	return err
}

// Session returns a stored session.
func (r Records) Session(ctx context.Context, sessionID string) (SessionInfo, error) {
	s, err := r.sessions.Get(ctx, sessionID)
	return s, noSession(err, sessionID)
}

// RootSessions lists the project's sessions that no sub-agent started,
// the one used last first; limit 0 lists all.
func (r Records) RootSessions(ctx context.Context, limit int) ([]SessionInfo, error) {
	return r.sessions.List(ctx, store.SessionFilter{ProjectID: r.project, RootsOnly: true, Limit: limit})
}

// Latest returns the id of the project's session used last; ok is false
// when it has none.
func (r Records) Latest(ctx context.Context) (sessionID string, ok bool, err error) {
	list, err := r.RootSessions(ctx, 1)
	if err != nil || len(list) == 0 {
		return "", false, err
	}
	return list[0].ID, true, nil
}

// DeleteSession deletes a session with its messages and child sessions.
func (r Records) DeleteSession(ctx context.Context, sessionID string) error {
	return noSession(r.sessions.Delete(ctx, sessionID), sessionID)
}

// Export returns a session with its messages.
func (r Records) Export(ctx context.Context, sessionID string) (SessionExport, error) {
	exp, err := r.sessions.Export(ctx, sessionID)
	return exp, noSession(err, sessionID)
}

// Import stores an exported session in the project. A session with the
// same id is kept and the import gets ids of its own, unless replace.
func (r Records) Import(ctx context.Context, exp SessionExport, replace bool) (SessionInfo, error) {
	return r.sessions.Import(ctx, exp, session.ImportOptions{ProjectID: r.project, Replace: replace})
}

// ParseExport decodes a session export, the JSON that codeloop export and
// opencode export print, and says what was expected when data is not one.
// name names the input in the error.
func ParseExport(name string, data []byte) (SessionExport, error) {
	var exp session.Export
	notExport := func(why string) (session.Export, error) {
		return exp, fmt.Errorf("%s is not a codeloop or OpenCode session export (%s); expected the JSON that "+
			"\"codeloop export\" or \"opencode export\" prints: "+
			`{"info": {"id": "ses_…", …}, "messages": [{"info": {…}, "parts": […]}, …]}`, name, why)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		if !json.Valid(data) {
			return notExport("it is not JSON")
		}
		return notExport("it is not a JSON object")
	}
	for _, key := range []string{"info", "messages"} {
		if _, ok := top[key]; !ok {
			return notExport(fmt.Sprintf("it has no %q field", key))
		}
	}
	if err := json.Unmarshal(data, &exp); err != nil {
		return notExport(err.Error())
	}
	if err := id.Check(id.Session, exp.Info.ID); err != nil {
		return notExport(fmt.Sprintf("info.id %q is not a session id", exp.Info.ID))
	}
	return exp, nil
}

// ParseAge reads an age given as hours (12h), days (30d) or weeks (4w).
func ParseAge(s string) (time.Duration, error) { return session.ParseAge(s) }

// OldSessions lists the sessions last changed before before: the
// project's, or every project's when all is set.
func (r Records) OldSessions(ctx context.Context, before time.Time, all bool) ([]string, error) {
	return r.sessions.OlderThan(ctx, r.projectOrAll(all), before)
}

// DeleteOldSessions deletes the sessions OldSessions lists and returns how
// many it deleted.
func (r Records) DeleteOldSessions(ctx context.Context, before time.Time, all bool) (int, error) {
	return r.sessions.DeleteOlderThan(ctx, r.projectOrAll(all), before)
}

func (r Records) projectOrAll(all bool) string {
	if all {
		return ""
	}
	return r.project
}

// Approvals lists the saved approvals of a scope ("" for every scope) and
// scope id.
func (r Records) Approvals(ctx context.Context, scope, scopeID string) ([]Approval, error) {
	return r.st.ListApprovals(ctx, scope, scopeID)
}

// DeleteApprovals removes the saved approvals Approvals lists and returns
// how many it removed.
func (r Records) DeleteApprovals(ctx context.Context, scope, scopeID string) (int, error) {
	return r.st.DeleteApprovals(ctx, scope, scopeID)
}

// Stats sums the usage of the answers f selects; an empty ProjectID in f
// means every project.
func (r Records) Stats(ctx context.Context, f StatsFilter) (Stats, error) {
	return r.st.Stats(ctx, f)
}

// ProjectID is the project the records belong to.
func (r Records) ProjectID() string { return r.project }

// Size says what the database holds and how much space it takes.
func (r Records) Size(ctx context.Context) (StoreSize, error) { return r.st.Size(ctx) }
