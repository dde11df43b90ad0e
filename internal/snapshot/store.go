package snapshot

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codeloop/codeloop/internal/proc"
	"github.com/klauspost/compress/zstd"
)

// Defaults of the store's bounds.
const (
	DefaultMaxSize        = 1 << 30
	DefaultMaxCheckpoints = 100
	DefaultRetention      = 30 * 24 * time.Hour
)

// Options configure a Store.
type Options struct {
	// Dir is the store's directory (the data directory's snapshot/).
	Dir string
	// MaxSize bounds the bytes of all objects and checkpoints
	// (DefaultMaxSize when zero).
	MaxSize int64
	// MaxCheckpoints bounds the checkpoints kept per session
	// (DefaultMaxCheckpoints when zero).
	MaxCheckpoints int
	// Retention is how long checkpoints are kept (DefaultRetention when
	// zero).
	Retention time.Duration
	// Home is the user's home directory: a project rooted there (or at /)
	// is never scanned.
	Home string
	Log  *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// NoWatch makes every scan walk the whole project instead of asking
	// the system which files changed since the last one.
	NoWatch bool
	// Keeper is the executable that keeps a project's change watcher
	// between runs (one whose main calls Main first); none when empty.
	// When set, Close hands the watcher of each project it walked to a
	// keeper process, and the next run takes it back with what changed
	// meanwhile instead of walking the project again.
	Keeper string
}

// Store is a project-independent snapshot store. It is safe for
// concurrent use.
type Store struct {
	opts Options
	dir  string

	// codecMu guards the codecs, made when first needed: a run that
	// writes and reads no object (nothing changed) spares their memory.
	codecMu sync.Mutex
	enc     *zstd.Encoder
	dec     *zstd.Decoder

	mu      sync.Mutex
	indexes map[string]*index // by worktree
	steps   map[string]*step  // open checkpoints by id
	current map[string]string // session id → its open checkpoint
	warmed  map[string]bool   // worktrees whose first scan has been started
	closed  bool

	// stop ends the scans started in the background; wg waits for them.
	stop context.CancelFunc
	bg   context.Context
	wg   sync.WaitGroup

	sizeMu sync.Mutex
	size   int64 // bytes in the store; -1 until measured
	delta  int64 // bytes this process added (less what it removed)
	// futileAt is the size after the last collection: a store no larger
	// is not collected again for room.
	futileAt int64

	// walks count the scans that walked the tree and those the watcher
	// spared, and the watchers taken back from a keeper.
	walks struct{ full, incremental, keeper atomic.Int64 }
}

// Open opens (creating) the store in opts.Dir and removes the temporary
// files an interrupted write left there.
func Open(opts Options) (*Store, error) {
	if opts.MaxSize <= 0 {
		opts.MaxSize = DefaultMaxSize
	}
	if opts.MaxCheckpoints <= 0 {
		opts.MaxCheckpoints = DefaultMaxCheckpoints
	}
	if opts.Retention <= 0 {
		opts.Retention = DefaultRetention
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	for _, d := range []string{"objects", "checkpoints", "index"} {
		if err := os.MkdirAll(filepath.Join(opts.Dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("creating the snapshot store: %w", err)
		}
	}
	s := &Store{opts: opts, dir: opts.Dir,
		indexes: map[string]*index{}, steps: map[string]*step{}, current: map[string]string{}, warmed: map[string]bool{}, size: -1}
	s.bg, s.stop = context.WithCancel(context.Background())
	if n, ok := s.takeSize(); ok {
		s.size = n
	} else if n := s.removeTemp(); n > 0 {
		opts.Log.Info("removed interrupted snapshot writes", "files", n)
	}
	return s, nil
}

// Close saves the indexes and releases the codecs. Open checkpoints are
// dropped.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.stop()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, ix := range s.indexes {
		ix.mu.Lock()
		err := s.saveIndex(ix)
		errs = append(errs, err)
		if ix.watch != nil && (err != nil || !s.handOver(ix)) {
			ix.watch.close()
		}
		ix.mu.Unlock()
	}
	errs = append(errs, s.saveSize())
	s.codecMu.Lock()
	if s.enc != nil {
		s.enc.Close()
	}
	if s.dec != nil {
		s.dec.Close()
	}
	s.codecMu.Unlock()
	return errors.Join(errs...)
}

// encoder returns the store's compressor, making it the first time.
func (s *Store) encoder() (*zstd.Encoder, error) {
	s.codecMu.Lock()
	defer s.codecMu.Unlock()
	if s.enc == nil {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithLowerEncoderMem(true)) // its tables are most of a run's garbage when a file or two changed
		if err != nil {
			return nil, fmt.Errorf("making the snapshot compressor: %w", err)
		}
		s.enc = enc
	}
	return s.enc, nil
}

// decoder returns the store's decompressor, making it the first time.
func (s *Store) decoder() (*zstd.Decoder, error) {
	s.codecMu.Lock()
	defer s.codecMu.Unlock()
	if s.dec == nil {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("making the snapshot decompressor: %w", err)
		}
		s.dec = dec
	}
	return s.dec, nil
}

// staleTempAge is how old a temporary file that names no process must be
// before removeTemp deletes it.
const staleTempAge = time.Hour

// removeTemp deletes the temporary files left by interrupted writes: those
// of processes that have ended, and old ones that name no process. Those
// of live processes (another codeloop sharing the store) are left.
func (s *Store) removeTemp() int {
	n := 0
	now := time.Now()
	_ = filepath.WalkDir(s.dir, func(path string, d fs.DirEntry, err error) error {
		rest, ok := strings.CutPrefix(d.Name(), tmpPrefix)
		if err != nil || d.IsDir() || !ok {
			return nil
		}
		if pid, _, named := strings.Cut(rest, "-"); named {
			if p, err := strconv.Atoi(pid); err == nil && proc.Alive(p) {
				return nil
			}
		} else if info, err := d.Info(); err != nil || now.Sub(info.ModTime()) < staleTempAge {
			return nil
		}
		if os.Remove(path) == nil {
			n++
		}
		return nil
	})
	return n
}

// index is the stat index of one worktree and its live tree: every file
// the last scan found, with its stat and, once read, its kept content.
// Before the first walk of a process it holds the index loaded from its
// file, which the walk checks file by file.
type index struct {
	mu sync.Mutex // held while a scan updates the index
	// refs is write-locked, with mu held, to change files or marks, and
	// read-locked by a collection, which reads them without mu: the
	// goroutine collecting may hold mu of this index or another already.
	refs     sync.RWMutex
	worktree string
	watch    *watcher // changes since the last scan; nil when not watching
	// walked says the tree was walked in this process and watch, when
	// set, has watched it since: a scan then asks watch what changed.
	walked bool
	dirs   map[string]dirState // the directories read, by relative path ("." is the root)
	// skips are what the walks left out (unreadable or flooded
	// directories).
	skips []Skip
	files map[string]indexed
	// pending are the files whose content is not kept (or was read while
	// it changed): the next refresh reads them.
	pending map[string]struct{}
	// marks are the open steps' records of what changed since their
	// scan; every change of files is logged in each.
	marks []*mark
	// seen counts the files of the tree a walk found, to tell whether it
	// missed some, which are then gone.
	seen int
	// changed counts the entries changed since the index was loaded or
	// saved, and dirty names them (while they are few, see markDirty);
	// loaded says it was read from its file, which file identifies.
	changed int
	dirty   map[string]struct{}
	loaded  bool
	file    fileID
	saved   time.Time
	// tookOver says the process tried to take the watcher back from a
	// keeper; exclude is the .git/info/exclude whose rules the tree
	// follows.
	tookOver bool
	exclude  fileID
}

// indexed is a file of the tree: its stat and, when read, its content.
type indexed struct {
	Stat  stat   `json:"t"`
	Entry *Entry `json:"e"`
	big   bool   // over MaxFileSize: compared, never kept
	stale bool   // changed while it was read: Entry is this step's, not the stat's
}

// mark is an open step's record of the tree at its scan before the first
// shell or MCP tool: the first time a file changes after it, its state
// before is logged, so what the step changed is the log's paths and not a
// comparison of every path.
type mark struct {
	log   map[string]prior
	skips []Skip // what the scan left out
}

// prior is a file's state when the mark was made; had is false when it
// did not exist.
type prior struct {
	it  indexed
	had bool
}

// put sets a file's state, logging its old one in the open marks.
func (ix *index) put(k string, it indexed) {
	old, had := ix.files[k]
	if had && old == it {
		return
	}
	ix.refs.Lock()
	ix.logOld(k, old, had)
	ix.files[k] = it
	ix.refs.Unlock()
	if it.big || (it.Entry != nil && !it.stale) {
		delete(ix.pending, k)
	} else {
		ix.pending[k] = struct{}{}
	}
	ix.markDirty(k)
}

// del drops a file, logging its old state in the open marks.
func (ix *index) del(k string) {
	old, had := ix.files[k]
	if !had {
		return
	}
	ix.refs.Lock()
	ix.logOld(k, old, true)
	delete(ix.files, k)
	ix.refs.Unlock()
	delete(ix.pending, k)
	ix.markDirty(k)
}

// markDirty counts a change of k. It names at most indexMinChanges keys:
// an index changed more is saved before a keeper is given its watcher, so
// the keys are needed only while it is not.
func (ix *index) markDirty(k string) {
	ix.changed++
	if len(ix.dirty) < indexMinChanges {
		ix.dirty[k] = struct{}{}
	}
}

func (ix *index) logOld(k string, old indexed, had bool) {
	for _, m := range ix.marks {
		if _, ok := m.log[k]; !ok {
			m.log[k] = prior{old, had}
		}
	}
}

// setStat records what a scan found of a file: its content stays kept
// when its stat did not change.
func (ix *index) setStat(k string, st stat, big bool) {
	if old, ok := ix.files[k]; ok && old.Stat == st && old.big == big {
		return
	}
	ix.put(k, indexed{Stat: st, big: big})
}

// found is setStat for a walk, counting in ix.seen the files it found
// that the tree holds. It makes a string of k only for a file new to the
// tree.
func (ix *index) found(k []byte, st stat, big bool) {
	old, ok := ix.files[string(k)]
	if ok {
		ix.seen++
		if old.Stat == st && old.big == big {
			return
		}
	}
	ix.setStat(string(k), st, big)
	if !ok {
		ix.seen++
	}
}

// at is file k as mark m saw it; ix.mu is held.
func (ix *index) at(m *mark, k string) (indexed, bool) {
	if p, ok := m.log[k]; ok {
		return p.it, p.had
	}
	it, ok := ix.files[k]
	return it, ok
}

// openMark starts logging changes for a step; ix.mu is held.
func (ix *index) openMark(skips []Skip) *mark {
	m := &mark{log: map[string]prior{}, skips: skips}
	ix.refs.Lock()
	ix.marks = append(ix.marks, m)
	ix.refs.Unlock()
	return m
}

// closeMark stops logging for m; ix.mu is held.
func (ix *index) closeMark(m *mark) {
	ix.refs.Lock()
	ix.marks = slices.DeleteFunc(ix.marks, func(o *mark) bool { return o == m })
	ix.refs.Unlock()
}

// indexSaveEvery is how often a changed index is saved while the store is
// open; Close saves it too.
const indexSaveEvery = 5 * time.Second

// indexFile is where the index of worktree is saved.
func (s *Store) indexFile(worktree string) string {
	sum := sha256.Sum256([]byte(worktree))
	return filepath.Join(s.dir, "index", hex.EncodeToString(sum[:12])+".idx")
}

// indexFor returns worktree's index, loading it the first time. s.mu is
// held.
func (s *Store) indexFor(worktree string) *index {
	if ix, ok := s.indexes[worktree]; ok {
		return ix
	}
	ix := &index{worktree: worktree, files: map[string]indexed{}, pending: map[string]struct{}{}, dirs: map[string]dirState{},
		dirty: map[string]struct{}{}}
	if b, id, err := readFileID(s.indexFile(worktree)); err == nil {
		if wt, files, err := decodeIndex(b); err == nil && wt == worktree {
			ix.files, ix.loaded, ix.file = files, true, id
			for k, it := range files {
				if it.Entry == nil {
					ix.pending[k] = struct{}{}
				}
			}
		}
	}
	s.indexes[worktree] = ix
	return ix
}

// indexMinChanges is how many entries of an index read from its file
// must change before it is written again: an index is a cache, and a few
// stale entries cost the next run a few reads, less than writing the
// whole index.
const indexMinChanges = 32

// saveIndex writes ix when it changed enough. An index is a cache: an
// entry is true of any file with its stat, so an old or lost one costs
// only reads.
func (s *Store) saveIndex(ix *index) error {
	if ix.changed == 0 || ix.loaded && ix.changed < indexMinChanges {
		return nil
	}
	b := encodeIndex(ix.worktree, ix.files)
	id, err := writeFileAtomicID(s.indexFile(ix.worktree), b)
	if err != nil {
		return fmt.Errorf("saving the snapshot index: %w", err)
	}
	ix.changed, ix.loaded, ix.file = 0, true, id
	clear(ix.dirty)
	ix.saved = s.opts.Now()
	return nil
}
