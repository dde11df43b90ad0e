package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// stagedFile is new content for a file, written and synced beside it but
// not yet in its place.
type stagedFile struct {
	tmp    string   // the temporary file, in target's directory
	target string   // the file it replaces, symbolic links resolved
	dir    *os.Root // target's directory, opened once: creating, renaming
	// and removing happen in it, whatever its path names by then
}

// stageFile writes content to a temporary file in the directory of path
// (of its final target when path is a symbolic link, even one whose target
// does not exist yet), with the mode (special bits included) and, where
// the system allows, the owner of the file it will replace; a new file gets
// mode. Parent directories are created.
//
// The directory is opened once and the file staged and later renamed in
// it, so a directory swapped for a symbolic link meanwhile does not move
// the write elsewhere. check, when not nil, is given the file's path with
// the directory's symbolic links resolved, as opened, and stops the write
// when it returns an error.
func stageFile(path string, content []byte, mode fs.FileMode, check func(string) error) (*stagedFile, error) {
	target, err := linkTarget(path)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the directory of %s: %w", path, err)
	}
	root, err := openChecked(dir, filepath.Base(target), check)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", path, err)
	}
	name := filepath.Base(target)
	old, statErr := root.Stat(name)
	if statErr == nil {
		mode = old.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	}
	f, tmp, err := createTemp(root, stagedPattern(target))
	if err != nil {
		root.Close()
		return nil, fmt.Errorf("writing %s: cannot create a temporary file beside it: %w", path, err)
	}
	s := &stagedFile{tmp: filepath.Join(dir, tmp), target: target, dir: root}
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

// openChecked opens dir and, with check, gives check the path of name in
// it with dir's symbolic links resolved. The directory opened must be the
// one that path names, or the write stops: it changed in between.
func openChecked(dir, name string, check func(string) error) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil || check == nil {
		return root, err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		var opened, named fs.FileInfo
		if opened, err = root.Stat("."); err == nil {
			if named, err = os.Stat(real); err == nil && !os.SameFile(opened, named) {
				err = errors.New("its directory changed while it was being written")
			}
		}
	}
	if err == nil {
		err = check(filepath.Join(real, name))
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}

// createTemp creates a new file in root named by pattern, its last "*"
// replaced by a random number, as os.CreateTemp does.
func createTemp(root *os.Root, pattern string) (*os.File, string, error) {
	prefix, suffix := pattern, ""
	if i := strings.LastIndexByte(pattern, '*'); i >= 0 {
		prefix, suffix = pattern[:i], pattern[i+1:]
	}
	for range 10000 {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10) + suffix
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", errors.New("no free name for a temporary file")
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
	if err := s.dir.Rename(filepath.Base(s.tmp), filepath.Base(s.target)); err != nil {
		s.discard()
		return fmt.Errorf("writing %s: %w", s.target, err)
	}
	if d, err := s.dir.Open("."); err == nil {
		_ = d.Sync() // systems that cannot sync a directory are left to their own ordering
		d.Close()
	}
	s.dir.Close()
	return nil
}

// discard removes the staged file. A file that cannot be removed is left:
// its name marks it as codeloop's and it harms nothing.
func (s *stagedFile) discard() {
	_ = s.dir.Remove(filepath.Base(s.tmp))
	s.dir.Close()
}

// writeAtomic replaces path with content through a staged file.
func writeAtomic(path string, content []byte, mode fs.FileMode, check func(string) error) error {
	s, err := stageFile(path, content, mode, check)
	if err != nil {
		return err
	}
	return s.commit()
}
