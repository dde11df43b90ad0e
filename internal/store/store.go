// Package store keeps codeloop's sessions, messages, parts, todos and saved
// permission approvals in SQLite.
//
// The database runs in WAL mode with a busy timeout, and every transaction
// that writes begins IMMEDIATE, so several codeloop processes can share one
// database: a writer waits for another, it never fails with "database is
// locked". Messages and parts keep their JSON body beside the indexed
// columns the queries need; order always comes from the sortable ids, never
// from timestamps. Migrations are embedded; a database written by a newer
// codeloop is refused, never altered.
//
// The package is the bottom of the stack: it imports nothing of codeloop's.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// ErrNotFound is returned when a record does not exist.
var ErrNotFound = errors.New("not found")

// FutureSchemaError reports a database whose schema is newer than this
// build of codeloop knows.
type FutureSchemaError struct {
	Path  string
	Have  int
	Known int
}

func (e *FutureSchemaError) Error() string {
	return fmt.Sprintf("database %s has schema version %d, but this codeloop knows versions up to %d: "+
		"upgrade codeloop, or set CODELOOP_DB to use another database", e.Path, e.Have, e.Known)
}

// Store is an open database. Its methods are safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	q
}

// busyTimeout is how long a writer waits for another process's write.
const busyTimeout = 30 * time.Second

// Open opens (creating if needed) the database at path and brings its schema
// up to date. The path ":memory:" opens a private in-memory database.
func Open(ctx context.Context, path string) (*Store, error) {
	dsn, err := dataSource(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	if path == ":memory:" {
		// Each connection to :memory: is its own database; keep one.
		db.SetMaxOpenConns(1)
	}
	s := &Store{db: db, path: path, q: q{checked{db, path}}}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, classifyOp("open", path, err)
	}
	return s, nil
}

// OpenReadOnly opens the existing database at path for reading only, for
// commands that change nothing: it works in a read-only data directory,
// applies no migration and takes no write lock. A database that needs a
// migration is refused with an error that says so.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if path == ":memory:" {
		return Open(ctx, path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	s, err := openRO(ctx, path, false)
	if err == nil {
		return s, nil
	}
	if c := sqliteCode(err); c == sqliteCantOpen || c == sqliteReadOnly {
		// Without write access to the directory, SQLite cannot create the
		// shared-memory file a WAL database needs; an immutable open
		// reads the file as it is.
		if s, err = openRO(ctx, path, true); err == nil {
			return s, nil
		}
	}
	return nil, classifyOp("open", path, err)
}

func openRO(ctx context.Context, path string, immutable bool) (*Store, error) {
	v := url.Values{"_pragma": {fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()), "query_only(1)"}, "mode": {"ro"}}
	if immutable {
		v.Set("immutable", "1")
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+v.Encode())
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: path, q: q{checked{db, path}}}
	if err := s.checkSchema(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// checkSchema makes sure a database opened read-only has the schema this
// build knows.
func (s *Store) checkSchema(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	var have int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&have); err != nil {
		return err
	}
	switch {
	case have > len(ms):
		return &FutureSchemaError{Path: s.path, Have: have, Known: len(ms)}
	case have < len(ms):
		return fmt.Errorf("database %s was written by an older codeloop and must be upgraded, which needs write access: "+
			"run any codeloop command that writes (such as codeloop run) where the data directory is writable", s.path)
	}
	return nil
}

func dataSource(path string) (string, error) {
	pragmas := []string{
		fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()),
		"foreign_keys(1)",
		"synchronous(NORMAL)",
		// A smaller page cache than SQLite's 2 MB per connection: reading a
		// long history streams through the file once, and the pages it
		// leaves in the cache are never read again.
		"cache_size(-512)",
	}
	if path == ":memory:" {
		v := url.Values{"_pragma": pragmas, "_txlock": {"immediate"}}
		return "file::memory:?" + v.Encode(), nil
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("creating the database directory: %w", err)
		}
	}
	v := url.Values{"_pragma": append([]string{"journal_mode(WAL)"}, pragmas...), "_txlock": {"immediate"}}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + v.Encode(), nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file's path.
func (s *Store) Path() string { return s.path }

// DB exposes the underlying handle for diagnostics (integrity checks,
// benchmarks). Callers must not write through it.
func (s *Store) DB() *sql.DB { return s.db }

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		var v int
		if _, err := fmt.Sscanf(e.Name(), "%04d_", &v); err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a four-digit version", e.Name())
		}
		b, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: version %d, want %d", m.name, m.version, i+1)
		}
	}
	return out, nil
}

// migrate applies the migrations the database lacks, in one IMMEDIATE
// transaction so that two processes starting at once do not race.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return s.Tx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
			version INTEGER NOT NULL, applied INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("reading the schema version of %s: %w", s.path, err)
		}
		var have int
		if err := tx.tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&have); err != nil {
			return fmt.Errorf("reading the schema version of %s: %w", s.path, err)
		}
		if have > len(ms) {
			return &FutureSchemaError{Path: s.path, Have: have, Known: len(ms)}
		}
		for _, m := range ms[have:] {
			if _, err := tx.tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("applying migration %s: %w", m.name, err)
			}
			if _, err := tx.tx.ExecContext(ctx, `INSERT INTO schema_version (version, applied) VALUES (?, ?)`,
				m.version, time.Now().UnixMilli()); err != nil {
				return fmt.Errorf("recording migration %s: %w", m.name, err)
			}
		}
		return nil
	})
}

// Tx runs fn in one IMMEDIATE transaction, committing when fn returns nil
// and rolling back otherwise.
func (s *Store) Tx(ctx context.Context, fn func(tx *Tx) error) error {
	sqlTx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return classify(s.path, fmt.Errorf("beginning a transaction: %w", err))
	}
	tx := &Tx{tx: sqlTx, q: q{checked{sqlTx, s.path}}}
	if err := fn(tx); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return classify(s.path, fmt.Errorf("committing: %w", err))
	}
	return nil
}

// Tx is a transaction; it has the same record methods as Store.
type Tx struct {
	tx *sql.Tx
	q
}

// execer is what q needs of a *sql.DB or *sql.Tx.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// q holds the record methods shared by Store and Tx.
type q struct{ ex execer }
