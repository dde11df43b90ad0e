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

// maxScanRead bounds the new content one scan reads: the first scan of a
// project with gigabytes of untracked data keeps its smallest files (the
// source) at once and the rest over later steps, instead of stalling the
// step that runs the first shell command.
const maxScanRead = 64 << 20

// refresh scans ix's worktree and brings its tree up to date: the files
// whose stat changed, and those not read yet, are read and kept. It
// returns what is not kept: skipped paths, and files left unread. ix.mu
// is held. Its cost is what changed since the last refresh and what is
// left to read, not the size of the tree, once the tree is walked and
// watched.
//
// budget is the store size up to which it may add content: the scan
// before a step leaves room for what steps change, the scan after it may
// use the whole cap.
//
// since, when set, is the mark of the scan before the step: then only
// files that are new or changed since it are read, so the room left for
// the step's changes is not spent on files the step did not touch.
func (s *Store) refresh(ctx context.Context, ix *index, budget int64, since *mark) ([]Skip, error) {
	if err := s.scan(ctx, ix); err != nil {
		return nil, err
	}
	skipped := slices.Clip(ix.skips)
	var read int64
	full, deferred := false, false
	// Read small files first: when the store fills, source files are kept
	// and data is what is left out.
	var toRead []string
	for rel := range ix.pending {
		if since != nil {
			if was, ok := since.log[rel]; !ok || was.had && was.it.Stat == ix.files[rel].Stat {
				continue // untouched by the step, and not kept before it either
			}
		}
		toRead = append(toRead, rel)
	}
	slices.SortFunc(toRead, func(a, b string) int {
		return cmp.Or(cmp.Compare(ix.files[a].Stat.Size, ix.files[b].Stat.Size), strings.Compare(a, b))
	})
	for _, rel := range toRead {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st := ix.files[rel].Stat
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
		path := filepath.Join(ix.worktree, filepath.FromSlash(rel))
		e, err := s.keepPath(path)
		if err != nil {
			skipped = append(skipped, Skip{Path: rel, Reason: err.Error()})
			continue
		}
		if e == nil {
			continue // gone since the scan; the watcher tells the next one
		}
		now, err := os.Lstat(path)
		// Changed while it was read: keep what was read for this step,
		// but let the next scan read it again.
		stale := err != nil || statOf(now) != st
		ix.put(rel, indexed{Stat: st, Entry: e, stale: stale})
	}
	if ix.changed > 0 && s.opts.Now().Sub(ix.saved) > indexSaveEvery {
		if err := s.saveIndex(ix); err != nil {
			s.opts.Log.Warn("saving the snapshot index", "err", err)
		}
	}
	return skipped, nil
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

// scan brings ix's tree up to date: from the watcher's changes since the
// last scan when it can vouch for them (the first scan of a process takes
// the watcher back from the keeper the last run left, if any), else by
// walking the tree (and watching it anew), which compares every file found with the tree and
// drops those not found. ix.mu is held.
func (s *Store) scan(ctx context.Context, ix *index) error {
	if ix.watch == nil && !ix.walked && !ix.tookOver {
		ix.tookOver = true
		if s.takeOver(ix) {
			s.walks.keeper.Add(1)
		}
	}
	if ix.watch != nil && ix.walked {
		if changes, err := ix.watch.drain(); err == nil {
			if ix.incremental(ctx, changes) {
				s.walks.incremental.Add(1)
				return nil
			}
		}
	}
	if ix.watch != nil {
		ix.watch.close()
	}
	ix.watch, ix.walked = nil, false
	if !s.opts.NoWatch {
		ix.watch = newWatcher()
	}
	ix.seen = 0
	ix.exclude = excludeID(ix.worktree) // before the walk reads its rules
	res, err := scanTree(ctx, ix.worktree, ix.known, ix.watch, ix.found)
	if err != nil {
		return err
	}
	if ix.seen != len(ix.files) {
		// Files the walk did not find are gone (or now ignored): walk
		// again, noting each path, to tell which.
		seen := map[string]struct{}{}
		res, err = scanTree(ctx, ix.worktree, ix.known, nil, func(k []byte, st stat, big bool) {
			seen[string(k)] = struct{}{}
			ix.setStat(string(k), st, big)
		})
		if err != nil {
			return err
		}
		for k := range ix.files {
			if _, ok := seen[k]; !ok {
				ix.del(k)
			}
		}
	}
	ix.dirs, ix.skips, ix.walked = res.dirs, res.skipped, true
	s.walks.full.Add(1)
	return nil
}
