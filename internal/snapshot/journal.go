package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// journal is what an open step has kept so far: the content before each
// file codeloop's own tools are about to change (Files, with no After),
// and whether a scan was made for a shell or MCP tool. It is saved before
// such a tool writes, so a process killed in the step leaves enough for
// Recover to close the step.
type journal struct {
	Checkpoint
	Scanned bool `json:"scanned,omitempty"`
}

// journalFile is where the journal of an open step is saved.
func (s *Store) journalFile(session, cpID string) string {
	return filepath.Join(s.dir, "open", session, cpID+".json")
}

// saveJournal saves st's journal; st.mu is held.
func (s *Store) saveJournal(st *step) error {
	j := journal{Checkpoint: st.cp, Scanned: st.scanned}
	j.Files = make(map[string]*Change, len(st.touched))
	for k := range st.touched {
		b, _ := st.beforeOf(k)
		j.Files[k] = &Change{Before: b.entry}
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(s.journalFile(st.cp.Session, st.cp.ID), b); err != nil {
		return fmt.Errorf("saving the open snapshot %s: %w", st.cp.ID, err)
	}
	return nil
}

// dropJournal removes the journal of a closed step.
func (s *Store) dropJournal(session, cpID string) {
	path := s.journalFile(session, cpID)
	if os.Remove(path) == nil {
		_ = os.Remove(filepath.Dir(path)) // when it was the session's last
	}
}

// Recover closes the step a killed process left open: the files its
// built-in tools were about to change are compared with what they hold
// now, and what changed is saved as the step's checkpoint, as Finish
// would have. Changes by shell and MCP tools of the step are not known;
// the patch says so. A step that was finished returns its patch again; an
// unknown one, or one that changed nothing, an empty patch.
func (s *Store) Recover(_ context.Context, checkpoint string) (Patch, error) {
	if cp, err := s.Load(checkpoint); err == nil {
		s.dropJournal(cp.Session, cp.ID)
		return patchOf(cp), nil
	} else if !errors.Is(err, ErrNotFound) {
		return Patch{}, err
	}
	matches, _ := filepath.Glob(filepath.Join(s.dir, "open", "*", checkpoint+".json"))
	if len(matches) == 0 {
		return Patch{}, nil
	}
	b, err := os.ReadFile(matches[0])
	if errors.Is(err, fs.ErrNotExist) {
		return Patch{}, nil
	}
	if err != nil {
		return Patch{}, err
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		return Patch{}, &CorruptError{Object: checkpoint, Reason: err.Error()}
	}
	cp := j.Checkpoint
	for k, ch := range cp.Files {
		after, err := s.keepPath(cp.abs(k))
		if err != nil {
			return Patch{}, err
		}
		if same(ch.Before, after) {
			delete(cp.Files, k)
			continue
		}
		ch.After = after
	}
	if j.Scanned {
		cp.Skipped = append(cp.Skipped, Skip{Path: cp.Worktree,
			Reason: "the step was cut short: what its shell or MCP tools changed was not kept"})
	}
	if len(cp.Files) > 0 || len(cp.Skipped) > 0 {
		if err := s.saveCheckpoint(&cp); err != nil {
			return Patch{}, err
		}
	}
	s.dropJournal(cp.Session, cp.ID)
	return patchOf(&cp), nil
}

// patchOf is the patch a saved checkpoint records.
func patchOf(cp *Checkpoint) Patch {
	p := Patch{Skipped: cp.Skipped}
	for k := range cp.Files {
		p.Files = append(p.Files, cp.abs(k))
	}
	slices.Sort(p.Files)
	return p
}

// journals lists the saved journals, dropping those older than the
// retention (their process is long gone and their step never repaired).
func (s *Store) journals() []journal {
	var out []journal
	paths, _ := filepath.Glob(filepath.Join(s.dir, "open", "*", "*.json"))
	old := s.opts.Now().Add(-s.opts.Retention)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var j journal
		if json.Unmarshal(b, &j) != nil {
			continue
		}
		if j.Created.Before(old) && !j.Created.IsZero() {
			s.dropJournal(j.Session, j.ID)
			continue
		}
		out = append(out, j)
	}
	return out
}
