package tool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/codeloop/codeloop/internal/proc"
)

// StageMarks tells whether a project may hold staged files of killed
// writes, so that a start walks the project for them only when it may.
// A process marks itself (a file named after its process id and the
// project, in a directory of codeloop's data) before its first write in
// the project, and removes the mark when it closes: a mark whose process
// no longer runs is a process that was killed, or crashed, after writing
// there. Before marks existed, every start walked the whole project.
type StageMarks struct {
	dir  string
	root string
	own  string // this process's mark

	once   sync.Once
	marked bool
	err    error
}

// NewStageMarks returns the marks of the project root, kept in dir.
func NewStageMarks(dir, root string) *StageMarks {
	root = filepath.Clean(root)
	return &StageMarks{dir: dir, root: root, own: filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+projectKey(root))}
}

// projectKey names a project in a mark's file name.
func projectKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}

// Mark marks this process as one that may leave staged files in the
// project, once. A write must not start when it fails. The mark is not
// synced: only a crash of the machine within moments of a process's first
// write could lose it, and with it the sweep of that write's staged file
// (a hidden file, not the user's content).
func (m *StageMarks) Mark() error {
	m.once.Do(func() {
		if m.err = os.MkdirAll(m.dir, 0o700); m.err != nil {
			return
		}
		if m.err = os.WriteFile(m.own, []byte(m.root+"\n"), 0o600); m.err != nil {
			return
		}
		m.marked = true
	})
	return m.err
}

// Close removes this process's mark: everything it staged was moved into
// place or removed.
func (m *StageMarks) Close() {
	m.once.Do(func() {}) // no mark from now on
	if m.marked {
		_ = os.Remove(m.own)
	}
}

// Sweep removes the staged files of killed writes from the project when a
// mark says there may be some (or when no mark was ever kept, as before
// marks existed), and then those marks. It returns the files removed.
func (m *StageMarks) Sweep(ctx context.Context) []string {
	entries, err := os.ReadDir(m.dir)
	if err != nil && !os.IsNotExist(err) {
		return SweepStaged(ctx, m.root) // cannot tell: look
	}
	var dead []string
	suffix := "-" + projectKey(m.root)
	for _, e := range entries {
		pid, ok := strings.CutSuffix(e.Name(), suffix)
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(pid); err == nil && !proc.Alive(n) {
			dead = append(dead, filepath.Join(m.dir, e.Name()))
		}
	}
	if err == nil && len(dead) == 0 {
		return nil
	}
	removed := SweepStaged(ctx, m.root)
	if ctx.Err() == nil {
		for _, d := range dead {
			_ = os.Remove(d)
		}
		_ = os.MkdirAll(m.dir, 0o700) // from now on, marks tell
	}
	return removed
}
