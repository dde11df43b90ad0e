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
	var g Guard
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
// it could not.
func (g Guard) Restore() ([]string, error) {
	var changed []string
	var errs []error
	for _, e := range g.entries {
		if g.covered(e.path, changed) {
			continue // removed with a parent already
		}
		info, err := os.Lstat(e.path)
		if errors.Is(err, fs.ErrNotExist) {
			if e.link == "" {
				continue
			}
		} else if err != nil {
			errs = append(errs, err)
			continue
		} else if e.link == "" {
			// created by the command
		} else if info.Mode()&fs.ModeSymlink != 0 {
			if target, err := os.Readlink(e.path); err == nil && target == e.link {
				continue
			}
		}
		if err := removeTree(e.path); err != nil {
			errs = append(errs, fmt.Errorf("removing %s, which a sandboxed command created: %w", e.path, err))
			continue
		}
		if e.link != "" {
			if err := os.Symlink(e.link, e.path); err != nil {
				errs = append(errs, fmt.Errorf("restoring the symbolic link %s: %w", e.path, err))
				continue
			}
		}
		changed = append(changed, e.path)
	}
	return changed, errors.Join(errs...)
}

// covered reports whether path lies beneath one of the removed paths.
func (g Guard) covered(path string, removed []string) bool {
	for _, r := range removed {
		if rel, err := filepath.Rel(r, path); err == nil && rel != "." && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// removeTree removes path and what lies beneath it, giving the owner
// access to directories a command made unreadable first.
func removeTree(path string) error {
	if err := os.RemoveAll(path); err == nil {
		return nil
	}
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(path)
}
