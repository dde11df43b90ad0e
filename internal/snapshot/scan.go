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
	// ignoreFile says the directory has a .gitignore of its own, whose
	// rules are the last of rules.
	ignoreFile bool
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

	mu    sync.Mutex // guards out, err, key, lists, emit and known
	key   []byte     // the path handed to emit
	lists []*scanList
	out   scanResult
	err   error
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
	d, err := openDir(path)
	if err != nil {
		sc.skip(Skip{Path: rel(comps), Reason: "unreadable: " + err.Error()})
		return
	}
	defer d.close()
	l := sc.takeList()
	defer sc.giveList(l)
	if err := d.list(&l.dirList, l.buf); err != nil { // unsorted: the order does not matter
		sc.skip(Skip{Path: rel(comps), Reason: "unreadable: " + err.Error()})
		return
	}
	ignoreFile := l.has(".gitignore")
	if ignoreFile {
		rules = append(slices.Clip(rules), readIgnore(filepath.Join(path, ".gitignore"), comps)...)
	}
	if len(l.ents) > MaxNewEntries && sc.known != nil {
		fresh := 0
		sc.mu.Lock()
		for i := range l.ents {
			if !sc.known(rel(append(comps, string(l.name(&l.ents[i]))))) {
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
	kept := false
	for i := range l.ents {
		e := &l.ents[i]
		if e.typ == modeUnknown {
			// The directory does not say what this is: the stat does.
			st, err := d.stat(&l.dirList, e)
			if err != nil {
				continue // gone meanwhile
			}
			e.typ, e.st, e.stated = st.Mode.Type(), st, true
		}
		name := l.name(e)
		isDir := e.typ.IsDir()
		if isDir && slices.Contains(ignoredDirs, string(name)) {
			continue
		}
		if m != nil && m.Match(append(slices.Clip(comps), string(name)), isDir) {
			continue
		}
		if isDir {
			sub := string(name)
			sc.sub(filepath.Join(path, sub), append(slices.Clip(comps), sub), rules)
			continue
		}
		if !e.typ.IsRegular() && e.typ&fs.ModeSymlink == 0 {
			continue // sockets, pipes, devices: nothing to restore
		}
		if !e.stated {
			st, err := d.stat(&l.dirList, e)
			if err != nil {
				continue // gone meanwhile
			}
			e.st = st
		}
		e.keep, kept = true, true
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.out.dirs[rel(comps)] = dirState{comps: comps, rules: rules, match: m, ignoreFile: ignoreFile}
	if !kept {
		return
	}
	for i := range l.ents {
		if e := &l.ents[i]; e.keep {
			sc.key = append(append(sc.key[:0], prefix...), l.name(e)...)
			sc.emit(sc.key, e.st, e.st.Size > MaxFileSize)
		}
	}
}

// scanList is a directory list with its read buffer.
type scanList struct {
	dirList
	buf []byte
}

// takeList returns a list for reading a directory: one a finished
// directory gave back, or a new one.
func (sc *scanner) takeList() *scanList {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if n := len(sc.lists); n > 0 {
		l := sc.lists[n-1]
		sc.lists = sc.lists[:n-1]
		return l
	}
	return &scanList{buf: make([]byte, direntBufSize)}
}

// giveList returns l for the next directory.
func (sc *scanner) giveList(l *scanList) {
	sc.mu.Lock()
	sc.lists = append(sc.lists, l)
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
