package tool

import (
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
// (of its final target when path is a symbolic link, even one whose target
// does not exist yet), with the mode (special bits included) and, where
// the system allows, the owner of the file it will replace; a new file gets
// mode. Parent directories are created.
func stageFile(path string, content []byte, mode fs.FileMode) (*stagedFile, error) {
	target, err := linkTarget(path)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the directory of %s: %w", path, err)
	}
	old, statErr := os.Stat(target)
	if statErr == nil {
		mode = old.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	f, err := os.CreateTemp(dir, stagedPattern(target))
	if err != nil {
		return nil, fmt.Errorf("writing %s: cannot create a temporary file beside it: %w", path, err)
	}
	s := &stagedFile{tmp: f.Name(), target: target}
	if _, err = f.Write(content); err == nil {
		if statErr == nil {
			keepOwner(f, old) // before the mode: a change of owner clears set-id bits
		}
		if err = f.Chmod(mode); err == nil {
			err = f.Sync()
		}
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

// maxLinks bounds the symbolic links followed from one path, as the
// system's own limit does.
const maxLinks = 40

// linkTarget follows path through symbolic links to the file a write
// should replace. Unlike filepath.EvalSymlinks it accepts a final target
// that does not exist: writing through a dangling link creates the file
// the link names, as writing in place would.
func linkTarget(path string) (string, error) {
	for range maxLinks {
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			return path, nil // not a link (or nothing there): this is the target
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("more than %d symbolic links to follow", maxLinks)
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

// discard removes the staged file. A file that cannot be removed is left:
// its name marks it as codeloop's and it harms nothing.
func (s *stagedFile) discard() { _ = os.Remove(s.tmp) }

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
