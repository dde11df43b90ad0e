package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/codeloop/codeloop/internal/session"
)

// minRetention is the shortest retention the config may ask for: a
// shorter one could delete a session another process still shows.
const minRetention = 24 * time.Hour

// pruneSessions deletes, in the background, the project's sessions not
// changed for the config's retention; Close stops it and waits. An unset
// retention keeps every session.
func (a *App) pruneSessions(retention string, log *slog.Logger) {
	if retention == "" {
		return
	}
	age, err := session.ParseAge(retention)
	if err == nil && age < minRetention {
		log.Warn("retention is shorter than a day; sessions are kept", "retention", retention)
		return
	}
	if err != nil {
		log.Warn("retention: sessions are kept", "err", err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, err := a.Sessions.DeleteOlderThan(ctx, a.ProjectID, time.Now().Add(-age))
		if err != nil && ctx.Err() == nil {
			log.Warn("deleting sessions past the retention", "err", err)
		}
		if n > 0 {
			log.Info("deleted sessions past the retention", "sessions", n, "retention", retention)
		}
	}()
	a.closers = append(a.closers, func() error {
		cancel()
		<-done
		return nil
	})
}
