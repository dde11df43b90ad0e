// Package auth keeps provider credentials in <data>/auth.json, in
// OpenCode's format: {"<provider>": {"type": "api", "key": "..."}, ...}
// (also "oauth" and "wellknown" entries, kept as they are). The file is
// written atomically with mode 0600. Keys never appear in errors.
//
// The provider registry and the auth command import it.
package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/llm"
)

// Info is one credential.
type Info struct {
	// Type is "api", "oauth" or "wellknown".
	Type string `json:"type"`
	// Key is an API key (type api and wellknown).
	Key string `json:"key,omitempty"`
	// Token is a well-known provider's token.
	Token string `json:"token,omitempty"`
	// Access, Refresh and Expires are an OAuth grant.
	Access        string         `json:"access,omitempty"`
	Refresh       string         `json:"refresh,omitempty"`
	Expires       int64          `json:"expires,omitempty"`
	AccountID     string         `json:"accountId,omitempty"`
	EnterpriseURL string         `json:"enterpriseUrl,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// Secret is what authenticates requests: the key, the token, or the access
// token.
func (i Info) Secret() string {
	switch {
	case i.Key != "":
		return i.Key
	case i.Token != "":
		return i.Token
	}
	return i.Access
}

// Store reads and writes one auth.json. Fallbacks are read-only files
// consulted for providers the main file lacks (OpenCode's auth.json).
// Content, when set, replaces every file (CODELOOP_AUTH_CONTENT).
type Store struct {
	Path      string
	Fallbacks []string
	Content   string
}

// Normalize is the key a provider id or URL is stored under: trimmed and
// without a trailing slash.
func Normalize(id string) string { return strings.TrimRight(strings.TrimSpace(id), "/") }

// All returns every credential, the main file's winning over fallbacks.
func (s *Store) All() (map[string]Info, error) {
	if s.Content != "" {
		return decode([]byte(s.Content), "the auth content variable")
	}
	out := map[string]Info{}
	for _, p := range slices.Backward(append([]string{s.Path}, s.Fallbacks...)) {
		if p == "" {
			continue
		}
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading credentials: %w", err)
		}
		m, err := decode(data, p)
		if err != nil {
			if p == s.Path {
				return nil, err
			}
			continue // a broken fallback is not ours to report
		}
		maps.Copy(out, m)
	}
	return out, nil
}

// Get returns the credential of one provider.
func (s *Store) Get(provider string) (Info, bool, error) {
	all, err := s.All()
	if err != nil {
		return Info{}, false, err
	}
	i, ok := all[Normalize(provider)]
	return i, ok, nil
}

// Set stores a credential for provider in the main file.
func (s *Store) Set(provider string, info Info) error {
	id := Normalize(provider)
	if id == "" {
		return errors.New("no provider given")
	}
	return s.update(func(m map[string]json.RawMessage) error {
		b, err := json.Marshal(info)
		if err != nil {
			return err
		}
		m[id] = b
		return nil
	})
}

// Remove deletes the credential of provider from the main file; it reports
// whether there was one.
func (s *Store) Remove(provider string) (bool, error) {
	id := Normalize(provider)
	found := false
	err := s.update(func(m map[string]json.RawMessage) error {
		_, found = m[id]
		delete(m, id)
		return nil
	})
	return found, err
}

// update rewrites the main file, keeping entries it does not touch byte
// for byte.
func (s *Store) update(fn func(map[string]json.RawMessage) error) error {
	if s.Path == "" {
		return errors.New("no credentials file")
	}
	m := map[string]json.RawMessage{}
	data, err := os.ReadFile(s.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading credentials: %w", err)
	case len(strings.TrimSpace(string(data))) > 0:
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("%s is not valid JSON; fix or remove it", s.Path)
		}
	}
	if err := fn(m); err != nil {
		return err
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(s.Path, append(out, '\n'))
}

func decode(data []byte, where string) (map[string]Info, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON", where)
	}
	out := make(map[string]Info, len(raw))
	for k, v := range raw {
		var i Info
		if json.Unmarshal(v, &i) != nil {
			continue
		}
		out[Normalize(k)] = i
	}
	return out, nil
}

// writePrivate writes a file only its owner can read, atomically.
func writePrivate(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("writing credentials: %w", err)
	}
	f, err := os.CreateTemp(dir, ".auth-*.json")
	if err != nil {
		return fmt.Errorf("writing credentials: %w", err)
	}
	name := f.Name()
	werr := f.Chmod(0o600)
	if werr == nil {
		_, werr = f.Write(data)
	}
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(name)
		return fmt.Errorf("writing credentials: %w", err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("writing credentials: %w", err)
	}
	return nil
}

// Mask shows a secret as its first and last few characters.
func Mask(secret string) string { return llm.Mask(secret) }
