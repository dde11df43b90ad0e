//go:build linux

package snapshot

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Between two runs, a project's change watcher is kept by a keeper: a
// process the first Close starts (Options.Keeper, running Main) with the
// watch's descriptor. It reads what the kernel reports while no codeloop
// runs, hands the descriptor with those events to the next run through a
// socket in the store, and takes it back at that run's Close; it exits
// when no run came for keeperIdle or the store is gone. A run then knows
// what changed while no codeloop ran without walking the project: the
// saved index, the files the last run changed since saving it (which the
// keep file names), and the watch's events since the last run's last scan
// are the tree as it is. Anything that does not match (another process
// saved the index or gave the keeper its watcher since, the watch lost
// track, .git/info/exclude changed) leaves the run to walk the project as
// without a keeper.

// keepState is what a run leaves in the keep file for the next to take
// the watcher back: the keeper's token, the saved index it goes with, the
// directories read and the files to state again.
type keepState struct {
	Token   string         `json:"token"`
	Gen     uint64         `json:"gen"` // the keeper's count of watchers given to it
	Index   fileID         `json:"index"`
	Exclude fileID         `json:"exclude"` // .git/info/exclude; zero when there is none
	Watches map[int]string `json:"watches"`
	Dirs    []keptDir      `json:"dirs"`
	Redo    []string       `json:"redo"`
}

// keptDir is a directory the last run read.
type keptDir struct {
	Rel        string `json:"rel"`
	IgnoreFile bool   `json:"ignore_file,omitempty"`
}

// keepFile and keepSocket are where a worktree's keep state and its
// keeper's socket are.
func (s *Store) keepFile(worktree string) string {
	return strings.TrimSuffix(s.indexFile(worktree), ".idx") + ".keep"
}

func (s *Store) keepSocket(worktree string) string {
	return strings.TrimSuffix(s.indexFile(worktree), ".idx") + ".sock"
}

// keepStateOf is what ix leaves for the next run; ix.mu is held and the
// index saved.
func keepStateOf(ix *index, token string, gen uint64) keepState {
	st := keepState{Token: token, Gen: gen, Index: ix.file, Exclude: ix.exclude, Watches: ix.watch.watches()}
	for rel, d := range ix.dirs {
		st.Dirs = append(st.Dirs, keptDir{Rel: rel, IgnoreFile: d.ignoreFile})
	}
	// Files the saved index does not tell as they are: changed since it
	// was saved, or not written to it.
	for k := range ix.dirty {
		st.Redo = append(st.Redo, k)
	}
	for k, it := range ix.files {
		e := it.Entry
		if _, ok := ix.dirty[k]; !ok && (it.big || it.stale || e != nil && (!validHash(e.Hash) || e.List != "" && !validHash(e.List))) {
			st.Redo = append(st.Redo, k)
		}
	}
	return st
}

// rebuildDirs makes the directories of a keep state with their ignore
// rules, read anew; false when a directory's parent is missing.
func rebuildDirs(worktree string, kept []keptDir) (map[string]dirState, bool) {
	// Parents first: the root, then by depth.
	depth := func(rel string) int {
		if rel == "." {
			return 0
		}
		return strings.Count(rel, "/") + 1
	}
	slices.SortFunc(kept, func(a, b keptDir) int { return depth(a.Rel) - depth(b.Rel) })
	dirs := make(map[string]dirState, len(kept))
	for _, d := range kept {
		var comps []string
		var rules []gitignore.Pattern
		if d.Rel == "." {
			rules = readIgnore(filepath.Join(worktree, ".git", "info", "exclude"), nil)
		} else {
			parent, ok := dirs[path.Dir(d.Rel)]
			if !ok {
				return nil, false
			}
			comps = append(slices.Clip(parent.comps), path.Base(d.Rel))
			rules = parent.rules
		}
		if d.IgnoreFile {
			rules = append(slices.Clip(rules), readIgnore(filepath.Join(worktree, filepath.FromSlash(d.Rel), ".gitignore"), comps)...)
		}
		ds := dirState{comps: comps, rules: rules, ignoreFile: d.IgnoreFile}
		if len(rules) > 0 {
			ds.match = gitignore.NewMatcher(rules)
		}
		dirs[d.Rel] = ds
	}
	return dirs, true
}

// redoChanges are the changes that make a scan state the files of redo
// again.
func redoChanges(redo []string) []change {
	out := make([]change, 0, len(redo))
	for _, k := range redo {
		out = append(out, change{dir: path.Dir(k), name: path.Base(k), restat: true})
	}
	return out
}
