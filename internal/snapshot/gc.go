package snapshot

import (
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/id"
)

// sweepGrace keeps objects younger than this from a sweep: an open step of
// this or another process may have written them and not yet saved the
// checkpoint naming them.
const sweepGrace = 10 * time.Minute

// grew adds n bytes to the store's size.
func (s *Store) grew(n int64) {
	s.sizeMu.Lock()
	if s.size >= 0 {
		s.size += n
	}
	s.delta += n
	s.sizeMu.Unlock()
}

// Size is the bytes the store's objects and checkpoints take.
func (s *Store) Size() int64 {
	s.sizeMu.Lock()
	defer s.sizeMu.Unlock()
	if s.size < 0 {
		s.size = s.measure()
	}
	return s.size
}

func (s *Store) measure() int64 {
	var n int64
	for _, d := range []string{"objects", "checkpoints"} {
		_ = filepath.WalkDir(filepath.Join(s.dir, d), func(_ string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				if info, err := e.Info(); err == nil {
					n += info.Size()
				}
			}
			return nil
		})
	}
	return n
}

// scanShare is the share of the cap that the scan before a step may fill
// with the project's unchanged files; the rest is kept for what steps
// change.
func (s *Store) scanShare() int64 { return s.opts.MaxSize / 4 * 3 }

// makeRoom collects when the store is past budget, unless a collection
// since the last growth found nothing to drop, and reports whether the
// store is under budget.
func (s *Store) makeRoom(budget int64) bool {
	size := s.Size()
	if size <= budget {
		return true
	}
	s.sizeMu.Lock()
	futile := s.futileAt == size
	s.sizeMu.Unlock()
	if !futile {
		s.collect()
		size = s.Size()
		s.sizeMu.Lock()
		s.futileAt = size
		s.sizeMu.Unlock()
	}
	return size <= budget
}

// maybeCollect collects when session has a tenth more checkpoints than
// it may keep, or the store is too large.
func (s *Store) maybeCollect(session string) {
	entries, _ := os.ReadDir(filepath.Join(s.dir, "checkpoints", session))
	if len(entries) > s.opts.MaxCheckpoints+s.opts.MaxCheckpoints/10 || s.Size() > s.opts.MaxSize {
		s.collect()
	}
}

// stored is a saved checkpoint's place.
type stored struct {
	session, id string
	created     time.Time
}

// checkpoints lists every saved checkpoint, oldest first.
func (s *Store) checkpoints() []stored {
	var out []stored
	sessions, _ := os.ReadDir(filepath.Join(s.dir, "checkpoints"))
	for _, se := range sessions {
		files, _ := os.ReadDir(filepath.Join(s.dir, "checkpoints", se.Name()))
		for _, f := range files {
			cpID, ok := strings.CutSuffix(f.Name(), ".json")
			if !ok {
				continue
			}
			t, _ := id.Time(cpID)
			out = append(out, stored{session: se.Name(), id: cpID, created: t})
		}
	}
	slices.SortFunc(out, func(a, b stored) int { return strings.Compare(a.id, b.id) })
	return out
}

// Collected is what a collection removed.
type Collected struct {
	Checkpoints int
	Objects     int
	Bytes       int64
}

// Collect drops checkpoints past the retention period, beyond the count
// per session, and then the oldest until the store fits its size cap; it
// then removes the objects no checkpoint or index needs. It deletes only,
// so it needs no free space.
func (s *Store) Collect() Collected { return s.collect() }

func (s *Store) collect() Collected {
	var c Collected
	// Start from the store as it is: the size kept between runs may have
	// drifted, and interrupted writes may have been left behind.
	s.removeTemp()
	n := s.measure()
	s.sizeMu.Lock()
	s.size = n
	s.sizeMu.Unlock()
	all := s.checkpoints()
	now := s.opts.Now()
	perSession := map[string]int{}
	for _, cp := range all {
		perSession[cp.session]++
	}
	var keep []stored
	for _, cp := range all {
		if now.Sub(cp.created) > s.opts.Retention || perSession[cp.session] > s.opts.MaxCheckpoints {
			perSession[cp.session]--
			s.dropCheckpoint(cp, &c)
			continue
		}
		keep = append(keep, cp)
	}
	c = s.sweep(keep, c)
	for s.Size() > s.opts.MaxSize && len(keep) > 0 {
		n := max(1, len(keep)/10)
		for _, cp := range keep[:n] {
			s.dropCheckpoint(cp, &c)
		}
		keep = keep[n:]
		c = s.sweep(keep, c)
	}
	if c.Checkpoints > 0 || c.Objects > 0 {
		s.opts.Log.Info("snapshot store collected", "checkpoints", c.Checkpoints, "objects", c.Objects, "bytes", c.Bytes)
	}
	return c
}

func (s *Store) dropCheckpoint(cp stored, c *Collected) {
	path := s.checkpointFile(cp.session, cp.id)
	if info, err := os.Stat(path); err == nil && os.Remove(path) == nil {
		c.Checkpoints++
		c.Bytes += info.Size()
		s.grew(-info.Size())
	}
	_ = os.Remove(filepath.Dir(path)) // when it was the session's last
}

// sweep removes the objects that neither the kept checkpoints nor any
// index name, except young ones.
func (s *Store) sweep(keep []stored, c Collected) Collected {
	marked := map[string]bool{}
	mark := func(e *Entry) {
		if e == nil || marked[e.Hash] && (e.List == "" || marked[e.List]) {
			return
		}
		names, err := s.objects(e)
		if err != nil {
			// Keep what can be named of a damaged entry.
			marked[e.Hash], marked[e.List] = true, true
			return
		}
		for _, n := range names {
			marked[n] = true
		}
		marked[e.Hash] = true
	}
	for _, cp := range keep {
		loaded, err := s.Load(cp.id)
		if err != nil {
			continue
		}
		for _, ch := range loaded.Files {
			mark(ch.Before)
			mark(ch.After)
		}
	}
	for _, j := range s.journals() {
		for _, ch := range j.Files {
			mark(ch.Before)
		}
	}
	indexes, _ := os.ReadDir(filepath.Join(s.dir, "index"))
	for _, f := range indexes {
		b, err := os.ReadFile(filepath.Join(s.dir, "index", f.Name()))
		if err != nil {
			continue
		}
		_, files, err := decodeIndex(b)
		if err != nil {
			continue
		}
		for _, it := range files {
			mark(it.Entry)
		}
	}
	s.mu.Lock()
	for _, ix := range s.indexes {
		ix.refs.RLock()
		for _, it := range ix.files {
			mark(it.Entry)
		}
		for _, m := range ix.marks {
			for _, p := range m.log {
				mark(p.it.Entry) // an open step's pre-images
			}
		}
		ix.refs.RUnlock()
	}
	s.mu.Unlock()
	young := s.opts.Now().Add(-sweepGrace)
	root := filepath.Join(s.dir, "objects")
	dirs, _ := os.ReadDir(root)
	for _, d := range dirs {
		files, _ := os.ReadDir(filepath.Join(root, d.Name()))
		for _, f := range files {
			name := d.Name() + f.Name()
			if marked[name] || strings.HasPrefix(f.Name(), tmpPrefix) {
				continue
			}
			if _, err := hex.DecodeString(name); err != nil {
				continue
			}
			info, err := f.Info()
			if err != nil || info.ModTime().After(young) {
				continue
			}
			if os.Remove(filepath.Join(root, d.Name(), f.Name())) == nil {
				c.Objects++
				c.Bytes += info.Size()
				s.grew(-info.Size())
			}
		}
	}
	return c
}
