package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"time"
)

// Store keeps the projects the user trusts, each with the fingerprint of
// its files at the time.
type Store struct {
	path string
}

// storeFile is the JSON the store keeps.
type storeFile struct {
	Projects map[string]entry `json:"projects"`
}

type entry struct {
	// Files maps each file of the project's surface, relative to the
	// project, to the digest of its content.
	Files Fingerprint `json:"files,omitempty"`
	// Digest is what an older codeloop kept instead of Files; an entry
	// with only a digest counts as changed.
	Digest string `json:"digest,omitempty"`
	Time   int64  `json:"time"`
}

// Open returns the store kept in the file at path.
func Open(path string) *Store { return &Store{path: path} }

func (s *Store) read() (storeFile, error) {
	f := storeFile{Projects: map[string]entry{}}
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("reading the trusted projects in %s: %w", s.path, err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("the trusted projects in %s cannot be read (%w); no project is trusted until it is fixed or removed", s.path, err)
	}
	if f.Projects == nil {
		f.Projects = map[string]entry{}
	}
	return f, nil
}

// Check compares dir's files as fp sums them up now with what the user
// trusted. A store that cannot be read trusts nothing and says why in the
// verdict's Warning.
func (s *Store) Check(dir string, fp Fingerprint) Verdict {
	f, err := s.read()
	if err != nil {
		return Verdict{State: Untrusted, Warning: err.Error()}
	}
	e, ok := f.Projects[dir]
	if !ok {
		return Verdict{State: Untrusted}
	}
	if e.Files == nil {
		return Verdict{State: Changed, Changes: []string{"trust was recorded by an older version of codeloop"}}
	}
	if changes := e.Files.Diff(fp); len(changes) > 0 {
		return Verdict{State: Changed, Changes: changes}
	}
	return Verdict{State: Trusted}
}

// Trust records that the user trusts dir with its files as fp sums them up.
func (s *Store) Trust(dir string, fp Fingerprint, now time.Time) error {
	return s.update(func(f *storeFile) {
		f.Projects[dir] = entry{Files: maps.Clone(fp), Time: now.UnixMilli()}
	}, false)
}

// Revoke forgets dir. A store that cannot be read is replaced, since it
// trusted nothing anyway.
func (s *Store) Revoke(dir string) error {
	return s.update(func(f *storeFile) { delete(f.Projects, dir) }, true)
}

// update changes the store and writes it back through a temporary file
// and a rename, so a crash never leaves it torn. A store that cannot be
// read is refused unless force, and then started afresh.
func (s *Store) update(change func(*storeFile), force bool) error {
	f, err := s.read()
	if err != nil && !force {
		return err
	}
	if f.Projects == nil {
		f.Projects = map[string]entry{}
	}
	change(&f)
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("saving trusted projects: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".trust-*")
	if err != nil {
		return fmt.Errorf("saving trusted projects: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("saving trusted projects: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("saving trusted projects: %w", err)
	}
	return nil
}
