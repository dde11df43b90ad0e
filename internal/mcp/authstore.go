package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// AuthEntry is what codeloop keeps of one server's OAuth authorisation: the
// client it registered as, the endpoints it found, and the current tokens.
type AuthEntry struct {
	// ServerURL is the URL the entry was obtained for; an entry whose URL no
	// longer matches the configuration is ignored.
	ServerURL    string    `json:"serverUrl"`
	ClientID     string    `json:"clientId,omitempty"`
	ClientSecret string    `json:"clientSecret,omitempty"`
	AuthURL      string    `json:"authUrl,omitempty"`
	TokenURL     string    `json:"tokenUrl,omitempty"`
	AuthStyle    int       `json:"authStyle,omitempty"`
	RedirectURL  string    `json:"redirectUrl,omitempty"`
	Scopes       []string  `json:"scopes,omitempty"`
	AccessToken  string    `json:"accessToken,omitempty"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	TokenType    string    `json:"tokenType,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

func (e *AuthEntry) oauthConfig() *oauth2.Config {
	return &oauth2.Config{
		ClientID:     e.ClientID,
		ClientSecret: e.ClientSecret,
		Endpoint: oauth2.Endpoint{
			AuthURL:   e.AuthURL,
			TokenURL:  e.TokenURL,
			AuthStyle: oauth2.AuthStyle(e.AuthStyle),
		},
		RedirectURL: e.RedirectURL,
		Scopes:      e.Scopes,
	}
}

func (e *AuthEntry) token() *oauth2.Token {
	return &oauth2.Token{
		AccessToken:  e.AccessToken,
		RefreshToken: e.RefreshToken,
		TokenType:    e.TokenType,
		Expiry:       e.Expiry,
	}
}

func (e *AuthEntry) setConfig(c *oauth2.Config) {
	e.ClientID = c.ClientID
	e.ClientSecret = c.ClientSecret
	e.AuthURL = c.Endpoint.AuthURL
	e.TokenURL = c.Endpoint.TokenURL
	e.AuthStyle = int(c.Endpoint.AuthStyle)
	e.RedirectURL = c.RedirectURL
	e.Scopes = c.Scopes
}

func (e *AuthEntry) setToken(t *oauth2.Token) {
	e.AccessToken = t.AccessToken
	if t.RefreshToken != "" {
		e.RefreshToken = t.RefreshToken
	}
	e.TokenType = t.TokenType
	e.Expiry = t.Expiry
}

// AuthStore keeps OAuth entries by server name in one JSON file readable by
// its owner only (<data>/mcp-auth.json).
type AuthStore struct {
	path string
	mu   sync.Mutex
}

// NewAuthStore returns the store kept at path.
func NewAuthStore(path string) *AuthStore { return &AuthStore{path: path} }

// Path is the file the store is kept in.
func (s *AuthStore) Path() string { return s.path }

func (s *AuthStore) read() (map[string]AuthEntry, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]AuthEntry{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]AuthEntry{}
	if len(b) == 0 {
		return m, nil
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.path, err)
	}
	return m, nil
}

func (s *AuthStore) write(m map[string]AuthEntry) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".mcp-auth-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), s.path)
}

// Get returns the entry of server, if there is one.
func (s *AuthStore) Get(server string) (AuthEntry, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.read()
	if err != nil {
		return AuthEntry{}, false, err
	}
	e, ok := m[server]
	return e, ok, nil
}

// Update changes the entry of server with fn, creating it when absent.
func (s *AuthStore) Update(server string, fn func(*AuthEntry)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.read()
	if err != nil {
		return err
	}
	e := m[server]
	fn(&e)
	m[server] = e
	return s.write(m)
}

// Delete removes the entry of server and reports whether there was one.
func (s *AuthStore) Delete(server string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.read()
	if err != nil {
		return false, err
	}
	if _, ok := m[server]; !ok {
		return false, nil
	}
	delete(m, server)
	return true, s.write(m)
}
