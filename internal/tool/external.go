package tool

import (
	"context"
	"os"
	"path/filepath"
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
// worktree. The permission package decides, resolving symbolic links
// (dangling ones included) and ".." the way the system does.
func externalDirs(dir, worktree string, targets ...target) []string {
	paths := make([]string, 0, len(targets))
	for _, t := range targets {
		paths = append(paths, t.path)
	}
	return permission.ExternalDirs(paths, dir, worktree)
}

// askExternal asks external_directory permission for the targets outside
// the call's directory and worktree, one request per directory.
func askExternal(ctx context.Context, call *Call, targets ...target) error {
	_, err := askExternalDirs(ctx, call, targets...)
	return err
}

// askExternalDirs is askExternal, returning the external_directory
// patterns it asked about (and the user allowed).
func askExternalDirs(ctx context.Context, call *Call, targets ...target) ([]string, error) {
	dirs := externalDirs(call.Dir, call.Worktree, targets...)
	for _, pat := range dirs {
		dir := strings.TrimSuffix(pat, "/*")
		err := call.Ask(ctx, permission.Request{
			Permission: "external_directory",
			Patterns:   []string{pat},
			Always:     []string{pat},
			Metadata:   map[string]any{"parentDir": filepath.FromSlash(dir)},
		})
		if err != nil {
			return nil, err
		}
	}
	return dirs, nil
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
