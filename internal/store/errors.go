package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// SQLite's primary result codes that no retry will fix.
const (
	sqliteIOErr    = 10
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteReadOnly = 8
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// WriteError is a use of the database that failed for a reason no retry
// fixes: the disk is full, a file-size limit is reached, the file is
// read-only or damaged. Whoever writes the session must stop rather than
// carry on with work it cannot save.
type WriteError struct {
	Op     string // "write to" or "open"
	Path   string // the database file
	Reason string // what went wrong, for people
	Err    error  // SQLite's error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("cannot %s the database %s: %s (%v)", e.Op, e.Path, e.Reason, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// sqliteCode returns the primary result code of a SQLite error, 0 for
// other errors.
func sqliteCode(err error) int {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		return coded.Code() & 0xff
	}
	return 0
}

// classify turns an error from writing the database at path into a
// *WriteError when it is one no retry fixes, and returns it unchanged
// otherwise.
func classify(path string, err error) error { return classifyOp("write to", path, err) }

// classifyOp is classify for an operation other than writing.
func classifyOp(op, path string, err error) error {
	if err == nil || path == ":memory:" {
		return err
	}
	var we *WriteError
	if errors.As(err, &we) {
		return err
	}
	var reason string
	switch sqliteCode(err) {
	case sqliteFull:
		reason = "the disk is full: free some space and run the command again"
	case sqliteIOErr:
		reason = diagnoseIO(path)
	case sqliteReadOnly:
		reason = "the database is read-only: check the permissions of the file and its directory"
	case sqliteCorrupt, sqliteNotADB:
		reason = fmt.Sprintf("the database is damaged: move it aside (mv %s %s.corrupt) and codeloop starts a new one", path, path)
	default:
		return err
	}
	return &WriteError{Op: op, Path: path, Reason: reason, Err: err}
}

// checked is an execer whose writes report errors through classify.
type checked struct {
	execer
	path string
}

func (c checked) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := c.execer.ExecContext(ctx, query, args...)
	return res, classify(c.path, err)
}
