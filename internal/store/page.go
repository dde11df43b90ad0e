package store

import (
	"context"
	"encoding/json"
	"fmt"
)

// ListMessagesPage returns the newest limit messages of a session whose
// id is below before (all of them when before is empty), in id order.
// It reads only those rows, so a page of a long session costs a page.
func (q q) ListMessagesPage(ctx context.Context, sessionID, before string, limit int) ([]Message, error) {
	query := `SELECT id, session_id, time_created, data FROM message WHERE session_id = ?`
	args := []any{sessionID}
	if before != "" {
		query += ` AND id < ?`
		args = append(args, before)
	}
	query += ` ORDER BY id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := q.ex.QueryContext(ctx, query, args...)
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
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing messages of %s: %w", sessionID, err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// ListPartsBetween returns the parts of a session's messages whose id is
// from first to last, both included, ordered by message id and part id.
func (q q) ListPartsBetween(ctx context.Context, sessionID, first, last string) ([]Part, error) {
	parts, err := q.queryParts(ctx, `WHERE session_id = ? AND message_id >= ? AND message_id <= ? ORDER BY message_id, id`,
		sessionID, first, last)
	if err != nil {
		return nil, fmt.Errorf("listing parts of %s: %w", sessionID, err)
	}
	return parts, nil
}
