package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
)

// landingCheck returns the check a file tool's write makes where the file
// lands, its directory's symbolic links resolved as the write opened it:
// a directory outside the project must be one of external, those the
// permission check asked about, and a protected path must have been asked
// about as one (protected). A directory of the project swapped for a
// symbolic link after the check, by a command still running, thus cannot
// move the write outside the project or into git's or codeloop's files.
func landingCheck(call *Call, external []string, protected bool) func(string) error {
	return func(path string) error {
		for _, pat := range externalDirs(call.Dir, call.Worktree, target{path: path}) {
			if !slices.Contains(external, pat) {
				return fmt.Errorf("it lands in %s, outside the project, which the permission check did not see: a directory on its way changed after the check", filepath.Dir(path))
			}
		}
		if !protected {
			if reason, ok := ProtectedPath(call.Worktree, baseDir(call), path); ok {
				return fmt.Errorf("it lands on %s (%s), which the permission check did not see: a directory on its way changed after the check", path, reason)
			}
		}
		return nil
	}
}

// removeChecked removes path in its directory opened once, after check
// (when not nil) has seen the path with the directory's symbolic links
// resolved. A file that does not exist is no error.
func removeChecked(path string, check func(string) error) error {
	root, err := openChecked(filepath.Dir(path), filepath.Base(path), check)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	defer root.Close()
	if err := root.Remove(filepath.Base(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", path, err)
	}
	return nil
}
