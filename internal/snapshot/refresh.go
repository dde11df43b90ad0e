package snapshot

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// refresh scans worktree and brings its index up to date: files whose stat
// changed since the index last saw them are read and kept. It returns every
// kept file with its entry, the files too large to keep and the skipped
// paths.
// scanState is what one scan found: every file's stat, the entries of the
// files whose content is kept (not all: see Skip), the files too large to
// keep and what was skipped.
type scanState struct {
	entries map[string]indexed
	stats   map[string]stat
	big     map[string]stat
	skipped []Skip
}

// maxScanRead bounds the new content one scan reads: the first scan of a
// project with gigabytes of untracked data keeps its smallest files (the
// source) at once and the rest over later steps, instead of stalling the
// step that runs the first shell command.
const maxScanRead = 64 << 20

// refresh scans worktree (see above). budget is the store size up to which
// it may add content: the scan before a step leaves room for what steps
// change, the scan after it may use the whole cap.
//
// since, when set, is the scan before the step: then only files that are
// new or changed since it are read, so the room left for the step's changes
// is not spent on files the step did not touch.
func (s *Store) refresh(ctx context.Context, worktree string, budget int64, since *scanState) (*scanState, error) {
	s.mu.Lock()
	ix := s.indexFor(worktree)
	s.mu.Unlock()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	res, same, err := s.scan(ctx, ix)
	if err != nil {
		return nil, err
	}
	if same && ix.state != nil {
		// Nothing changed since the last refresh, which read every file
		// it had to: its result stands (no one modifies it).
		return ix.state, nil
	}
	ix.state = nil
	out := make(map[string]indexed, len(res.files))
	skipped := res.skipped
	var read int64
	full, deferred, reread := false, false, false
	// Read small files first: when the store fills, source files are kept
	// and data is what is left out. reread says a file was left for a
	// later scan to read.
	var toRead []string
	for rel, st := range res.files {
		if old, ok := ix.files[rel]; ok && old.Stat == st && old.Entry != nil {
			out[rel] = old
			continue
		}
		if since != nil {
			if was, ok := since.stats[rel]; ok && was == st {
				reread = true // a later scan may keep it
				continue      // untouched by the step, and not kept before it either
			}
		}
		toRead = append(toRead, rel)
	}
	slices.SortFunc(toRead, func(a, b string) int {
		return cmp.Or(cmp.Compare(res.files[a].Size, res.files[b].Size), strings.Compare(a, b))
	})
	for _, rel := range toRead {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st := res.files[rel]
		if !full && s.Size()+st.Size > budget {
			full = !s.makeRoom(budget)
		}
		if !full && !deferred && read+st.Size > maxScanRead && read > 0 {
			deferred = true
		}
		switch {
		case full:
			skipped = append(skipped, Skip{Path: rel, Reason: "the snapshot store is full (snapshot.max_size)"})
			continue
		case deferred:
			skipped = append(skipped, Skip{Path: rel, Reason: "not read yet: a scan reads at most 64 MiB of new files, later steps read the rest"})
			continue
		}
		read += st.Size
		path := filepath.Join(worktree, filepath.FromSlash(rel))
		e, err := s.keepPath(path)
		if err != nil {
			skipped = append(skipped, Skip{Path: rel, Reason: err.Error()})
			reread = true
			continue
		}
		if e == nil {
			continue // gone since the scan
		}
		now, err := os.Lstat(path)
		if err != nil || statOf(now) != st {
			// Changed while it was read: keep what was read for this
			// step, but let the next scan read it again.
			out[rel] = indexed{Stat: st, Entry: e}
			delete(ix.files, rel)
			ix.changed++
			reread = true
			continue
		}
		out[rel] = indexed{Stat: st, Entry: e}
		ix.files[rel] = out[rel]
		ix.changed++
	}
	for rel := range ix.files {
		if _, ok := res.files[rel]; !ok {
			delete(ix.files, rel)
			ix.changed++
		}
	}
	if ix.changed > 0 && s.opts.Now().Sub(ix.saved) > indexSaveEvery {
		if err := s.saveIndex(ix); err != nil {
			s.opts.Log.Warn("saving the snapshot index", "err", err)
		}
	}
	state := &scanState{entries: out, stats: res.files, big: res.big, skipped: skipped}
	if !full && !deferred && !reread {
		ix.state = state
	}
	return state, nil
}

// readRegularFile reads path, refusing anything that is not a regular file
// once opened (a FIFO put in its place would block the read forever).
func readRegularFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return io.ReadAll(f)
}

// scan finds the project's files: from the watcher's changes since the last
// scan when it can vouch for them, else by walking the tree (and watching
// it anew). It keeps the result for the next scan; ix.mu is held.
func (s *Store) scan(ctx context.Context, ix *index) (res scanResult, same bool, err error) {
	known := func(rel string) bool { _, ok := ix.files[rel]; return ok }
	if ix.watch != nil && ix.last != nil {
		if changes, err := ix.watch.drain(); err == nil {
			if res, ok := incremental(ctx, ix.worktree, ix.last, changes, known, ix.watch); ok {
				ix.last = &res
				s.walks.incremental.Add(1)
				return res, len(changes) == 0, nil
			}
		}
	}
	if ix.watch != nil {
		ix.watch.close()
	}
	ix.watch, ix.last = nil, nil
	if !s.opts.NoWatch {
		ix.watch = newWatcher()
	}
	res, err = scanTree(ctx, ix.worktree, known, ix.watch)
	if err != nil {
		return res, false, err
	}
	s.walks.full.Add(1)
	ix.last = &res
	return res, false, nil
}
