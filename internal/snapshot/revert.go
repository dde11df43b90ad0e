package snapshot

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/codeloop/codeloop/internal/id"
)

// ConflictError says that files changed since codeloop last wrote them (the
// user edited them): a revert would lose those edits, so it was not made.
type ConflictError struct {
	Files []string // absolute paths
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%d file(s) changed since the agent wrote them: %s; nothing was restored (use --force to overwrite them)",
		len(e.Files), strings.Join(e.Files, ", "))
}

// Reverted is what Revert or Unrevert did.
type Reverted struct {
	// Checkpoint records the files as they were before the revert; Unrevert
	// of it brings them back.
	Checkpoint string
	Files      []string // absolute paths restored
}

// plan is, for each key, the entry to restore and the entry expected now.
type plan struct {
	worktree string
	target   map[string]*Entry
	expected map[string]*Entry
}

// merge plans taking back checkpoints (oldest first) of a session: every
// file goes back to its state before the first checkpoint that changed it.
func (s *Store) merge(cps []string) (*plan, error) {
	p := &plan{target: map[string]*Entry{}, expected: map[string]*Entry{}}
	for _, cpID := range cps {
		cp, err := s.Load(cpID)
		if err != nil {
			return nil, err
		}
		if p.worktree == "" {
			p.worktree = cp.Worktree
		}
		for k, ch := range cp.Files {
			abs := cp.abs(k)
			if _, ok := p.target[abs]; !ok {
				p.target[abs] = ch.Before
			}
			p.expected[abs] = ch.After
		}
	}
	return p, nil
}

// Revert restores the files that the checkpoints (of session, oldest
// first) changed to their state before the first of them. A file that is
// neither as the last checkpoint left it nor already restored is a
// conflict: unless force, nothing is restored and a *ConflictError lists
// them. The state before the revert is saved as a checkpoint for Unrevert.
func (s *Store) Revert(ctx context.Context, session string, checkpoints []string, force bool) (*Reverted, error) {
	p, err := s.merge(checkpoints)
	if err != nil {
		return nil, err
	}
	return s.apply(ctx, session, p, force)
}

// Unrevert brings back the files a revert restored, as they were before it.
func (s *Store) Unrevert(ctx context.Context, session, checkpoint string, force bool) (*Reverted, error) {
	cp, err := s.Load(checkpoint)
	if err != nil {
		return nil, err
	}
	if cp.Kind != "revert" {
		return nil, fmt.Errorf("snapshot %s is not a revert", checkpoint)
	}
	p := &plan{worktree: cp.Worktree, target: map[string]*Entry{}, expected: map[string]*Entry{}}
	for k, ch := range cp.Files {
		p.target[cp.abs(k)] = ch.Before
		p.expected[cp.abs(k)] = ch.After
	}
	return s.apply(ctx, session, p, force)
}

// apply carries out a plan: it checks for conflicts, saves the current
// state as a revert checkpoint, then restores every file.
func (s *Store) apply(ctx context.Context, session string, p *plan, force bool) (*Reverted, error) {
	paths := make([]string, 0, len(p.target))
	for path := range p.target {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	undo := Checkpoint{ID: id.Ascending(id.Snapshot), Session: session, Worktree: p.worktree, Kind: "revert",
		Created: s.opts.Now(), Files: map[string]*Change{}}
	var conflicts, restore []string
	for _, path := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		now, _, err := readEntry(path)
		if err != nil {
			return nil, err
		}
		if same(now, p.target[path]) {
			continue
		}
		if !same(now, p.expected[path]) {
			conflicts = append(conflicts, path)
			if !force {
				continue
			}
		}
		restore = append(restore, path)
	}
	if len(conflicts) > 0 && !force {
		return nil, &ConflictError{Files: conflicts}
	}
	// Keep every file as it is now before touching any.
	for _, path := range restore {
		cur, err := s.keepPath(path)
		if err != nil {
			return nil, fmt.Errorf("keeping %s before restoring it: %w", path, err)
		}
		key := path
		if r, err := filepath.Rel(p.worktree, path); err == nil && !strings.HasPrefix(r, "..") {
			key = filepath.ToSlash(r)
		}
		undo.Files[key] = &Change{Before: cur, After: p.target[path]}
	}
	if err := s.saveCheckpoint(&undo); err != nil {
		return nil, err
	}
	for _, path := range restore {
		if err := s.restore(path, p.target[path]); err != nil {
			return nil, fmt.Errorf("restoring %s: %w", path, err)
		}
	}
	return &Reverted{Checkpoint: undo.ID, Files: restore}, nil
}

// restore makes the file at path hold e (nil: removes it).
func (s *Store) restore(path string, e *Entry) error {
	if e == nil {
		err := os.Remove(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	content, err := s.content(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if e.Mode&fs.ModeSymlink != 0 {
		tmp := filepath.Join(filepath.Dir(path), tmpPrefix+filepath.Base(path))
		_ = os.Remove(tmp)
		if err := os.Symlink(string(content), tmp); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".codeloop-restore-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(content)
	if werr == nil {
		werr = f.Chmod(e.Mode & fs.ModePerm)
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		if info, err := os.Lstat(path); err == nil && info.IsDir() {
			werr = fmt.Errorf("%s is now a directory", path)
		}
	}
	if werr != nil {
		os.Remove(f.Name())
		return werr
	}
	return os.Rename(f.Name(), path)
}

// FileDiff is one file's change over some checkpoints.
type FileDiff struct {
	File      string `json:"file"` // absolute
	Before    string `json:"before"`
	After     string `json:"after"`
	Patch     string `json:"patch"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Status    string `json:"status"` // added, deleted, modified
}

// Diff returns the changes the checkpoints (oldest first) made,
// each file from before the first to after the last.
func (s *Store) Diff(ctx context.Context, checkpoints []string) ([]FileDiff, error) {
	p, err := s.merge(checkpoints)
	if err != nil {
		return nil, err
	}
	var out []FileDiff
	for path, before := range p.target {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		after := p.expected[path]
		if same(before, after) {
			continue
		}
		var b, a []byte
		if before != nil {
			if b, err = s.content(before); err != nil {
				return nil, err
			}
		}
		if after != nil {
			if a, err = s.content(after); err != nil {
				return nil, err
			}
		}
		d := FileDiff{File: path, Before: string(b), After: string(a), Status: "modified"}
		switch {
		case before == nil:
			d.Status = "added"
		case after == nil:
			d.Status = "deleted"
		}
		d.Patch = udiff.Unified(path, path, d.Before, d.After)
		for _, line := range strings.Split(d.Patch, "\n") {
			switch {
			case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
			case strings.HasPrefix(line, "+"):
				d.Additions++
			case strings.HasPrefix(line, "-"):
				d.Deletions++
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y FileDiff) int { return strings.Compare(x.File, y.File) })
	return out, nil
}
