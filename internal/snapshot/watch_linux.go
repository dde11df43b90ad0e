//go:build linux

package snapshot

import (
	"errors"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher tells which paths of a project changed since it last said, with
// inotify, so a scan can re-read those and skip the rest. It keeps no
// goroutine: the kernel queues the events and drain reads them. Anything
// it cannot vouch for (a queue overflow, a watch it could not add) makes it
// broken, and the next scan walks the whole tree.
type watcher struct {
	mu     sync.Mutex
	fd     int
	dirs   map[int]string // watch descriptor → directory, relative ("." is the root)
	broken bool
	// backlog is what the keeper read from the watch while no codeloop
	// ran, and extra the files the last process left for the next to
	// state again; both come first in the next drain.
	backlog []byte
	extra   []change
}

const watchMask = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_DELETE |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR

func newWatcher() *watcher {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &watcher{fd: fd, dirs: map[int]string{}}
}

// add watches the directory at path (rel relative to the root). Call it
// before reading the directory, so no change after the read is missed.
func (w *watcher) add(path, rel string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken {
		return
	}
	wd, err := unix.InotifyAddWatch(w.fd, path, watchMask)
	if err != nil {
		w.broken = true // too many watches, or the directory went away
		return
	}
	w.dirs[wd] = rel
}

// change is one event: a name in a watched directory.
type change struct {
	dir   string // relative
	name  string
	isDir bool
	gone  bool // deleted or moved away
	// restat says the file is to be stated again because the saved
	// index may not tell it as it is, not because an event said it
	// changed.
	restat bool
}

// errWatchLost says the watcher cannot tell what changed.
var errWatchLost = errors.New("the change watcher lost track")

// drain returns the changes queued since the last drain.
func (w *watcher) drain() ([]change, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken {
		return nil, errWatchLost
	}
	// What another process read of the watch before handing it over
	// comes first.
	out, extra := w.parse(nil, w.backlog), w.extra
	w.backlog, w.extra = nil, nil
	if w.broken {
		return nil, errWatchLost
	}
	out = append(out, extra...)
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(w.fd, buf)
		if errors.Is(err, unix.EAGAIN) || n == 0 {
			return out, nil
		}
		if err != nil {
			w.broken = true
			return nil, errWatchLost
		}
		if out = w.parse(out, buf[:n]); w.broken {
			return nil, errWatchLost
		}
	}
}

// parse appends the changes of the inotify events in buf to out; an event
// that says the watch lost track makes w broken. w.mu is held.
func (w *watcher) parse(out []change, buf []byte) []change {
	for off := 0; off+unix.SizeofInotifyEvent <= len(buf); {
		ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
		end := off + unix.SizeofInotifyEvent + int(ev.Len)
		if end > len(buf) {
			w.broken = true
			return nil
		}
		nameBytes := buf[off+unix.SizeofInotifyEvent : end]
		off = end
		if lostTrack(ev.Mask) {
			w.broken = true
			return nil
		}
		dir, ok := w.dirs[int(ev.Wd)]
		if !ok {
			continue
		}
		out = append(out, change{dir: dir, name: string(nameBytes[:nameLen(nameBytes)]), isDir: ev.Mask&unix.IN_ISDIR != 0,
			gone: ev.Mask&(unix.IN_DELETE|unix.IN_MOVED_FROM) != 0})
	}
	return out
}

// lostTrack reports whether an event with mask says the watch can no
// longer tell what changed: its queue overflowed, or a watched directory
// went away.
func lostTrack(mask uint32) bool {
	return mask&(unix.IN_Q_OVERFLOW|unix.IN_DELETE_SELF|unix.IN_MOVE_SELF|unix.IN_IGNORED|unix.IN_UNMOUNT) != 0
}

func (w *watcher) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
	}
	w.broken = true
}
