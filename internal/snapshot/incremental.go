package snapshot

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// incremental brings ix's tree up to date from the watcher's changes
// instead of walking it: changed files are stated again, new directories
// are scanned (and watched). It reports false when it cannot vouch for the
// result (a changed ignore file, a directory it did not read, a flood of
// new entries); the caller then walks the whole tree, which corrects
// whatever this left half done. ix.mu is held.
func (ix *index) incremental(ctx context.Context, changes []change) bool {
	dirty := map[string]bool{}
	created := map[string]int{}
	for _, c := range changes {
		ds, ok := ix.dirs[c.dir]
		if !ok || c.name == ".gitignore" && !c.restat || c.name == "" {
			return false
		}
		comps := append(slices.Clip(ds.comps), c.name)
		p := rel(comps)
		if c.isDir {
			if slices.Contains(ignoredDirs, c.name) || (ds.match != nil && ds.match.Match(comps, true)) {
				continue
			}
			if c.gone {
				ix.forgetUnder(p, nil)
				continue
			}
			seen := map[string]bool{}
			sub, err := scanFrom(ctx, ix.worktree, comps, ds.rules, ix.known, ix.watch, func(k []byte, st stat, big bool) {
				seen[string(k)] = true
				ix.setStat(string(k), st, big)
			})
			if err != nil {
				return false
			}
			ix.forgetUnder(p, seen)
			maps.Copy(ix.dirs, sub.dirs)
			ix.skips = append(slices.Clip(ix.skips), sub.skipped...)
			continue
		}
		if ds.match != nil && ds.match.Match(comps, false) {
			continue
		}
		if !c.gone {
			if created[c.dir]++; created[c.dir] > MaxNewEntries {
				return false // let a full scan apply the limit
			}
		}
		dirty[p] = true
	}
	for p := range dirty {
		info, err := os.Lstat(filepath.Join(ix.worktree, filepath.FromSlash(p)))
		if err != nil || (!info.Mode().IsRegular() && info.Mode()&os.ModeSymlink == 0) {
			ix.del(p)
			continue
		}
		st := statOf(info)
		ix.setStat(p, st, st.Size > MaxFileSize)
	}
	return true
}

// known reports whether a path is in the tree; ix.mu is held.
func (ix *index) known(rel string) bool {
	_, ok := ix.files[rel]
	return ok
}

// forgetUnder drops the files below directory dir but those in keep, and
// the directories at and below dir (a scan of dir adds back those it
// read).
func (ix *index) forgetUnder(dir string, keep map[string]bool) {
	prefix := dir + "/"
	for k := range ix.files {
		if strings.HasPrefix(k, prefix) && !keep[k] {
			ix.del(k)
		}
	}
	for k := range ix.dirs {
		if k == dir || strings.HasPrefix(k, prefix) {
			delete(ix.dirs, k)
		}
	}
}
