//go:build !linux

package snapshot

import "errors"

// watcher is not available here: every scan walks the tree.
type watcher struct{}

type change struct {
	dir, name           string
	isDir, gone, restat bool
}

var errWatchLost = errors.New("no change watcher on this system")

func newWatcher() *watcher                  { return nil }
func (w *watcher) add(path, rel string)     {}
func (w *watcher) drain() ([]change, error) { return nil, errWatchLost }
func (w *watcher) close()                   {}
