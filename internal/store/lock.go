package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// SessionLock is held by the one process that runs a session's loop. The
// operating system releases it when that process ends, however it ends.
type SessionLock struct {
	f *os.File
}

// Release gives the lock up.
func (l *SessionLock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Truncate(0)
	unlockFile(l.f)
	l.f.Close()
	l.f = nil
}

// lockPoll is how often a waiting process tries the lock again.
const lockPoll = 50 * time.Millisecond

// LockSession takes the lock of a session's loop, waiting while another
// process holds it. waiting, when not nil, is called once with the holder's
// process id when the lock is not free at once. A private in-memory
// database has no other process to share it with and its lock is free.
func (s *Store) LockSession(ctx context.Context, sessionID string, waiting func(pid int)) (*SessionLock, error) {
	if s.path == ":memory:" {
		return &SessionLock{}, nil
	}
	dir := filepath.Join(filepath.Dir(s.path), "lock")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the lock directory: %w", err)
	}
	path := filepath.Join(dir, sessionID+".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the session lock: %w", err)
	}
	told := false
	t := time.NewTicker(lockPoll)
	defer t.Stop()
	for {
		ok, err := tryLockFile(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking session %s: %w", sessionID, err)
		}
		if ok {
			_ = f.Truncate(0)
			_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			return &SessionLock{f: f}, nil
		}
		if !told && waiting != nil {
			told = true
			waiting(holder(path))
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// holder reads the process id written by the lock's holder, 0 if unknown.
func holder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0
	}
	return pid
}
