package tool

import (
	"context"
	"sync"
)

// fileLocks serialises the changes to each file, so that two edits of one
// file in parallel calls do not lose each other's work.
type fileLocks struct {
	mu    sync.Mutex
	files map[string]*fileLock
}

type fileLock struct {
	ch    chan struct{} // holds a token while the file is locked
	users int
}

func newFileLocks() *fileLocks { return &fileLocks{files: map[string]*fileLock{}} }

// lock waits until path is free or ctx ends; the returned func unlocks it.
func (l *fileLocks) lock(ctx context.Context, path string) (func(), error) {
	l.mu.Lock()
	fl := l.files[path]
	if fl == nil {
		fl = &fileLock{ch: make(chan struct{}, 1)}
		l.files[path] = fl
	}
	fl.users++
	l.mu.Unlock()

	release := func() {
		l.mu.Lock()
		fl.users--
		if fl.users == 0 {
			delete(l.files, path)
		}
		l.mu.Unlock()
	}
	select {
	case fl.ch <- struct{}{}:
		return func() { <-fl.ch; release() }, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// lockAll locks several paths in a fixed order (sorted by the caller) so
// that two calls cannot deadlock.
func (l *fileLocks) lockAll(ctx context.Context, paths []string) (func(), error) {
	var unlocks []func()
	undo := func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
	for _, p := range paths {
		u, err := l.lock(ctx, p)
		if err != nil {
			undo()
			return nil, err
		}
		unlocks = append(unlocks, u)
	}
	return undo, nil
}
