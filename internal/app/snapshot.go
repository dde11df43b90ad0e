package app

import (
	"context"
	"os"
	"time"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/snapshot"
	"github.com/codeloop/codeloop/internal/tool"
)

// openSnapshots opens the snapshot store the config asks for; nil when
// snapshots are off.
func openSnapshots(cfg config.Snapshot, dirs paths.Dirs, opts Options) (*snapshot.Store, error) {
	if cfg.Disabled {
		return nil, nil
	}
	return snapshot.Open(snapshot.Options{
		Dir:            dirs.Snapshot(),
		MaxSize:        cfg.Limits.MaxSize,
		MaxCheckpoints: cfg.Limits.MaxCheckpoints,
		Retention:      time.Duration(cfg.Limits.RetentionDays) * 24 * time.Hour,
		Home:           dirs.Home,
		Log:            opts.Log,
		Keeper:         keeperPath(opts.Getenv),
	})
}

// keeperPath is the program that keeps a project's change watcher between
// runs: this executable, whose main runs snapshot.Main first. It is ""
// (every run walks the project once) when CODELOOP_DISABLE_SNAPSHOT_KEEPER
// is set: an environment variable, so that a project's config cannot
// start a process that outlives the run against the user's choice.
func keeperPath(getenv func(string) string) string {
	if envTrue(getenv, "DISABLE_SNAPSHOT_KEEPER") {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// keepPreImages returns the tools' BeforeChange hook that keeps the
// content of files about to change in the session's open snapshot.
func keepPreImages(s *snapshot.Store) func(ctx context.Context, call *tool.Call, paths []string) error {
	if s == nil {
		return nil
	}
	return func(ctx context.Context, call *tool.Call, paths []string) error {
		return s.BeforeChange(ctx, call.SessionID, paths)
	}
}

// sessionSnapshots is s as the engine's Snapshots, nil (not a nil
// pointer in an interface) when snapshots are off.
func sessionSnapshots(s *snapshot.Store) session.Snapshots {
	if s == nil {
		return nil
	}
	return s
}
