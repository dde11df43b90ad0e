package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"
)

// Read runs fn in one read-only transaction: every query fn makes sees the
// database as it was when the first one ran, whatever other connections
// and processes write meanwhile.
func (s *Store) Read(ctx context.Context, fn func(tx *Tx) error) error {
	sqlTx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return classify(s.path, fmt.Errorf("beginning a read transaction: %w", err))
	}
	defer func() { _ = sqlTx.Rollback() }()
	return fn(&Tx{tx: sqlTx, q: q{checked{sqlTx, s.path}}})
}

// SessionRevision returns the number of changes made to the session's
// messages and parts since it was created (each stored, updated or deleted
// row counts one, whoever made it). It returns an error wrapping
// ErrNotFound when there is no such session.
func (q q) SessionRevision(ctx context.Context, sessionID string) (int64, error) {
	var rev int64
	err := q.ex.QueryRowContext(ctx, `SELECT revision FROM session WHERE id = ?`, sessionID).Scan(&rev)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("session %s: %w", sessionID, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("reading the revision of session %s: %w", sessionID, err)
	}
	return rev, nil
}

// Summary is an assistant message that completed a compaction: it is
// marked as a summary, has a finish reason and no error.
type Summary struct {
	ID       string
	ParentID string // the user message that asked for the compaction
}

// CompletedSummaries returns the session's completed compaction summaries,
// newest first, from an index (no message is decoded).
func (q q) CompletedSummaries(ctx context.Context, sessionID string) ([]Summary, error) {
	rows, err := q.ex.QueryContext(ctx, `SELECT id, parent_id FROM message_meta
		WHERE session_id = ? AND summary = 1 AND role = 'assistant' AND finish != '' AND failed = 0
		ORDER BY id DESC`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("listing the summaries of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var s Summary
		if err := rows.Scan(&s.ID, &s.ParentID); err != nil {
			return nil, fmt.Errorf("listing the summaries of %s: %w", sessionID, err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// UnfinishedAssistants returns the ids of the session's assistant messages
// that have neither completed nor failed, oldest first: what a process
// that died while answering left behind.
func (q q) UnfinishedAssistants(ctx context.Context, sessionID string) ([]string, error) {
	rows, err := q.ex.QueryContext(ctx, `SELECT id FROM message_meta
		WHERE session_id = ? AND role = 'assistant' AND completed = 0 AND failed = 0 ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("listing the unfinished messages of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("listing the unfinished messages of %s: %w", sessionID, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// MessageRole returns the role stored in a message of the session, or ""
// when the session has no such message.
func (q q) MessageRole(ctx context.Context, sessionID, messageID string) (string, error) {
	var role string
	err := q.ex.QueryRowContext(ctx, `SELECT role FROM message_meta WHERE id = ? AND session_id = ?`,
		messageID, sessionID).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading message %s: %w", messageID, err)
	}
	return role, nil
}

// ListMessagesFrom returns the session's messages whose id is fromID or
// later, in id order; an empty fromID returns them all. Their Data must
// not be modified.
func (q q) ListMessagesFrom(ctx context.Context, sessionID, fromID string) ([]Message, error) {
	var out []Message
	err := q.EachMessageFrom(ctx, sessionID, fromID, func(m Message) error {
		out = append(out, m)
		return nil
	})
	return out, err
}

// CountMessagesFrom counts the session's messages whose id is fromID or
// later: what EachMessageFrom reads in the same transaction.
func (q q) CountMessagesFrom(ctx context.Context, sessionID, fromID string) (int, error) {
	var n int
	err := q.ex.QueryRowContext(ctx, `SELECT COUNT(*) FROM message WHERE session_id = ? AND id >= ?`, sessionID, fromID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting messages of %s: %w", sessionID, err)
	}
	return n, nil
}

// CountPartsFrom counts the parts of the session's messages whose id is
// fromID or later: what EachPartFrom reads in the same transaction.
func (q q) CountPartsFrom(ctx context.Context, sessionID, fromID string) (int, error) {
	var n int
	err := q.ex.QueryRowContext(ctx, `SELECT COUNT(*) FROM part WHERE session_id = ? AND message_id >= ?`, sessionID, fromID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting parts of %s: %w", sessionID, err)
	}
	return n, nil
}

// EachMessageFrom calls fn with each of the session's messages whose id is
// fromID or later, in id order, as it reads them: a long history is never
// held whole. fn may keep each message's Data but must not modify it. An
// error from fn stops the reading and is returned as it is.
func (q q) EachMessageFrom(ctx context.Context, sessionID, fromID string, fn func(Message) error) error {
	what := "messages of " + sessionID
	return q.eachRow(ctx, what, func(rows *sql.Rows) error {
		m := Message{SessionID: sessionID}
		var data string
		if err := rows.Scan(&m.ID, &m.TimeCreated, &data); err != nil {
			return fmt.Errorf("listing %s: %w", what, err)
		}
		m.Data = ownBytes(data)
		return fn(m)
	}, `SELECT id, time_created, data FROM message WHERE session_id = ? AND id >= ? ORDER BY id`, sessionID, fromID)
}

// EachMessageDataFrom calls fn with the stored JSON of each of the
// session's messages whose id is fromID or later, in id order, as it reads
// them: EachMessageFrom without the other columns, which cost a long
// history's read a third of its time. The JSON holds the message's id. fn
// may keep data but must not modify it; an error from fn stops the reading
// and is returned as it is.
func (q q) EachMessageDataFrom(ctx context.Context, sessionID, fromID string, fn func(data json.RawMessage) error) error {
	return q.eachData(ctx, "messages", `SELECT data FROM message WHERE session_id = ? AND id >= ? ORDER BY id`, sessionID, fromID, fn)
}

// EachPartDataFrom calls fn with the stored JSON of each part of the
// session's messages whose id is fromID or later, ordered by message id
// and then part id, as it reads them: EachPartFrom without the other
// columns. The JSON holds the part's id and its message's. fn may keep
// data but must not modify it; an error from fn stops the reading and is
// returned as it is.
func (q q) EachPartDataFrom(ctx context.Context, sessionID, fromID string, fn func(data json.RawMessage) error) error {
	return q.eachData(ctx, "parts", `SELECT data FROM part WHERE session_id = ? AND message_id >= ? ORDER BY message_id, id`, sessionID, fromID, fn)
}

func (q q) eachData(ctx context.Context, what, query, sessionID, fromID string, fn func(json.RawMessage) error) error {
	what += " of " + sessionID
	return q.eachRow(ctx, what, func(rows *sql.Rows) error {
		var data string
		if err := rows.Scan(&data); err != nil {
			return fmt.Errorf("listing %s: %w", what, err)
		}
		return fn(ownBytes(data))
	}, query, sessionID, fromID)
}

// eachRow runs query and calls row with each row of its result as it reads
// it, stopping at row's first error, which it returns as it is. what names
// the rows in the errors of the query itself.
func (q q) eachRow(ctx context.Context, what string, row func(*sql.Rows) error, query string, args ...any) error {
	rows, err := q.ex.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("listing %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			// database/sql notices the end of ctx between rows only later.
			return fmt.Errorf("listing %s: %w", what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("listing %s: %w", what, err)
	}
	return nil
}

// MessageIDAt returns the id of the message at index i (from 0) of those
// EachMessageDataFrom reads in the same transaction, or "" when there are
// not that many: it names a row whose JSON does not decode.
func (q q) MessageIDAt(ctx context.Context, sessionID, fromID string, i int) (string, error) {
	return q.idAt(ctx, `SELECT id FROM message WHERE session_id = ? AND id >= ? ORDER BY id LIMIT 1 OFFSET ?`, sessionID, fromID, i)
}

// PartIDAt returns the id of the part at index i (from 0) of those
// EachPartDataFrom reads in the same transaction, or "" when there are not
// that many.
func (q q) PartIDAt(ctx context.Context, sessionID, fromID string, i int) (string, error) {
	return q.idAt(ctx, `SELECT id FROM part WHERE session_id = ? AND message_id >= ? ORDER BY message_id, id LIMIT 1 OFFSET ?`, sessionID, fromID, i)
}

func (q q) idAt(ctx context.Context, query, sessionID, fromID string, i int) (string, error) {
	var id string
	err := q.ex.QueryRowContext(ctx, query, sessionID, fromID, i).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading row %d of %s: %w", i, sessionID, err)
	}
	return id, nil
}

// ListPartsFrom returns the parts of the session's messages whose id is
// fromID or later, ordered by message id and then part id; an empty fromID
// returns them all. Their Data must not be modified.
func (q q) ListPartsFrom(ctx context.Context, sessionID, fromID string) ([]Part, error) {
	var out []Part
	err := q.EachPartFrom(ctx, sessionID, fromID, func(p Part) error {
		out = append(out, p)
		return nil
	})
	return out, err
}

// EachPartFrom calls fn with each part of the session's messages whose id
// is fromID or later, ordered by message id and then part id, as it reads
// them: a long history is never held whole. fn may keep each part's Data
// but must not modify it. An error from fn stops the reading and is
// returned as it is.
func (q q) EachPartFrom(ctx context.Context, sessionID, fromID string, fn func(Part) error) error {
	what := "parts of " + sessionID
	return q.eachRow(ctx, what, func(rows *sql.Rows) error {
		p := Part{SessionID: sessionID}
		var data string
		if err := rows.Scan(&p.ID, &p.MessageID, &data); err != nil {
			return fmt.Errorf("listing %s: %w", what, err)
		}
		p.Data = ownBytes(data)
		return fn(p)
	}, `SELECT id, message_id, data FROM part WHERE session_id = ? AND message_id >= ? ORDER BY message_id, id`, sessionID, fromID)
}

// ownBytes returns the bytes of a text column's value without copying
// them again: the SQLite driver already copies every text value into a new
// buffer of its own, so the JSON of a long history is not copied twice.
// The slice shares its memory with the string, so it must not be
// modified.
func ownBytes(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
