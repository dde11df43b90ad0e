package snapshot

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// incremental brings the last scan up to date from the watcher's changes
// instead of walking the tree: changed files are stated again, new
// directories are scanned (and watched). It reports false when it cannot
// vouch for the result (a changed ignore file, a directory it did not
// read, a flood of new entries); the caller then walks the whole tree.
func incremental(ctx context.Context, root string, last *scanResult, changes []change, known func(string) bool, w *watcher) (scanResult, bool) {
	if len(changes) == 0 {
		return *last, true // nothing changed; the maps are not modified by anyone
	}
	out := scanResult{files: maps.Clone(last.files), big: maps.Clone(last.big), skipped: last.skipped, dirs: maps.Clone(last.dirs)}
	dirty := map[string]bool{}
	created := map[string]int{}
	for _, c := range changes {
		ds, ok := last.dirs[c.dir]
		if !ok || c.name == ".gitignore" || c.name == "" {
			return scanResult{}, false
		}
		comps := append(slices.Clip(ds.comps), c.name)
		p := rel(comps)
		if c.isDir {
			if slices.Contains(ignoredDirs, c.name) || (ds.match != nil && ds.match.Match(comps, true)) {
				continue
			}
			if c.gone {
				forgetUnder(&out, p)
				continue
			}
			sub, err := scanFrom(ctx, root, comps, ds.rules, known, w)
			if err != nil {
				return scanResult{}, false
			}
			forgetUnder(&out, p)
			maps.Copy(out.files, sub.files)
			maps.Copy(out.big, sub.big)
			maps.Copy(out.dirs, sub.dirs)
			out.skipped = append(slices.Clip(out.skipped), sub.skipped...)
			continue
		}
		if ds.match != nil && ds.match.Match(comps, false) {
			continue
		}
		if !c.gone {
			if created[c.dir]++; created[c.dir] > MaxNewEntries {
				return scanResult{}, false // let a full scan apply the limit
			}
		}
		dirty[p] = true
	}
	for p := range dirty {
		delete(out.files, p)
		delete(out.big, p)
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || (!info.Mode().IsRegular() && info.Mode()&os.ModeSymlink == 0) {
			continue
		}
		if st := statOf(info); st.Size > MaxFileSize {
			out.big[p] = st
		} else {
			out.files[p] = st
		}
	}
	return out, true
}

// forgetUnder drops a directory's entries from a scan result.
func forgetUnder(r *scanResult, dir string) {
	prefix := dir + "/"
	for _, m := range []map[string]stat{r.files, r.big} {
		for k := range m {
			if strings.HasPrefix(k, prefix) {
				delete(m, k)
			}
		}
	}
	for k := range r.dirs {
		if k == dir || strings.HasPrefix(k, prefix) {
			delete(r.dirs, k)
		}
	}
}
