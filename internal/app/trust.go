package app

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/trust"
)

// Trust is what the user's trust says of the project, and what the
// project's own files would make codeloop run or loosen: held back unless
// the project is trusted.
type Trust struct {
	// Dir is the project directory trust is recorded for (the worktree).
	Dir string
	// Verdict is the store's answer, with what changed since the project
	// was trusted.
	Verdict trust.Verdict
	// Items lists what the project's own files would make codeloop run or
	// loosen, sorted.
	Items []trust.Item

	store   *trust.Store
	surface []string
}

// Held reports whether the project has items that are held back for want
// of trust.
func (t *Trust) Held() bool { return t != nil && !t.Verdict.Trusted() && len(t.Items) > 0 }

// Fingerprint sums up the project's files as they are now.
func (t *Trust) Fingerprint() trust.Fingerprint { return trust.Sum(t.Dir, t.surface) }

// Grant trusts the project as its files are now.
func (t *Trust) Grant(now time.Time) error { return t.store.Trust(t.Dir, t.Fingerprint(), now) }

// Revoke forgets the project's trust.
func (t *Trust) Revoke() error { return t.store.Revoke(t.Dir) }

// add records more items, found once the agents and commands are loaded.
func (t *Trust) add(items ...trust.Item) { t.Items = trust.Sort(append(t.Items, items...)) }

// Relative is p relative to the project when it lies inside it.
func (t *Trust) Relative(p string) string {
	if r, err := filepath.Rel(t.Dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// Line describes an item in one line with its file relative to the
// project.
func (t *Trust) Line(it trust.Item) string {
	it.File = t.Relative(it.File)
	return it.String()
}

// openTrust asks the trust store about the project and puts the config in
// force that the answer allows: the project's own files in full when it is
// trusted, else with what they would run or loosen held back. With
// grant, the project is trusted first (--trust-project); with
// opts.DistrustProject, the store is not asked and nothing is trusted.
func openTrust(opts Options, loaded *config.Loaded, dir string, ext extSources, grant bool) (*Trust, error) {
	worktree := loaded.Worktree
	t := &Trust{Dir: worktree, store: trust.Open(filepath.Join(opts.Dirs.State, "trust.json"))}
	t.Items = append(slices.Clone(loaded.HeldBack), ext.items(worktree)...)
	t.surface = append(trust.Surface(worktree, dir), ext.projectTools...)
	for _, it := range t.Items {
		t.surface = append(t.surface, trust.Referenced(worktree, it.Detail)...)
	}
	fp := t.Fingerprint()
	t.Verdict = t.store.Check(worktree, fp)
	if opts.DistrustProject {
		grant, t.Verdict = false, trust.Verdict{State: trust.Untrusted}
	}
	if t.Verdict.Warning != "" {
		opts.Log.Warn("trust", "err", t.Verdict.Warning)
	}
	if grant && !t.Verdict.Trusted() {
		if err := t.store.Trust(worktree, fp, time.Now()); err != nil {
			return nil, fmt.Errorf("trusting %s: %w", worktree, err)
		}
		t.Verdict = trust.Verdict{State: trust.Trusted}
	}
	loaded.Use(t.Verdict.Trusted())
	t.Items = trust.Sort(t.Items)
	return t, nil
}

// heldPath returns the function that tells agent and command loading
// whether a file is the project's own and the project is not trusted.
func (t *Trust) heldPath(user []string) func(string) bool {
	if t.Verdict.Trusted() {
		return nil
	}
	return func(p string) bool { return projectPath(p, t.Dir, user) }
}

// Warning is the one line to show when the trust store could not be read,
// or "".
func (t *Trust) Warning() string {
	if t == nil || t.Verdict.Warning == "" {
		return ""
	}
	return "warning: " + t.Verdict.Warning
}
