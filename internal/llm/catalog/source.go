package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// DefaultURL is where the live catalog is fetched from.
const DefaultURL = "https://models.dev/api.json"

// maxFetch bounds a fetched catalog's size.
const maxFetch = 64 << 20

// Options say where the catalog comes from.
type Options struct {
	// CacheDir holds models.json, the last fetched copy.
	CacheDir string
	// Path pins the catalog to one file; nothing is fetched then.
	Path string
	// URL is fetched to refresh the cache; DefaultURL when empty.
	URL string
	// Disabled turns fetching off.
	Disabled bool
	// MaxAge is how old the cache may be before a background refresh
	// fetches a new one; 60 minutes when zero.
	MaxAge time.Duration
	// Timeout bounds one fetch; 10 seconds when zero.
	Timeout    time.Duration
	HTTPClient *http.Client
	Log        *slog.Logger
}

// OptionsFromEnv reads CODELOOP_MODELS_URL, CODELOOP_MODELS_PATH and
// CODELOOP_DISABLE_MODELS_FETCH (and OpenCode's OPENCODE_ equivalents).
func OptionsFromEnv(getenv func(string) string, cacheDir string) Options {
	pick := func(k string) string {
		if v := getenv("CODELOOP_" + k); v != "" {
			return v
		}
		return getenv("OPENCODE_" + k)
	}
	o := Options{CacheDir: cacheDir, Path: pick("MODELS_PATH"), URL: pick("MODELS_URL")}
	if v := pick("DISABLE_MODELS_FETCH"); v != "" {
		o.Disabled, _ = strconv.ParseBool(v)
		if v == "1" {
			o.Disabled = true
		}
	}
	return o
}

// Source hands out the catalog, loading it on first use, and refreshes the
// cached copy. It is safe for concurrent use.
type Source struct {
	opts Options

	mu     sync.Mutex
	cat    *Catalog
	origin string // "embedded", "cache" or the pinned path
}

// NewSource returns a source; it reads nothing until asked.
func NewSource(opts Options) *Source {
	if opts.MaxAge == 0 {
		opts.MaxAge = 60 * time.Minute
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.URL == "" {
		opts.URL = DefaultURL
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Source{opts: opts}
}

func (s *Source) cachePath() string {
	if s.opts.CacheDir == "" {
		return ""
	}
	return filepath.Join(s.opts.CacheDir, "models.json")
}

// packPath is the packed copy of models.json, which loads without a scan
// of the whole file.
func (s *Source) packPath() string {
	if s.opts.CacheDir == "" {
		return ""
	}
	return filepath.Join(s.opts.CacheDir, "models.pack")
}

// cached loads the cache: the packed copy when it is at least as new as
// models.json, else models.json itself.
func (s *Source) cached() (*Catalog, bool) {
	p := s.cachePath()
	if p == "" {
		return nil, false
	}
	js, jerr := os.Stat(p)
	if ps, err := os.Stat(s.packPath()); err == nil && (jerr != nil || !ps.ModTime().Before(js.ModTime())) {
		if data, err := os.ReadFile(s.packPath()); err == nil {
			if c, err := Parse(data); err == nil {
				return c, true
			}
		}
		s.opts.Log.Warn("ignoring an unreadable model catalog cache", "path", s.packPath())
	}
	if jerr != nil {
		return nil, false
	}
	data, err := os.ReadFile(p)
	if err == nil {
		if c, err := Parse(data); err == nil {
			return c, true
		}
	}
	s.opts.Log.Warn("ignoring an unreadable model catalog cache", "path", p)
	return nil, false
}

// Catalog returns the catalog: the pinned file, else the cached copy when
// it decodes, else the embedded snapshot.
func (s *Source) Catalog() (*Catalog, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cat != nil {
		return s.cat, nil
	}
	if s.opts.Path != "" {
		data, err := os.ReadFile(s.opts.Path)
		if err != nil {
			return nil, fmt.Errorf("reading the model catalog: %w", err)
		}
		c, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.opts.Path, err)
		}
		s.cat, s.origin = c, s.opts.Path
		return c, nil
	}
	if c, ok := s.cached(); ok {
		s.cat, s.origin = c, "cache"
		return c, nil
	}
	c, err := Embedded()
	if err != nil {
		return nil, err
	}
	s.cat, s.origin = c, "embedded"
	return c, nil
}

// Origin says where the catalog came from: "embedded", "cache" or a path.
func (s *Source) Origin() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.origin
}

// Stale reports whether the cached copy is missing or older than MaxAge.
func (s *Source) Stale(now time.Time) bool {
	p := s.cachePath()
	if p == "" {
		return false
	}
	st, err := os.Stat(p)
	return err != nil || now.Sub(st.ModTime()) > s.opts.MaxAge
}

// ErrFetchDisabled is returned by Refresh when fetching is turned off.
var ErrFetchDisabled = errors.New("fetching the model catalog is disabled")

// Refresh fetches the live catalog, checks it decodes, and writes it to the
// cache atomically; the catalog in memory is replaced too.
func (s *Source) Refresh(ctx context.Context) error {
	if s.opts.Disabled || s.opts.Path != "" {
		return ErrFetchDisabled
	}
	p := s.cachePath()
	if p == "" {
		return errors.New("no cache directory for the model catalog")
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.opts.URL, nil)
	if err != nil {
		return fmt.Errorf("fetching the model catalog: %w", err)
	}
	req.Header.Set("User-Agent", "codeloop")
	client := s.opts.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("fetching the model catalog: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetching the model catalog: %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxFetch))
	if err != nil {
		return fmt.Errorf("fetching the model catalog: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return fmt.Errorf("fetched model catalog: %w", err)
	}
	packed, err := c.Pack()
	if err != nil {
		return fmt.Errorf("fetched model catalog: %w", err)
	}
	if err := writeAtomic(p, data); err != nil {
		return fmt.Errorf("caching the model catalog: %w", err)
	}
	if err := writeAtomic(s.packPath(), packed); err != nil {
		return fmt.Errorf("caching the model catalog: %w", err)
	}
	if c, err = Parse(packed); err != nil {
		return fmt.Errorf("fetched model catalog: %w", err)
	}
	s.mu.Lock()
	s.cat, s.origin = c, "cache"
	s.mu.Unlock()
	return nil
}

// RefreshInBackground refreshes a stale cache in a goroutine that ends when
// the fetch does or ctx is cancelled; the returned channel yields its
// result and closes. A fresh cache, or fetching turned off, yields nil at
// once. Failures are logged, never fatal: the old copy stays in use.
func (s *Source) RefreshInBackground(ctx context.Context) <-chan error {
	done := make(chan error, 1)
	if s.opts.Disabled || s.opts.Path != "" || !s.Stale(time.Now()) {
		done <- nil
		close(done)
		return done
	}
	go func() {
		defer close(done)
		err := s.Refresh(ctx)
		if err != nil {
			s.opts.Log.Debug("model catalog refresh failed", "err", err)
		}
		done <- err
	}()
	return done
}

func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".models-*.json")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return errors.Join(werr, cerr)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
