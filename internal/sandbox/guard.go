package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Guard is what a confined command found of its policy's protected paths:
// those that did not exist and those that were symbolic links. A mount
// needs a file or directory to cover, so inside the sandbox these can be
// created or replaced; Restore undoes that once the command has ended.
type Guard struct {
	project string
	entries []guarded
}

// guarded is one protected path that is absent or a symbolic link.
type guarded struct {
	path string
	link string // the symbolic link's target; "" when path was absent
}

// Guard records the policy's protected paths that are absent or symbolic
// links. Call it before the confined command starts and Restore on the
// result after it ended.
func (p Policy) Guard() Guard {
	g := Guard{project: p.Project}
	for _, e := range p.protection() {
		info, err := os.Lstat(e.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			g.entries = append(g.entries, guarded{path: e.path})
		case err == nil && info.Mode()&fs.ModeSymlink != 0:
			if target, err := os.Readlink(e.path); err == nil {
				g.entries = append(g.entries, guarded{path: e.path, link: target})
			}
		}
	}
	return g
}

// Restore removes each protected path that was absent when g was recorded
// and exists now, and puts back each symbolic link that is no longer the
// same. It returns the paths it changed, sorted, and an error naming those
// it could not. It works beneath the project (or the git directory outside
// it the path belongs to) and follows no symbolic link out of it, whatever
// a command still running may put in its way.
func (g Guard) Restore() ([]string, error) {
	var changed []string
	var errs []error
	for _, e := range g.entries {
		if covered(e.path, changed) {
			continue // removed with a parent already
		}
		ok, err := g.restore(e)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			changed = append(changed, e.path)
		}
	}
	return changed, errors.Join(errs...)
}

// restore undoes what happened to e, reporting whether there was anything
// to undo.
func (g Guard) restore(e guarded) (bool, error) {
	base := filepath.Dir(e.path)
	if rel, err := filepath.Rel(g.project, e.path); err == nil && rel != "." && filepath.IsLocal(rel) {
		base = g.project
	}
	rel, err := filepath.Rel(base, e.path)
	if err != nil {
		return false, err
	}
	root, err := os.OpenRoot(base)
	if err != nil {
		return false, fmt.Errorf("checking %s: %w", e.path, err)
	}
	defer root.Close()
	info, err := root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if e.link == "" {
			return false, nil
		}
	case err != nil:
		return false, fmt.Errorf("checking %s: %w", e.path, err)
	case e.link != "" && info.Mode()&fs.ModeSymlink != 0:
		if target, err := root.Readlink(rel); err == nil && target == e.link {
			return false, nil
		}
	}
	if err := removeTree(root, rel); err != nil {
		return true, fmt.Errorf("removing %s, which a sandboxed command created: %w", e.path, err)
	}
	if e.link != "" {
		if err := root.Symlink(e.link, rel); err != nil {
			return true, fmt.Errorf("restoring the symbolic link %s: %w", e.path, err)
		}
	}
	return true, nil
}

// covered reports whether path lies beneath one of the removed paths.
func covered(path string, removed []string) bool {
	for _, r := range removed {
		if rel, err := filepath.Rel(r, path); err == nil && rel != "." && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// removeTree removes name in root and what lies beneath it, giving the
// owner access to directories a command made unreadable first.
func removeTree(root *os.Root, name string) error {
	if err := root.RemoveAll(name); err == nil {
		return nil
	}
	_ = fs.WalkDir(root.FS(), filepath.ToSlash(name), func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = root.Chmod(filepath.FromSlash(p), 0o700)
		}
		return nil
	})
	return root.RemoveAll(name)
}
