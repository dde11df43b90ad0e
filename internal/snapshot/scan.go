package snapshot

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Limits of the project scan made around tools that can change any file.
const (
	// MaxFileSize is the largest file the scan keeps; larger ones are
	// reported as skipped. Pre-images of files codeloop's own tools change
	// are kept whatever their size.
	MaxFileSize = 10 << 20
	// MaxNewEntries is how many entries a directory may add at once before
	// the scan skips it (a data set unpacked, a cache filled).
	MaxNewEntries = 5000
)

// ignoredDirs are skipped wherever they are, ignore files or not.
var ignoredDirs = []string{".git", "node_modules", ".venv", "venv", "__pycache__", "target", "dist",
	"build", ".cache", ".next", ".nuxt", ".gradle", ".tox", ".mypy_cache", ".pytest_cache",
	".ruff_cache", ".terraform", ".codeloop-tmp"}

// Skip is a path the scan did not keep, and why.
type Skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// stat is what the scan compares to tell that a file changed.
type stat struct {
	Size  int64       `json:"s"`
	Mtime int64       `json:"m"`
	Ctime int64       `json:"c,omitempty"`
	Ino   uint64      `json:"i,omitempty"`
	Mode  fs.FileMode `json:"o"`
}

func statOf(info fs.FileInfo) stat {
	ino, ctime := sysStat(info)
	return stat{Size: info.Size(), Mtime: info.ModTime().UnixNano(), Ctime: ctime, Ino: ino, Mode: info.Mode()}
}

// scanResult is the project as one scan found it: every kept file's stat
// by slash-separated path relative to the root.
type scanResult struct {
	files   map[string]stat
	big     map[string]stat // files over MaxFileSize: compared, not kept
	skipped []Skip
}

// scanner walks a project within the limits above.
type scanner struct {
	ctx   context.Context
	root  string
	known func(rel string) bool // whether a path was seen by an earlier scan
	out   scanResult
}

// scanTree walks root. known tells which paths earlier scans kept, for the
// new-entries limit.
func scanTree(ctx context.Context, root string, known func(string) bool) (scanResult, error) {
	sc := &scanner{ctx: ctx, root: root, known: known, out: scanResult{files: map[string]stat{}, big: map[string]stat{}}}
	var rules []gitignore.Pattern
	rules = append(rules, readIgnore(filepath.Join(root, ".git", "info", "exclude"), nil)...)
	err := sc.dir(root, nil, rules)
	return sc.out, err
}

func (sc *scanner) dir(path string, comps []string, rules []gitignore.Pattern) error {
	if err := sc.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		sc.out.skipped = append(sc.out.skipped, Skip{Path: rel(comps), Reason: "unreadable: " + err.Error()})
		return nil
	}
	if slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == ".gitignore" }) {
		rules = append(slices.Clip(rules), readIgnore(filepath.Join(path, ".gitignore"), comps)...)
	}
	if len(entries) > MaxNewEntries && sc.known != nil {
		fresh := 0
		for _, e := range entries {
			if !sc.known(rel(append(comps, e.Name()))) {
				fresh++
			}
		}
		if fresh > MaxNewEntries {
			sc.out.skipped = append(sc.out.skipped, Skip{Path: rel(comps) + "/",
				Reason: "more than 5000 new entries at once"})
			return nil
		}
	}
	var m gitignore.Matcher
	if len(rules) > 0 {
		m = gitignore.NewMatcher(rules)
	}
	for _, e := range entries {
		name := e.Name()
		c := append(slices.Clip(comps), name)
		isDir := e.IsDir()
		if isDir && slices.Contains(ignoredDirs, name) {
			continue
		}
		if m != nil && m.Match(c, isDir) {
			continue
		}
		full := filepath.Join(path, name)
		if isDir {
			if err := sc.dir(full, c, rules); err != nil {
				return err
			}
			continue
		}
		if !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
			continue // sockets, pipes, devices: nothing to restore
		}
		info, err := e.Info()
		if err != nil {
			continue // gone meanwhile
		}
		if info.Size() > MaxFileSize {
			sc.out.big[rel(c)] = statOf(info)
			continue
		}
		sc.out.files[rel(c)] = statOf(info)
	}
	return nil
}

// rel joins path components with slashes; no components is ".".
func rel(comps []string) string {
	if len(comps) == 0 {
		return "."
	}
	return strings.Join(comps, "/")
}

// readIgnore parses the ignore file at path, its patterns relative to the
// directory with components domain.
func readIgnore(path string, domain []string) []gitignore.Pattern {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimRight(s.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, slices.Clone(domain)))
	}
	return ps
}
