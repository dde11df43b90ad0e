package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// stagedFile is new content for a file, written and synced beside it but
// not yet in its place.
type stagedFile struct {
	tmp    string // the temporary file, in target's directory
	target string // the file it replaces, symbolic links resolved
}

// stageFile writes content to a temporary file in the directory of path
// (of its final target when path is a symbolic link), with the mode and,
// where the system allows, the owner of the file it will replace; a new
// file gets mode. Parent directories are created.
func stageFile(path string, content []byte, mode fs.FileMode) (*stagedFile, error) {
	target := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		target = resolved
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the directory of %s: %w", path, err)
	}
	old, statErr := os.Stat(target)
	if statErr == nil {
		mode = old.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".codeloop-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	s := &stagedFile{tmp: f.Name(), target: target}
	err = writeSynced(f, content, mode)
	if err == nil && statErr == nil {
		keepOwner(f, old)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.discard()
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	return s, nil
}

func writeSynced(f *os.File, content []byte, mode fs.FileMode) error {
	if _, err := f.Write(content); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	return f.Sync()
}

// commit renames the staged file over its target and syncs the directory,
// so that after a crash the target holds either its old or its new
// content, whole.
func (s *stagedFile) commit() error {
	if err := os.Rename(s.tmp, s.target); err != nil {
		s.discard()
		return fmt.Errorf("writing %s: %w", s.target, err)
	}
	syncDir(filepath.Dir(s.target))
	return nil
}

// discard removes the staged file.
func (s *stagedFile) discard() {
	if err := os.Remove(s.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		_ = err // a leftover temporary file is harmless and named as ours
	}
}

// syncDir makes a rename in dir durable. Systems that cannot sync a
// directory are left to their own ordering.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}

// writeAtomic replaces path with content through a staged file.
func writeAtomic(path string, content []byte, mode fs.FileMode) error {
	s, err := stageFile(path, content, mode)
	if err != nil {
		return err
	}
	return s.commit()
}
