package permission

import (
	"os"
	"path/filepath"
	"strings"
)

// ExternalDirs returns the external_directory patterns to ask for before
// touching paths: "<dir>/*" for each path outside both the session
// directory dir and the project worktree, where <dir> is the path itself
// when it is an existing directory and its parent otherwise. A worktree of
// "/" (a project without version control) is ignored. Relative paths are
// taken from dir, "~" and "~/…" from the home directory; symbolic links
// are resolved on the longest existing prefix, and ".." is resolved the way
// the system does, so neither can lead outside unnoticed. Patterns are
// returned once each, in the order of the paths.
func ExternalDirs(paths []string, dir, worktree string) []string {
	var roots []string
	for _, r := range []string{dir, worktree} {
		if r == "" || filepath.Clean(r) == string(filepath.Separator) {
			continue
		}
		roots = append(roots, resolvePath(r, ""))
	}
	var out []string
	seen := make(map[string]bool)
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs := resolvePath(expandTilde(p), dir)
		if within(abs, roots) {
			continue
		}
		parent := abs
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			parent = filepath.Dir(abs)
		}
		pattern := filepath.Join(parent, "*")
		if !seen[pattern] {
			seen[pattern] = true
			out = append(out, pattern)
		}
	}
	return out
}

// ExternalRequest is the external_directory request for paths outside dir
// and worktree, and false when there are none.
func ExternalRequest(paths []string, dir, worktree string) (Request, bool) {
	dirs := ExternalDirs(paths, dir, worktree)
	if len(dirs) == 0 {
		return Request{}, false
	}
	return Request{
		Permission: "external_directory",
		Patterns:   dirs,
		Always:     dirs,
		Metadata:   map[string]any{"paths": paths},
	}, true
}

func expandTilde(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, p[1:])
}

// within reports whether p is one of roots or below one.
func within(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || strings.HasPrefix(p, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// resolvePath makes p absolute (relative to base) and resolves it as the
// system would: component by component, following symbolic links while
// the components exist (and dangling links to where they point), and ".."
// from where the links led.
func resolvePath(p, base string) string { return resolveDepth(p, base, 0) }

// maxLinks bounds the links followed through dangling links, as the
// system's own limit does.
const maxLinks = 40

func resolveDepth(p, base string, depth int) string {
	if !filepath.IsAbs(p) {
		if base == "" {
			base, _ = os.Getwd()
		}
		// Not filepath.Join: cleaning "link/.." away would skip the link.
		p = resolveDepth(base, "/", depth) + string(filepath.Separator) + p
	}
	vol := filepath.VolumeName(p)
	cur := vol + string(filepath.Separator)
	for _, part := range strings.Split(filepath.ToSlash(p[len(vol):]), "/") {
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		if r, err := filepath.EvalSymlinks(next); err == nil {
			next = r
		} else if target, err := os.Readlink(next); err == nil && depth < maxLinks {
			// A dangling link: writing through it creates its target.
			next = resolveDepth(target, cur, depth+1)
		}
		cur = next
	}
	return cur
}
