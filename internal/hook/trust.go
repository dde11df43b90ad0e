package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"
)

// Trust records the projects whose hooks and tools the user allowed to
// run, each with a digest of what they were then: a change to them (a new
// hook, an edited script) makes the project untrusted again.
type Trust struct {
	path string
}

// trustFile is the JSON the trust store keeps.
type trustFile struct {
	Projects map[string]trustEntry `json:"projects"`
}

type trustEntry struct {
	Digest string `json:"digest"`
	Time   int64  `json:"time"`
}

// TrustState is what the store says about a project.
type TrustState int

// The states of a project.
const (
	Untrusted TrustState = iota // never trusted
	Trusted                     // trusted, and unchanged since
	Changed                     // trusted, but its hooks or tools changed since
)

// OpenTrust returns the trust store kept in the file at path.
func OpenTrust(path string) *Trust { return &Trust{path: path} }

func (t *Trust) read() (trustFile, error) {
	f := trustFile{Projects: map[string]trustEntry{}}
	data, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading trusted projects: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("reading trusted projects from %s: %w (remove the file and trust your projects again)", t.path, err)
	}
	if f.Projects == nil {
		f.Projects = map[string]trustEntry{}
	}
	return f, nil
}

// State says whether dir is trusted with its hooks and tools as digest
// sums them up. An unreadable store trusts nothing.
func (t *Trust) State(dir, digest string) TrustState {
	f, err := t.read()
	if err != nil {
		return Untrusted
	}
	e, ok := f.Projects[dir]
	switch {
	case !ok:
		return Untrusted
	case e.Digest != digest:
		return Changed
	}
	return Trusted
}

// Set trusts dir with its hooks and tools as digest sums them up.
func (t *Trust) Set(dir, digest string, now time.Time) error {
	return t.update(func(f *trustFile) { f.Projects[dir] = trustEntry{Digest: digest, Time: now.UnixMilli()} })
}

// Revoke forgets dir.
func (t *Trust) Revoke(dir string) error {
	return t.update(func(f *trustFile) { delete(f.Projects, dir) })
}

func (t *Trust) update(change func(*trustFile)) error {
	f, err := t.read()
	if err != nil {
		return err
	}
	change(&f)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return fmt.Errorf("saving trusted projects: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.path), ".trust-*")
	if err != nil {
		return fmt.Errorf("saving trusted projects: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("saving trusted projects: %w", err)
	}
	if err := os.Rename(tmp.Name(), t.path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("saving trusted projects: %w", err)
	}
	return nil
}

// maxDigestFile bounds what of one file the digest reads.
const maxDigestFile = 16 << 20

// Digest sums up what a project would run: the hooks of its project
// sources and the content of files (its hook scripts and custom tools).
// Missing files count as absent, so removing one changes the digest too.
func Digest(sources []Source, files []string) string {
	h := sha256.New()
	for _, s := range sources {
		if !s.Project {
			continue
		}
		spec, _ := json.Marshal(s.Hooks) // maps marshal in key order
		fmt.Fprintf(h, "source %s %t %d\n", s.Origin, s.DisableAll, len(spec))
		h.Write(spec)
	}
	files = slices.Clone(files)
	sort.Strings(files)
	for _, p := range slices.Compact(files) {
		f, err := os.Open(p)
		if err != nil {
			fmt.Fprintf(h, "file %s absent\n", p)
			continue
		}
		st, _ := f.Stat()
		mode := fs.FileMode(0)
		if st != nil {
			mode = st.Mode()
		}
		fmt.Fprintf(h, "file %s %v\n", p, mode)
		_, _ = io.Copy(h, io.LimitReader(f, maxDigestFile))
		_ = f.Close()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// maxScripts bounds how many files of a hook directory the digest reads.
const maxScripts = 1000

// ScriptFiles lists the regular files under the project's hook script
// directories, .claude/hooks and .codeloop/hooks of dir, which hooks
// commonly run; at most maxScripts of them.
func ScriptFiles(dir string) []string {
	var out []string
	for _, d := range []string{filepath.Join(dir, ".claude", "hooks"), filepath.Join(dir, ".codeloop", "hooks")} {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if len(out) >= maxScripts {
				return filepath.SkipAll
			}
			if e.Type().IsRegular() {
				out = append(out, p)
			}
			return nil
		})
	}
	return out
}
