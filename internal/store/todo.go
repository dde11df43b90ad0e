package store

import (
	"context"
	"fmt"
	"time"
)

// SetTodos replaces a session's todo list.
func (s *Store) SetTodos(ctx context.Context, sessionID string, todos []Todo) error {
	return s.Tx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `DELETE FROM todo WHERE session_id = ?`, sessionID); err != nil {
			return fmt.Errorf("replacing todos of %s: %w", sessionID, err)
		}
		for i, t := range todos {
			if _, err := tx.tx.ExecContext(ctx, `INSERT INTO todo (session_id, position, id, content, status, priority)
				VALUES (?, ?, ?, ?, ?, ?)`, sessionID, i, t.ID, t.Content, t.Status, t.Priority); err != nil {
				return fmt.Errorf("replacing todos of %s: %w", sessionID, err)
			}
		}
		return nil
	})
}

// ListTodos returns a session's todo list in order.
func (q q) ListTodos(ctx context.Context, sessionID string) ([]Todo, error) {
	rows, err := q.ex.QueryContext(ctx, `SELECT id, content, status, priority FROM todo WHERE session_id = ? ORDER BY position`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("listing todos of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []Todo
	for rows.Next() {
		var t Todo
		if err := rows.Scan(&t.ID, &t.Content, &t.Status, &t.Priority); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// AddApproval saves an approval; saving the same scope, permission and
// pattern again keeps the first.
func (q q) AddApproval(ctx context.Context, a Approval) error {
	if a.TimeCreated == 0 {
		a.TimeCreated = time.Now().UnixMilli()
	}
	_, err := q.ex.ExecContext(ctx, `INSERT INTO permission (id, scope, scope_id, permission, pattern, origin, time_created)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, scope_id, permission, pattern) DO NOTHING`,
		a.ID, a.Scope, a.ScopeID, a.Permission, a.Pattern, a.Origin, a.TimeCreated)
	if err != nil {
		return fmt.Errorf("saving approval %s %s: %w", a.Permission, a.Pattern, err)
	}
	return nil
}

func approvalWhere(scope, scopeID string) (string, []any) {
	switch {
	case scope == "":
		return "", nil
	case scopeID == "":
		return " WHERE scope = ?", []any{scope}
	default:
		return " WHERE scope = ? AND scope_id = ?", []any{scope, scopeID}
	}
}

// ListApprovals returns saved approvals of a scope (all when scope is
// empty; every id of the scope when scopeID is empty), oldest first.
func (q q) ListApprovals(ctx context.Context, scope, scopeID string) ([]Approval, error) {
	where, args := approvalWhere(scope, scopeID)
	rows, err := q.ex.QueryContext(ctx, `SELECT id, scope, scope_id, permission, pattern, origin, time_created
		FROM permission`+where+` ORDER BY time_created, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing approvals: %w", err)
	}
	defer rows.Close()
	var out []Approval
	for rows.Next() {
		var a Approval
		if err := rows.Scan(&a.ID, &a.Scope, &a.ScopeID, &a.Permission, &a.Pattern, &a.Origin, &a.TimeCreated); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// DeleteApprovals removes the approvals ListApprovals would return for the
// same arguments and reports how many went.
func (q q) DeleteApprovals(ctx context.Context, scope, scopeID string) (int, error) {
	where, args := approvalWhere(scope, scopeID)
	res, err := q.ex.ExecContext(ctx, `DELETE FROM permission`+where, args...)
	if err != nil {
		return 0, fmt.Errorf("removing approvals: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
