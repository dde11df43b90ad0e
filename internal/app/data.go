package app

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/llm/catalog"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
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
	// Trust says whether the project's own commands and settings apply,
	// and lists them.
	Trust *Trust

	ext extSources
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
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	loaded, tr, ext, err := loadConfig(ctx, opts, dir)
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
		Sessions: newSessions(st, nil, opts), Trust: tr, ext: ext}
	git := exists(filepath.Join(d.Worktree, ".git"))
	d.ProjectID = projectID(ctx, d.Worktree, git)
	if git {
		d.VCS = "git"
	}
	return d, nil
}

// LoadConfig loads the config for opts.Dir and asks the trust store about
// the project: the config returned is the one in force, with the
// project's own commands and settings held back unless it is trusted
// (opts.TrustProject trusts it first).
func LoadConfig(ctx context.Context, opts Options) (*config.Loaded, *Trust, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, nil, err
	}
	loaded, tr, _, err := loadConfig(ctx, opts, dir)
	return loaded, tr, err
}

func loadConfig(ctx context.Context, opts Options, dir string) (*config.Loaded, *Trust, extSources, error) {
	loaded, err := config.Load(ctx, config.LoadOptions{Cwd: dir, Getenv: opts.Getenv, Dirs: opts.Dirs,
		KnownProvider: knownProvider()})
	if err != nil {
		return nil, nil, extSources{}, err
	}
	noHooks := envTrue(opts.Getenv, "DISABLE_CLAUDE_CODE") || envTrue(opts.Getenv, "DISABLE_CLAUDE_CODE_HOOKS")
	ext := gatherExtensions(opts, loaded, dir, loaded.Worktree, noHooks)
	tr, err := openTrust(opts, loaded, dir, ext, opts.TrustProject)
	if err != nil {
		return nil, nil, extSources{}, err
	}
	return loaded, tr, ext, nil
}

// SaveProject records the project in the store, or refreshes its row.
func (d *Data) SaveProject(ctx context.Context) error {
	now := time.Now().UnixMilli()
	return d.Store.PutProject(ctx, store.Project{ID: d.ProjectID, Worktree: d.Worktree, VCS: d.VCS, TimeCreated: now, TimeUpdated: now})
}

// Close closes the store.
func (d *Data) Close() error { return d.Store.Close() }

// knownProvider reports whether the embedded model catalog lists a
// provider; the catalog is read on the first question only.
func knownProvider() func(string) bool {
	var once sync.Once
	var cat *catalog.Catalog
	return func(id string) bool {
		once.Do(func() { cat, _ = catalog.Embedded() })
		if cat == nil {
			return true
		}
		_, ok := cat.Provider(id)
		return ok
	}
}

// newSessions returns the session service over st. Deleting a session
// also removes the temporary directory its sandboxed commands wrote.
func newSessions(st *store.Store, b *bus.Bus, opts Options) *session.Sessions {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := session.NewSessions(st, b, opts.Version)
	s.AfterDelete(func(id string) {
		if err := tool.RemoveSessionTemp("", id); err != nil {
			log.Warn("deleting a session", "err", err)
		}
	})
	return s
}
