package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codeloop/codeloop/internal/id"
)

// Checkpoint is what one step (or one revert) changed.
type Checkpoint struct {
	ID       string    `json:"id"`
	Session  string    `json:"session"`
	Message  string    `json:"message,omitempty"`
	Worktree string    `json:"worktree"`
	Kind     string    `json:"kind"` // "step" or "revert"
	Created  time.Time `json:"created"`
	// Files maps each changed path (relative to the worktree with slashes,
	// or absolute when outside it) to its entries before and after.
	Files   map[string]*Change `json:"files"`
	Skipped []Skip             `json:"skipped,omitempty"`
}

// Change is a file before and after a checkpoint; nil is absent.
type Change struct {
	Before *Entry `json:"before"`
	After  *Entry `json:"after"`
}

// abs is the absolute path of a checkpoint's key.
func (c *Checkpoint) abs(key string) string {
	if filepath.IsAbs(key) {
		return key
	}
	return filepath.Join(c.Worktree, filepath.FromSlash(key))
}

// Patch is what Finish found a step changed.
type Patch struct {
	Files   []string // absolute paths, sorted
	Skipped []Skip   // changes that could not be kept
}

// step is an open checkpoint.
type step struct {
	mu      sync.Mutex
	cp      Checkpoint
	seq     int
	before  map[string]seqEntry // pre-images by key
	touched map[string]bool     // keys the built-in tools changed
	scanned bool
	// ix and pre are the worktree's index and the mark of the scan before
	// the first shell or MCP tool, until Finish.
	ix     *index
	pre    *mark
	preSeq int // the sequence number of pre's entries
}

// beforeOf is the content of key before the step: kept by BeforeChange,
// or found by the scan before the first shell or MCP tool (which is not
// copied into before: on a large project that copy cost as much as the
// scan). st.mu is held, not st.ix.mu.
func (st *step) beforeOf(k string) (seqEntry, bool) {
	if e, ok := st.before[k]; ok || st.pre == nil {
		return e, ok
	}
	st.ix.mu.Lock()
	defer st.ix.mu.Unlock()
	return st.beforeIn(k)
}

// beforeIn is beforeOf with st.ix.mu held.
func (st *step) beforeIn(k string) (seqEntry, bool) {
	if e, ok := st.before[k]; ok || st.pre == nil {
		return e, ok
	}
	if it, ok := st.ix.at(st.pre, k); ok && it.Entry != nil && !it.big {
		return seqEntry{st.preSeq, it.Entry}, true
	}
	return seqEntry{}, false
}

type seqEntry struct {
	seq   int
	entry *Entry
}

// Begin opens a checkpoint for a step of sessionID's message in worktree
// and returns its id. Until Finish, BeforeChange calls for the session
// record pre-images in it.
func (s *Store) Begin(_ context.Context, worktree, sessionID, messageID string) (string, error) {
	st := &step{cp: Checkpoint{ID: id.Ascending(id.Snapshot), Session: sessionID, Message: messageID,
		Worktree: filepath.Clean(worktree), Kind: "step", Created: s.opts.Now(), Files: map[string]*Change{}},
		before: map[string]seqEntry{}, touched: map[string]bool{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errors.New("the snapshot store is closed")
	}
	s.steps[st.cp.ID] = st
	s.current[sessionID] = st.cp.ID
	if wt := st.cp.Worktree; !s.warmed[wt] && !s.noScan(wt) {
		s.warmed[wt] = true
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.warm(wt)
		}()
	}
	return st.cp.ID, nil
}

// warm makes the first scan of worktree in this process in the
// background, while the step's model request is out, so that the scan
// before the step's first shell tool finds the index loaded, the tree
// watched and the files read, and asks the watcher only what changed
// since. On a project never scanned before this is the first snapshot,
// which reads every file; it never delays a model request.
func (s *Store) warm(worktree string) {
	s.mu.Lock()
	ix := s.indexFor(worktree)
	s.mu.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.walked {
		return
	}
	if _, err := s.refresh(s.bg, ix, s.scanShare(), nil); err != nil && s.bg.Err() == nil {
		s.opts.Log.Warn("scanning the project for snapshots", "dir", worktree, "err", err)
	}
}

func (s *Store) step(checkpoint string) *step {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.steps[checkpoint]
}

// key is the checkpoint key of an absolute path.
func (st *step) key(path string) string {
	r, err := filepath.Rel(st.cp.Worktree, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.Clean(path)
	}
	return filepath.ToSlash(r)
}

// BeforeChange keeps the current content of paths (absolute), which one of
// codeloop's tools is about to change, in sessionID's open checkpoint.
// Without an open checkpoint it does nothing.
func (s *Store) BeforeChange(_ context.Context, sessionID string, paths []string) error {
	s.mu.Lock()
	st := s.steps[s.current[sessionID]]
	s.mu.Unlock()
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	grown := false
	for _, p := range paths {
		k := st.key(p)
		grown = grown || !st.touched[k]
		st.touched[k] = true
		if _, ok := st.beforeOf(k); ok {
			continue
		}
		e, err := s.keepPath(p)
		if err != nil {
			return err
		}
		st.seq++
		st.before[k] = seqEntry{st.seq, e}
	}
	if grown {
		// Before the tool writes: a kill from here on leaves what
		// Recover needs to close the step.
		return s.saveJournal(st)
	}
	return nil
}

// BeforeTool is called before a tool of the checkpoint's step runs that
// may change files it does not name to BeforeChange (bash, MCP and custom
// tools; see tool.Traits.Contained). Before the first such tool, it scans
// the project, so Finish can tell what such tools changed.
func (s *Store) BeforeTool(ctx context.Context, checkpoint string) error {
	st := s.step(checkpoint)
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.scanned {
		return nil
	}
	st.scanned = true
	if s.noScan(st.cp.Worktree) {
		st.cp.Skipped = append(st.cp.Skipped, Skip{Path: st.cp.Worktree,
			Reason: "the project is the home or root directory: only files codeloop's own tools change are kept"})
		return nil
	}
	s.mu.Lock()
	ix := s.indexFor(st.cp.Worktree)
	s.mu.Unlock()
	ix.mu.Lock()
	skips, err := s.refresh(ctx, ix, s.scanShare(), nil)
	if err == nil {
		// The tree as it is now holds the step's pre-images, looked up
		// by beforeOf; the mark keeps them as they change.
		st.ix, st.pre = ix, ix.openMark(skips)
	}
	ix.mu.Unlock()
	if err != nil {
		return err
	}
	st.seq++
	st.preSeq = st.seq
	return s.saveJournal(st)
}

// noScan reports whether worktree is a directory never scanned: /, the
// home directory.
func (s *Store) noScan(worktree string) bool {
	return worktree == string(filepath.Separator) || (s.opts.Home != "" && worktree == filepath.Clean(s.opts.Home))
}

// keepPath keeps the file at path as it is now: nil when it does not exist.
// Directories and special files count as absent.
func (s *Store) keepPath(path string) (*Entry, error) {
	e, content, err := readEntry(path)
	if err != nil || e == nil {
		return e, err
	}
	stored, grown, err := s.putContent(content, e.Mode)
	s.grew(grown)
	return stored, err
}

// readEntry reads the file at path: its entry (not stored) and content.
func readEntry(path string) (*Entry, []byte, error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var content []byte
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return nil, nil, err
		}
		content = []byte(target)
	case info.Mode().IsRegular():
		content, err = readRegularFile(path)
		if err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, nil
	}
	return &Entry{Hash: hashOf(content), Size: int64(len(content)), Mode: info.Mode() & (fs.ModeSymlink | fs.ModePerm)}, content, nil
}

// Finish closes the checkpoint: it compares the project with the scan made
// before the step's first shell or MCP tool, reads what the built-in tools
// wrote, saves the checkpoint when anything changed and returns the
// changed files. The checkpoint id then names the step's patch.
func (s *Store) Finish(ctx context.Context, checkpoint string) (Patch, error) {
	s.mu.Lock()
	st := s.steps[checkpoint]
	if st != nil {
		delete(s.steps, checkpoint)
		if s.current[st.cp.Session] == checkpoint {
			delete(s.current, st.cp.Session)
		}
	}
	s.mu.Unlock()
	if st == nil {
		return Patch{}, nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	after := map[string]*Entry{}
	var unkept []Skip
	if st.pre != nil {
		var err error
		unkept, err = s.compare(ctx, st, after)
		if err != nil {
			return Patch{}, err
		}
	}
	for k := range st.touched {
		e, err := s.keepPath(st.cp.abs(k))
		if err != nil {
			return Patch{}, err
		}
		after[k] = e
	}
	st.cp.Skipped = append(st.cp.Skipped, summarize(unkept)...)
	var files []string
	for k, a := range after {
		was, _ := st.beforeOf(k)
		b := was.entry
		if same(b, a) {
			continue
		}
		st.cp.Files[k] = &Change{Before: b, After: a}
		files = append(files, st.cp.abs(k))
	}
	slices.Sort(files)
	if len(files) == 0 && len(st.cp.Skipped) == 0 {
		s.dropJournal(st.cp.Session, st.cp.ID)
		return Patch{}, nil
	}
	if err := s.saveCheckpoint(&st.cp); err != nil {
		return Patch{}, err
	}
	s.dropJournal(st.cp.Session, st.cp.ID)
	s.maybeCollect(st.cp.Session)
	return Patch{Files: files, Skipped: st.cp.Skipped}, nil
}

// skippedDirs returns a test of whether a key lies in one of the skipped
// directories, whose files a scan did not see.
func skippedDirs(skipped []Skip) func(string) bool {
	var dirs []string
	for _, sk := range skipped {
		if d, ok := strings.CutSuffix(sk.Path, "/"); ok {
			dirs = append(dirs, d+"/")
		}
	}
	return func(k string) bool {
		return slices.ContainsFunc(dirs, func(d string) bool { return d == "./" || strings.HasPrefix(k, d) })
	}
}

// checkpointFile is where a checkpoint of a session is saved.
func (s *Store) checkpointFile(session, cpID string) string {
	return filepath.Join(s.dir, "checkpoints", session, cpID+".json")
}

func (s *Store) saveCheckpoint(cp *Checkpoint) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(s.checkpointFile(cp.Session, cp.ID), b); err != nil {
		return fmt.Errorf("saving snapshot %s: %w", cp.ID, err)
	}
	s.grew(int64(len(b)))
	return nil
}

// ErrNotFound says a checkpoint is not (or no longer) in the store.
var ErrNotFound = errors.New("snapshot not found")

// notFound is the error for a well-formed checkpoint id the store does
// not hold: the collector drops checkpoints beyond the store's limits.
func notFound(cpID string) error {
	return fmt.Errorf("%s: %w (the store keeps checkpoints within its size, count and age limits)", cpID, ErrNotFound)
}

// Load reads a checkpoint, whichever session made it.
func (s *Store) Load(cpID string) (*Checkpoint, error) {
	if cpID == "" {
		return nil, errors.New("no snapshot id given")
	}
	if err := id.Check(id.Snapshot, cpID); err != nil {
		return nil, fmt.Errorf("%q is not a snapshot id: %w", cpID, err)
	}
	matches, _ := filepath.Glob(filepath.Join(s.dir, "checkpoints", "*", cpID+".json"))
	if len(matches) == 0 {
		return nil, notFound(cpID)
	}
	b, err := os.ReadFile(matches[0])
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound(cpID)
	}
	if err != nil {
		return nil, err
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, &CorruptError{Object: cpID, Reason: err.Error()}
	}
	return &cp, nil
}

// summarize keeps the first few skips of each reason and counts the rest.
func summarize(skips []Skip) []Skip {
	const keep = 5
	count := map[string]int{}
	var out []Skip
	for _, sk := range skips {
		count[sk.Reason]++
		if count[sk.Reason] <= keep {
			out = append(out, sk)
		}
	}
	for reason, n := range count {
		if n > keep {
			out = append(out, Skip{Path: fmt.Sprintf("%d more", n-keep), Reason: reason})
		}
	}
	return out
}
