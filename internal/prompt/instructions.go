package prompt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/codeloop/codeloop/internal/paths"
)

// projectFileNames returns the instruction file names looked for in the
// project, in order of preference: the first name found anywhere from the
// worktree root down to the working directory is used. Cursor's
// .cursorrules comes last, so a project that has both keeps its AGENTS.md.
func projectFileNames() []string {
	return []string{"AGENTS.md", "CLAUDE.md", "CONTEXT.md", ".cursorrules"}
}

// DefaultGlobalFiles lists the candidate global instruction files: the
// first that exists is used.
//
//  1. AGENTS.md in codeloop's config directory (~/.config/codeloop)
//  2. AGENTS.md in OpenCode's config directory (~/.config/opencode)
//  3. ~/.claude/CLAUDE.md
func DefaultGlobalFiles(dirs paths.Dirs, getenv func(string) string) []string {
	return []string{
		filepath.Join(dirs.Config, "AGENTS.md"),
		filepath.Join(dirs.OpenCodeConfig(getenv), "AGENTS.md"),
		filepath.Join(dirs.Home, ".claude", "CLAUDE.md"),
	}
}

// Instruction is one instruction file or URL and its text.
type Instruction struct {
	// Source is the file's absolute path or the URL it was fetched from.
	Source  string
	Content string
}

// Text formats the instruction for the system prompt, headed with its
// source.
func (in Instruction) Text() string {
	return "Instructions from: " + in.Source + "\n" + strings.TrimSpace(in.Content)
}

// source is an instruction file or URL to load.
type source struct {
	path, url string
}

// sources returns the local instruction files of the system prompt and the
// URLs, in prompt order and without duplicates: the global file, the
// project files, then the config's instructions in their order.
func (b *Builder) sources() []source {
	var out []source
	seen := map[string]bool{}
	addFile := func(p string) {
		key := realPath(p)
		if !seen[key] {
			seen[key] = true
			out = append(out, source{path: p})
		}
	}
	for _, p := range b.opts.GlobalFiles {
		if b.opts.NoClaude && filepath.Base(p) == "CLAUDE.md" {
			continue
		}
		if isFile(p) {
			addFile(p)
			break
		}
	}
	for _, p := range b.projectFiles() {
		addFile(p)
	}
	for _, entry := range b.opts.Instructions {
		entry = strings.TrimSpace(entry)
		switch {
		case entry == "":
		case strings.HasPrefix(entry, "https://") || strings.HasPrefix(entry, "http://"):
			if !seen[entry] {
				seen[entry] = true
				out = append(out, source{url: entry})
			}
		default:
			for _, p := range b.expand(entry) {
				addFile(p)
			}
		}
	}
	return out
}

// projectFiles returns every file named like the first of
// projectFileNames that exists in some directory from the worktree root down to the working
// directory, outermost first.
func (b *Builder) projectFiles() []string {
	levels := paths.Down(b.opts.Dir, b.opts.Worktree)
	for _, name := range projectFileNames() {
		if b.opts.NoClaude && name == "CLAUDE.md" {
			continue
		}
		var found []string
		for _, dir := range levels {
			if p := filepath.Join(dir, name); isFile(p) {
				found = append(found, p)
			}
		}
		if len(found) > 0 {
			return found
		}
	}
	return nil
}

// expand resolves one entry of the config's instructions to files. "~/"
// starts at the home directory; an absolute entry is a path or glob as it
// stands; a relative entry is a path or glob tried in each directory from
// the worktree root down to the working directory. Matches are sorted
// within each directory.
func (b *Builder) expand(entry string) []string {
	if rest, ok := strings.CutPrefix(entry, "~/"); ok && b.opts.Home != "" {
		entry = filepath.Join(b.opts.Home, rest)
	}
	var bases []string
	if filepath.IsAbs(entry) {
		bases = []string{entry}
	} else {
		for _, dir := range paths.Down(b.opts.Dir, b.opts.Worktree) {
			bases = append(bases, filepath.Join(dir, entry))
		}
	}
	var out []string
	for _, pattern := range bases {
		matches, err := doublestar.FilepathGlob(pattern, doublestar.WithFilesOnly())
		if err != nil {
			b.log.Warn("instructions: bad pattern", "pattern", entry, "err", err)
			return nil
		}
		sort.Strings(matches)
		out = append(out, matches...)
	}
	return out
}

// Instructions loads the instruction files and URLs of the system prompt,
// in order. A file that cannot be read and a URL that cannot be fetched
// are left out with a logged warning; empty files are left out too.
func (b *Builder) Instructions(ctx context.Context) ([]Instruction, error) {
	sources := b.sources()
	seen := localPaths(sources)
	defer func() { b.remember(seen) }()
	var out []Instruction
	for _, src := range sources {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var text string
		if src.url != "" {
			t, err := b.fetch.get(ctx, src.url)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue // logged once, by the fetch
			}
			text = t
		} else {
			if within(src.path, b.opts.Worktree) && b.escapes(src.path) {
				continue
			}
			data, err := os.ReadFile(src.path)
			if err != nil {
				b.log.Warn("instructions: cannot read", "path", src.path, "err", err)
				continue
			}
			text = string(data)
		}
		if strings.TrimSpace(text) != "" {
			out = append(out, Instruction{Source: src.path + src.url, Content: text})
		}
		if filepath.Base(src.path) == "CLAUDE.md" {
			out = b.appendImports(out, src.path, text, 1, seen)
		}
	}
	return out, nil
}

// localPaths returns the real paths of the local files among sources.
func localPaths(sources []source) map[string]bool {
	set := map[string]bool{}
	for _, src := range sources {
		if src.path != "" {
			set[realPath(src.path)] = true
		}
	}
	return set
}

// remember records set as the real paths of the latest system prompt's
// local files.
func (b *Builder) remember(set map[string]bool) {
	b.mu.Lock()
	b.system = set
	b.mu.Unlock()
}

// systemPaths returns the real paths of the local files in the latest
// system prompt, finding them when no prompt has been built yet. Globs in
// the config's instructions can be costly to expand, so the nested
// tracker does not expand them on every read.
func (b *Builder) systemPaths() map[string]bool {
	b.mu.Lock()
	set := b.system
	b.mu.Unlock()
	if set == nil {
		set = localPaths(b.sources())
		b.remember(set)
	}
	return set
}

// maxFetch caps the size of an instruction fetched from a URL.
const maxFetch = 1 << 20

// fetcher fetches instruction URLs once per Builder and keeps the result,
// success or failure, for the Builder's life, so every step sees the same
// text and a dead URL costs its timeout only once.
type fetcher struct {
	client  *http.Client
	timeout time.Duration
	log     *slog.Logger

	mu    sync.Mutex
	cache map[string]*fetchEntry
}

type fetchEntry struct {
	done chan struct{}
	text string
	err  error
}

func (f *fetcher) get(ctx context.Context, url string) (string, error) {
	f.mu.Lock()
	e, ok := f.cache[url]
	if !ok {
		e = &fetchEntry{done: make(chan struct{})}
		f.cache[url] = e
	}
	f.mu.Unlock()
	if ok {
		select {
		case <-e.done:
			return e.text, e.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	e.text, e.err = f.do(ctx, url)
	if e.err != nil && ctx.Err() != nil {
		// The caller gave up; let a later call try again.
		f.mu.Lock()
		delete(f.cache, url)
		f.mu.Unlock()
	} else if e.err != nil {
		f.log.Warn("instructions: cannot fetch", "url", url, "err", e.err)
	}
	close(e.done)
	return e.text, e.err
}

func (f *fetcher) do(ctx context.Context, url string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "text/markdown, text/plain;q=0.9, */*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", fmt.Errorf("fetching %s: %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxFetch+1))
	if err != nil {
		return "", fmt.Errorf("fetching %s: %w", url, err)
	}
	if len(data) > maxFetch {
		return "", errors.New("fetching " + url + ": larger than 1 MiB")
	}
	return string(data), nil
}

func isFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

// escapes reports whether p, a file the project's files name, leads out
// of the project while the project is not trusted; it logs why p is left
// out.
func (b *Builder) escapes(p string) bool {
	if !b.opts.Untrusted || within(realPath(p), realPath(b.opts.Worktree)) {
		return false
	}
	b.log.Warn("instructions: the untrusted project's file leads out of it; left out", "path", p)
	return true
}

// realPath resolves symbolic links in p, or returns p cleaned when it
// cannot.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}
