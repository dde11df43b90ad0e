package tool

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/permission"
)

// absPath makes p absolute against base and cleans it.
func absPath(base, p string) string {
	if p == "" {
		return filepath.Clean(base)
	}
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// realPath resolves the symbolic links of p, or of its longest existing
// ancestor when p does not exist yet, so that a link cannot hide where a
// path really points.
func realPath(p string) string {
	p = filepath.Clean(p)
	var rest []string
	cur := p
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// within reports whether p is dir or lies inside it (both clean, absolute).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// target is a path a tool is about to touch.
type target struct {
	path  string // absolute
	isDir bool
}

// externalDirs returns the external_directory patterns ("<dir>/*") for the
// targets that lie outside both the session directory dir and the project
// worktree, after resolving symbolic links. A worktree of "/" (no project)
// does not count.
func externalDirs(dir, worktree string, targets ...target) []string {
	var roots []string
	for _, r := range []string{dir, worktree} {
		if r == "" || filepath.Clean(r) == string(filepath.Separator) {
			continue
		}
		roots = append(roots, filepath.Clean(r), realPath(r))
	}
	var out []string
	for _, t := range targets {
		real := realPath(t.path)
		inside := false
		for _, r := range roots {
			if within(r, real) {
				inside = true
				break
			}
		}
		if inside {
			continue
		}
		d := real
		if !t.isDir {
			d = filepath.Dir(real)
		}
		pat := filepath.ToSlash(filepath.Join(d, "*"))
		if !slices.Contains(out, pat) {
			out = append(out, pat)
		}
	}
	return out
}

// askExternal asks external_directory permission for the targets outside
// the call's directory and worktree, one request per directory.
func askExternal(ctx context.Context, call *Call, targets ...target) error {
	for _, pat := range externalDirs(call.Dir, call.Worktree, targets...) {
		dir := strings.TrimSuffix(pat, "/*")
		err := call.Ask(ctx, permission.Request{
			Permission: "external_directory",
			Patterns:   []string{pat},
			Always:     []string{pat},
			Metadata:   map[string]any{"parentDir": filepath.FromSlash(dir)},
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// relPath is p relative to the call's worktree, with forward slashes, as
// permission patterns and titles show it.
func relPath(call *Call, p string) string {
	root := call.Worktree
	if root == "" {
		root = call.Dir
	}
	if root == "" {
		return filepath.ToSlash(p)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

// baseDir is where the call's relative paths start.
func baseDir(call *Call) string {
	if call.Dir != "" {
		return call.Dir
	}
	if call.Worktree != "" {
		return call.Worktree
	}
	wd, _ := os.Getwd()
	return wd
}
