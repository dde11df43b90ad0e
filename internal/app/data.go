package app

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
)

// Data is what the commands that only read and write stored sessions and
// approvals need: the config, the store and the project id. Opening it
// starts no model provider, catalog fetch, MCP server, tool or engine.
type Data struct {
	Dir, Worktree string
	ProjectID     string
	VCS           string // "git", or "" outside a repository
	Config        *config.Loaded
	Store         *store.Store
	// Sessions reads and writes sessions; it publishes no events.
	Sessions *session.Sessions
}

// OpenData loads the config for opts.Dir, opens the store and identifies
// the project, as Open does, and nothing else. Only Dir, Dirs, Getenv,
// Version and ReadOnly of opts are used; with ReadOnly an existing
// database is opened for reading only, so that listing works from a
// read-only data directory. It writes nothing: SaveProject records the
// project when a command adds to it.
func OpenData(ctx context.Context, opts Options) (*Data, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	loaded, err := config.Load(ctx, config.LoadOptions{Cwd: dir, Getenv: opts.Getenv, Dirs: opts.Dirs})
	if err != nil {
		return nil, err
	}
	dbPath := opts.Dirs.Database()
	if v := firstEnv(opts.Getenv, "CODELOOP_DB", "OPENCODE_DB"); v != "" {
		dbPath = v
		if v != ":memory:" && !filepath.IsAbs(v) {
			dbPath = filepath.Join(opts.Dirs.Data, v)
		}
	}
	var st *store.Store
	if opts.ReadOnly && exists(dbPath) {
		st, err = store.OpenReadOnly(ctx, dbPath)
	} else {
		if err := opts.Dirs.Ensure(); err != nil {
			return nil, err
		}
		st, err = store.Open(ctx, dbPath)
	}
	if err != nil {
		return nil, err
	}
	d := &Data{Dir: dir, Worktree: loaded.Worktree, Config: loaded, Store: st,
		Sessions: session.NewSessions(st, nil, opts.Version)}
	git := exists(filepath.Join(d.Worktree, ".git"))
	d.ProjectID = projectID(ctx, d.Worktree, git)
	if git {
		d.VCS = "git"
	}
	return d, nil
}

// SaveProject records the project in the store, or refreshes its row.
func (d *Data) SaveProject(ctx context.Context) error {
	now := time.Now().UnixMilli()
	return d.Store.PutProject(ctx, store.Project{ID: d.ProjectID, Worktree: d.Worktree, VCS: d.VCS, TimeCreated: now, TimeUpdated: now})
}

// Close closes the store.
func (d *Data) Close() error { return d.Store.Close() }
