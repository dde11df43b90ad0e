package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Project is a directory tree codeloop has worked in.
type Project struct {
	ID          string
	Worktree    string
	VCS         string
	TimeCreated int64
	TimeUpdated int64
}

// Session is a stored session: the indexed columns and the full info as
// JSON.
type Session struct {
	ID          string
	ProjectID   string
	ParentID    string
	Directory   string
	Title       string
	TimeCreated int64
	TimeUpdated int64
	Data        json.RawMessage
}

// SessionFilter selects sessions for ListSessions. Zero fields select all.
type SessionFilter struct {
	ProjectID string
	ParentID  string
	RootsOnly bool // only sessions without a parent
	Limit     int
}

// Message is a stored message.
type Message struct {
	ID          string
	SessionID   string
	TimeCreated int64
	Data        json.RawMessage
}

// Part is a stored message part.
type Part struct {
	ID        string
	MessageID string
	SessionID string
	Data      json.RawMessage
}

// Todo is one entry of a session's todo list.
type Todo struct {
	ID       string `json:"id"`
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority"`
}

// Approval is a saved "always" permission reply. Scope is "session",
// "project" or "global"; ScopeID is the session or project id, empty for
// global.
type Approval struct {
	ID          string
	Scope       string
	ScopeID     string
	Permission  string
	Pattern     string
	Origin      string
	TimeCreated int64
}

func jsonText(b json.RawMessage) string {
	if len(b) == 0 {
		return "{}"
	}
	return string(b)
}

// PutProject inserts or updates a project.
func (q q) PutProject(ctx context.Context, p Project) error {
	_, err := q.ex.ExecContext(ctx, `INSERT INTO project (id, worktree, vcs, time_created, time_updated)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET worktree = excluded.worktree, vcs = excluded.vcs, time_updated = excluded.time_updated`,
		p.ID, p.Worktree, p.VCS, p.TimeCreated, p.TimeUpdated)
	if err != nil {
		return fmt.Errorf("saving project %s: %w", p.ID, err)
	}
	return nil
}

// GetProject returns the project with id, or ErrNotFound.
func (q q) GetProject(ctx context.Context, id string) (Project, error) {
	var p Project
	err := q.ex.QueryRowContext(ctx, `SELECT id, worktree, vcs, time_created, time_updated FROM project WHERE id = ?`, id).
		Scan(&p.ID, &p.Worktree, &p.VCS, &p.TimeCreated, &p.TimeUpdated)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("project %s: %w", id, ErrNotFound)
	}
	return p, err
}

// PutSession inserts or updates a session.
func (q q) PutSession(ctx context.Context, s Session) error {
	_, err := q.ex.ExecContext(ctx, `INSERT INTO session (id, project_id, parent_id, directory, title, time_created, time_updated, data)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET project_id = excluded.project_id, parent_id = excluded.parent_id,
			directory = excluded.directory, title = excluded.title, time_updated = excluded.time_updated, data = excluded.data`,
		s.ID, s.ProjectID, s.ParentID, s.Directory, s.Title, s.TimeCreated, s.TimeUpdated, jsonText(s.Data))
	if err != nil {
		return fmt.Errorf("saving session %s: %w", s.ID, err)
	}
	return nil
}

const sessionColumns = `id, project_id, parent_id, directory, title, time_created, time_updated, data`

func scanSession(sc interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var data string
	err := sc.Scan(&s.ID, &s.ProjectID, &s.ParentID, &s.Directory, &s.Title, &s.TimeCreated, &s.TimeUpdated, &data)
	s.Data = json.RawMessage(data)
	return s, err
}

// GetSession returns the session with id, or an error wrapping ErrNotFound.
func (q q) GetSession(ctx context.Context, id string) (Session, error) {
	s, err := scanSession(q.ex.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM session WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return s, fmt.Errorf("reading session %s: %w", id, err)
	}
	return s, nil
}

// ListSessions returns the sessions f selects, the one updated last first.
func (q q) ListSessions(ctx context.Context, f SessionFilter) ([]Session, error) {
	var where []string
	var args []any
	if f.ProjectID != "" {
		where, args = append(where, "project_id = ?"), append(args, f.ProjectID)
	}
	if f.ParentID != "" {
		where, args = append(where, "parent_id = ?"), append(args, f.ParentID)
	}
	if f.RootsOnly {
		where = append(where, "parent_id = ''")
	}
	query := `SELECT ` + sessionColumns + ` FROM session`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	// By last activity; session ids are descending, so among sessions
	// updated in the same millisecond the newest comes first.
	query += " ORDER BY time_updated DESC, id"
	if f.Limit > 0 {
		query += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	rows, err := q.ex.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("listing sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("listing sessions: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// DeleteSession removes a session with its messages, parts and todos. It
// returns an error wrapping ErrNotFound when there is no such session.
func (q q) DeleteSession(ctx context.Context, id string) error {
	res, err := q.ex.ExecContext(ctx, `DELETE FROM session WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("deleting session %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return nil
}

// PutMessage inserts or updates a message.
func (q q) PutMessage(ctx context.Context, m Message) error {
	if m.TimeCreated == 0 {
		m.TimeCreated = time.Now().UnixMilli()
	}
	_, err := q.ex.ExecContext(ctx, `INSERT INTO message (id, session_id, time_created, data) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET data = excluded.data`,
		m.ID, m.SessionID, m.TimeCreated, jsonText(m.Data))
	if err != nil {
		return fmt.Errorf("saving message %s: %w", m.ID, err)
	}
	return nil
}

// GetMessage returns the message with id, or an error wrapping ErrNotFound.
func (q q) GetMessage(ctx context.Context, id string) (Message, error) {
	var m Message
	var data string
	err := q.ex.QueryRowContext(ctx, `SELECT id, session_id, time_created, data FROM message WHERE id = ?`, id).
		Scan(&m.ID, &m.SessionID, &m.TimeCreated, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return m, fmt.Errorf("message %s: %w", id, ErrNotFound)
	}
	m.Data = json.RawMessage(data)
	return m, err
}

// ListMessages returns a session's messages in id order.
func (q q) ListMessages(ctx context.Context, sessionID string) ([]Message, error) {
	rows, err := q.ex.QueryContext(ctx, `SELECT id, session_id, time_created, data FROM message WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("listing messages of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var data string
		if err := rows.Scan(&m.ID, &m.SessionID, &m.TimeCreated, &data); err != nil {
			return nil, fmt.Errorf("listing messages of %s: %w", sessionID, err)
		}
		m.Data = json.RawMessage(data)
		out = append(out, m)
	}
	return out, rows.Err()
}

// DeleteMessage removes a message and its parts.
func (q q) DeleteMessage(ctx context.Context, id string) error {
	if _, err := q.ex.ExecContext(ctx, `DELETE FROM message WHERE id = ?`, id); err != nil {
		return fmt.Errorf("deleting message %s: %w", id, err)
	}
	return nil
}

// PutPart inserts or updates a part.
func (q q) PutPart(ctx context.Context, p Part) error {
	_, err := q.ex.ExecContext(ctx, `INSERT INTO part (id, message_id, session_id, data) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET data = excluded.data`,
		p.ID, p.MessageID, p.SessionID, jsonText(p.Data))
	if err != nil {
		return fmt.Errorf("saving part %s: %w", p.ID, err)
	}
	return nil
}

// ListParts returns every part of a session, ordered by message id and then
// part id.
func (q q) ListParts(ctx context.Context, sessionID string) ([]Part, error) {
	parts, err := q.queryParts(ctx, `WHERE session_id = ? ORDER BY message_id, id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("listing parts of %s: %w", sessionID, err)
	}
	return parts, nil
}

// ListMessageParts returns the parts of one message in id order.
func (q q) ListMessageParts(ctx context.Context, messageID string) ([]Part, error) {
	parts, err := q.queryParts(ctx, `WHERE message_id = ? ORDER BY id`, messageID)
	if err != nil {
		return nil, fmt.Errorf("listing parts of message %s: %w", messageID, err)
	}
	return parts, nil
}

// queryParts returns the parts a WHERE and ORDER BY clause selects.
func (q q) queryParts(ctx context.Context, clause string, args ...any) ([]Part, error) {
	rows, err := q.ex.QueryContext(ctx, `SELECT id, message_id, session_id, data FROM part `+clause, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Part
	for rows.Next() {
		var p Part
		var data string
		if err := rows.Scan(&p.ID, &p.MessageID, &p.SessionID, &data); err != nil {
			return nil, err
		}
		p.Data = json.RawMessage(data)
		out = append(out, p)
	}
	return out, rows.Err()
}

// DeletePart removes a part.
func (q q) DeletePart(ctx context.Context, id string) error {
	if _, err := q.ex.ExecContext(ctx, `DELETE FROM part WHERE id = ?`, id); err != nil {
		return fmt.Errorf("deleting part %s: %w", id, err)
	}
	return nil
}
