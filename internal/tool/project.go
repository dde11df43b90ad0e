package tool

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/codeloop/codeloop/internal/permission"
)

// ErrRefused is wrapped by the errors of ProjectFiles for a path it does
// not show: outside the project, through "..", ignored, or a secret
// file's content.
var ErrRefused = errors.New("refused")

// MaxProjectFileBytes caps the file ProjectFiles.Read returns.
const MaxProjectFileBytes = 10 << 20

// ProjectFiles shows a project's files to a front end (the HTTP server's
// file and find routes) with the checks the tools make: a path must lie
// inside the project once symbolic links are resolved (the
// external_directory check), may not climb with "..", and is hidden when
// the ignore rules of the search tools exclude it (.gitignore, .ignore,
// .rgignore, .git/info/exclude, and .git itself); a secret file is listed
// but its content is not returned, and a text search skips it, as grep
// does. Nothing is ever written.
type ProjectFiles struct {
	// Root is the project's directory, absolute.
	Root string
	// Secrets are the secret files; nil means the defaults.
	Secrets *SecretFiles
	// Ripgrep is as Env.Ripgrep: "" finds rg on PATH, "-" never uses it.
	Ripgrep string
}

// ProjectEntry is one entry of a directory listing.
type ProjectEntry struct {
	Name     string
	Path     string // relative to the root, with forward slashes
	Absolute string
	Dir      bool
	Ignored  bool
}

// ProjectContent is a file's content: text as it is, anything else base64.
type ProjectContent struct {
	Binary  bool
	Content string
	Mime    string
}

// ProjectMatch is one line a text search found.
type ProjectMatch struct {
	Path string // relative to the root, with forward slashes
	Line int    // 1-based
	Text string
	// Submatches are the byte ranges [start, end) of the matches in Text.
	Submatches [][2]int
}

func refused(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrRefused}, args...)...)
}

// resolve turns a path given by a caller into an absolute path inside
// the root, refusing one that leaves it, climbs with "..", or is ignored.
func (p ProjectFiles) resolve(path string) (string, error) {
	root := filepath.Clean(p.Root)
	if strings.ContainsRune(path, 0) {
		return "", refused("the path holds a NUL byte")
	}
	for _, c := range strings.Split(filepath.ToSlash(path), "/") {
		if c == ".." {
			return "", refused("%q climbs out with \"..\"; give a path inside the project", path)
		}
	}
	abs := absPath(root, path)
	if !within(root, abs) || len(permission.ExternalDirs([]string{abs}, root, root)) > 0 {
		return "", refused("%q is outside the project %s", path, root)
	}
	if ig, err := p.ignored(abs); err != nil {
		return "", err
	} else if ig {
		return "", refused("%q is ignored (.git, or the project's ignore files)", path)
	}
	// A link inside the project that leads to an ignored file is refused too.
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		rroot, err := filepath.EvalSymlinks(root)
		if err != nil {
			rroot = root
		}
		if rel, err := filepath.Rel(rroot, real); err == nil && within(rroot, real) {
			if ig, err := p.ignored(filepath.Join(root, rel)); err != nil || ig {
				return "", refused("%q leads to an ignored file", path)
			}
		}
	}
	return abs, nil
}

// ignored reports whether the ignore rules the search tools apply exclude
// abs (inside the root), or a directory above it.
func (p ProjectFiles) ignored(abs string) (bool, error) {
	root := filepath.Clean(p.Root)
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return false, err
	}
	if rel == "." {
		return false, nil
	}
	rules, repoRoot := rulesAbove(root)
	inRepo := repoRoot != ""
	dir := root
	names := strings.Split(rel, string(filepath.Separator))
	for i, name := range names {
		if name == ".git" {
			return true, nil
		}
		isRoot := isGitRepo(dir)
		inRepo = inRepo || isRoot
		rules = rules.with(dir, components(dir), inRepo, isRoot, nil)
		next := filepath.Join(dir, name)
		isDir := i < len(names)-1
		if !isDir {
			if st, err := os.Stat(next); err == nil && st.IsDir() {
				isDir = true
			}
		}
		if rules.ignored(components(next), isDir) {
			return true, nil
		}
		dir = next
	}
	return false, nil
}

// Visible reports whether path is one the other methods show: inside the
// project and not ignored.
func (p ProjectFiles) Visible(path string) bool {
	_, err := p.resolve(path)
	return err == nil
}

// List returns the entries of the directory path (relative to the root,
// "" for the root), directories first, each marked when the ignore rules
// exclude it; .git is left out.
func (p ProjectFiles) List(ctx context.Context, path string) ([]ProjectEntry, error) {
	abs, err := p.resolve(path)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", path, err)
	}
	root := filepath.Clean(p.Root)
	out := make([]ProjectEntry, 0, len(entries))
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if e.Name() == ".git" {
			continue
		}
		full := filepath.Join(abs, e.Name())
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(full); err == nil {
				isDir = st.IsDir()
			}
		}
		rel, _ := filepath.Rel(root, full)
		ig, err := p.ignored(full)
		if err != nil {
			return nil, err
		}
		if len(permission.ExternalDirs([]string{full}, root, root)) > 0 {
			ig = true // a link leading out of the project
		}
		out = append(out, ProjectEntry{Name: e.Name(), Path: filepath.ToSlash(rel), Absolute: full, Dir: isDir, Ignored: ig})
	}
	slices.SortStableFunc(out, func(a, b ProjectEntry) int {
		if a.Dir != b.Dir {
			if a.Dir {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// Read returns the content of the file at path (relative to the root). A
// secret file's content is refused, as the read tool refuses it without
// the user's approval.
func (p ProjectFiles) Read(ctx context.Context, path string) (ProjectContent, error) {
	abs, err := p.resolve(path)
	if err != nil {
		return ProjectContent{}, err
	}
	if pattern, ok := p.secrets().Match(filepath.Clean(p.Root), abs); ok {
		return ProjectContent{}, refused("%s is a secret file (it matches the secret_files pattern %q)", path, pattern)
	}
	if st, err := os.Stat(abs); err != nil {
		return ProjectContent{}, fmt.Errorf("reading %s: %w", path, err)
	} else if st.IsDir() {
		return ProjectContent{}, fmt.Errorf("%s is a directory", path)
	}
	if err := ctx.Err(); err != nil {
		return ProjectContent{}, err
	}
	f, err := openRegular(abs)
	if err != nil {
		return ProjectContent{}, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	// A link swapped in after the checks above is caught here: the file
	// opened must still lie inside the project.
	if opened, ok := openedPath(f); ok && len(permission.ExternalDirs([]string{opened}, filepath.Clean(p.Root), filepath.Clean(p.Root))) > 0 {
		return ProjectContent{}, refused("%q is outside the project %s", path, p.Root)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxProjectFileBytes+1))
	if err != nil {
		return ProjectContent{}, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > MaxProjectFileBytes {
		return ProjectContent{}, fmt.Errorf("%s is larger than the limit of %d bytes", path, MaxProjectFileBytes)
	}
	if !looksBinary(data) && !binaryExt(strings.ToLower(filepath.Ext(abs))) {
		return ProjectContent{Content: string(data), Mime: "text/plain"}, nil
	}
	mt := mime.TypeByExtension(filepath.Ext(abs))
	if mt == "" {
		mt = "application/octet-stream"
	}
	return ProjectContent{Binary: true, Content: base64.StdEncoding.EncodeToString(data), Mime: mt}, nil
}

// FindFiles returns the paths (relative, with forward slashes) of the
// files, and of the directories holding them when dirs is set (with a
// trailing "/"), that the search tools see and whose path holds the
// letters of query in order, best matches first, at most limit.
func (p ProjectFiles) FindFiles(ctx context.Context, query string, files, dirs bool, limit int) ([]string, error) {
	root := filepath.Clean(p.Root)
	q := strings.ToLower(query)
	type hit struct {
		path  string
		score int
	}
	var hits []hit
	seen := map[string]bool{}
	consider := func(rel string) {
		if score, ok := fuzzyScore(strings.ToLower(rel), q); ok {
			hits = append(hits, hit{rel, score})
		}
	}
	err := walkFiles(ctx, root, walkOptions{hidden: true}, func(path string) error {
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if files {
			consider(rel)
		}
		if dirs {
			for d := pathDir(rel); d != "" && !seen[d]; d = pathDir(d) {
				seen[d] = true
				consider(d + "/")
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			return b.score - a.score
		}
		if len(a.path) != len(b.path) {
			return len(a.path) - len(b.path)
		}
		return strings.Compare(a.path, b.path)
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.path
	}
	return out, nil
}

// pathDir is the slash-separated parent of rel, "" at the top.
func pathDir(rel string) string {
	i := strings.LastIndexByte(strings.TrimSuffix(rel, "/"), '/')
	if i < 0 {
		return ""
	}
	return rel[:i]
}

// fuzzyScore scores how well s holds q: a substring of the base name
// scores highest, then a substring of the path, then q's letters in order.
func fuzzyScore(s, q string) (int, bool) {
	if q == "" {
		return 0, true
	}
	base := s[strings.LastIndexByte(strings.TrimSuffix(s, "/"), '/')+1:]
	switch {
	case strings.HasPrefix(base, q):
		return 4, true
	case strings.Contains(base, q):
		return 3, true
	case strings.Contains(s, q):
		return 2, true
	}
	i := 0
	for _, r := range s {
		if i < len(q) && strings.HasPrefix(q[i:], string(r)) {
			i += len(string(r))
		}
	}
	return 1, i == len(q)
}

// FindText searches the files the grep tool searches for the regular
// expression pattern, with its engine (ripgrep when present), skipping
// secret files, and returns at most limit matching lines.
func (p ProjectFiles) FindText(ctx context.Context, pattern string, limit int) ([]ProjectMatch, error) {
	root := filepath.Clean(p.Root)
	q, err := newGrepQuery(&Call{Dir: root, Worktree: root}, grepParams{Pattern: pattern})
	if err != nil {
		return nil, err
	}
	q.secrets, q.project = p.secrets(), root
	ms, _, err := q.search(ctx, ripgrepPath(Env{Ripgrep: p.Ripgrep}))
	if err != nil {
		return nil, err
	}
	if limit > 0 && len(ms) > limit {
		ms = ms[:limit]
	}
	out := make([]ProjectMatch, 0, len(ms))
	for _, m := range ms {
		rel, err := filepath.Rel(root, m.path)
		if err != nil {
			continue
		}
		pm := ProjectMatch{Path: filepath.ToSlash(rel), Line: m.line, Text: m.text}
		for _, ix := range q.re.FindAllStringIndex(m.text, -1) {
			pm.Submatches = append(pm.Submatches, [2]int{ix[0], ix[1]})
		}
		out = append(out, pm)
	}
	return out, nil
}

// openedPath is the path the system has for an open file, where it tells
// (/proc on Linux).
func openedPath(f *os.File) (string, bool) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || !filepath.IsAbs(p) {
		return "", false
	}
	return p, true
}

func (p ProjectFiles) secrets() *SecretFiles { return Env{Secrets: p.Secrets}.secrets() }
