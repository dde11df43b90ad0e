package snapshot

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

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

// scanResult is what one walk found besides the files, which it hands to
// its emit function as it finds them.
type scanResult struct {
	skipped []Skip
	dirs    map[string]dirState // the directories read, by relative path ("." is the root)
}

// dirState is what a scan knew of a directory: the ignore rules in force
// for its entries.
type dirState struct {
	comps []string
	rules []gitignore.Pattern
	match gitignore.Matcher // nil when no rule applies
}

// scanner walks a project within the limits above. Directories are read
// by up to GOMAXPROCS goroutines at once: a scan is mostly lstat calls.
type scanner struct {
	ctx   context.Context
	root  string
	known func(rel string) bool // whether a path was seen by an earlier scan
	sem   chan struct{}         // a token per extra goroutine
	wg    sync.WaitGroup
	watch *watcher // when set, each directory is watched before it is read
	// emit receives each file found, by slash-separated path relative to
	// the root (valid only during the call), and whether it is over
	// MaxFileSize; it is called with mu held.
	emit func(rel []byte, st stat, big bool)

	mu  sync.Mutex // guards out, err, key, emit and known
	key []byte     // the path handed to emit
	out scanResult
	err error
}

// scanTree walks root, handing each file found to emit. known tells which
// paths earlier scans kept, for the new-entries limit.
func scanTree(ctx context.Context, root string, known func(string) bool, w *watcher, emit func([]byte, stat, bool)) (scanResult, error) {
	var rules []gitignore.Pattern
	rules = append(rules, readIgnore(filepath.Join(root, ".git", "info", "exclude"), nil)...)
	return scanFrom(ctx, root, nil, rules, known, w, emit)
}

// scanFrom scans the directory with components comps below root, with the
// ignore rules of its parent.
func scanFrom(ctx context.Context, root string, comps []string, rules []gitignore.Pattern, known func(string) bool, w *watcher, emit func([]byte, stat, bool)) (scanResult, error) {
	sc := &scanner{ctx: ctx, root: root, known: known, sem: make(chan struct{}, max(1, runtime.GOMAXPROCS(0)-1)), watch: w, emit: emit,
		out: scanResult{dirs: map[string]dirState{}}}
	sc.dir(filepath.Join(append([]string{root}, comps...)...), comps, rules)
	sc.wg.Wait()
	if sc.err == nil {
		sc.err = ctx.Err()
	}
	return sc.out, sc.err
}

// skip records a skipped path.
func (sc *scanner) skip(sk Skip) {
	sc.mu.Lock()
	sc.out.skipped = append(sc.out.skipped, sk)
	sc.mu.Unlock()
}

// sub scans a subdirectory in a goroutine of its own when a token is
// free, else in this one.
func (sc *scanner) sub(path string, comps []string, rules []gitignore.Pattern) {
	select {
	case sc.sem <- struct{}{}:
		sc.wg.Add(1)
		go func() {
			defer sc.wg.Done()
			defer func() { <-sc.sem }()
			sc.dir(path, comps, rules)
		}()
	default:
		sc.dir(path, comps, rules)
	}
}

func (sc *scanner) dir(path string, comps []string, rules []gitignore.Pattern) {
	if sc.ctx.Err() != nil {
		return
	}
	if sc.watch != nil {
		sc.watch.add(path, rel(comps))
	}
	d, err := os.Open(path)
	if err != nil {
		sc.skip(Skip{Path: rel(comps), Reason: "unreadable: " + err.Error()})
		return
	}
	defer d.Close()
	entries, err := d.ReadDir(-1) // unsorted: the order does not matter
	if err != nil {
		sc.skip(Skip{Path: rel(comps), Reason: "unreadable: " + err.Error()})
		return
	}
	if slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == ".gitignore" }) {
		rules = append(slices.Clip(rules), readIgnore(filepath.Join(path, ".gitignore"), comps)...)
	}
	if len(entries) > MaxNewEntries && sc.known != nil {
		fresh := 0
		sc.mu.Lock()
		for _, e := range entries {
			if !sc.known(rel(append(comps, e.Name()))) {
				fresh++
			}
		}
		sc.mu.Unlock()
		if fresh > MaxNewEntries {
			sc.skip(Skip{Path: rel(comps) + "/", Reason: "more than 5000 new entries at once"})
			return
		}
	}
	var m gitignore.Matcher
	if len(rules) > 0 {
		m = gitignore.NewMatcher(rules)
	}
	prefix := ""
	if len(comps) > 0 {
		prefix = rel(comps) + "/"
	}
	type found struct {
		name string
		st   stat
		big  bool
	}
	files := make([]found, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		isDir := e.IsDir()
		if isDir && slices.Contains(ignoredDirs, name) {
			continue
		}
		if m != nil && m.Match(append(slices.Clip(comps), name), isDir) {
			continue
		}
		if isDir {
			sc.sub(filepath.Join(path, name), append(slices.Clip(comps), name), rules)
			continue
		}
		if !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
			continue // sockets, pipes, devices: nothing to restore
		}
		st, err := lstatIn(d, path, name)
		if err != nil {
			continue // gone meanwhile
		}
		files = append(files, found{name, st, st.Size > MaxFileSize})
	}
	sc.mu.Lock()
	sc.out.dirs[rel(comps)] = dirState{comps: comps, rules: rules, match: m}
	for _, f := range files {
		sc.key = append(append(sc.key[:0], prefix...), f.name...)
		sc.emit(sc.key, f.st, f.big)
	}
	sc.mu.Unlock()
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
