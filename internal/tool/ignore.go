package tool

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

// The walker below decides what a search sees the way ripgrep does, so the
// Go search and ripgrep agree: .gitignore files count inside a git
// repository (a directory holding .git, or below one), .ignore and .rgignore
// files count everywhere, and so do those of the directories above the
// search root (.gitignore only up to the repository root). .git/info/exclude
// of the repository counts too; the user's global excludes file does not.
// Precedence follows ripgrep: any .rgignore match first, then .ignore, then
// .gitignore, then the exclude file; within one kind the deepest file wins.

// ignoreKinds are the ignore file kinds, in rising precedence.
const (
	kindExclude = iota
	kindGitignore
	kindIgnore
	kindRgignore
	numKinds
)

type ignoreRules [numKinds][]gitignore.Pattern

// with returns rules extended by the ignore files of dir (path components
// comps); inRepo says whether .gitignore files count there. has, when not
// nil, tells which names dir holds, to spare opening absent files.
func (r ignoreRules) with(dir string, comps []string, inRepo, repoRoot bool, has func(string) bool) ignoreRules {
	add := func(kind int, file string) {
		if has != nil && !has(strings.SplitN(file, string(filepath.Separator), 2)[0]) {
			return
		}
		ps := readIgnore(filepath.Join(dir, file), comps)
		if len(ps) > 0 {
			r[kind] = append(slices.Clip(r[kind]), ps...)
		}
	}
	if repoRoot {
		add(kindExclude, filepath.Join(".git", "info", "exclude"))
	}
	if inRepo {
		add(kindGitignore, ".gitignore")
	}
	add(kindIgnore, ".ignore")
	add(kindRgignore, ".rgignore")
	return r
}

// ignored reports whether the rules exclude the path with these components.
func (r ignoreRules) ignored(comps []string, isDir bool) bool {
	for kind := numKinds - 1; kind >= 0; kind-- {
		ps := r[kind]
		for i := len(ps) - 1; i >= 0; i-- {
			switch ps[i].Match(comps, isDir) {
			case gitignore.Exclude:
				return true
			case gitignore.Include:
				return false
			}
		}
	}
	return false
}

func readIgnore(path string, domain []string) []gitignore.Pattern {
	f, err := openRegular(path) // an ignore file that is a named pipe is skipped, not waited on
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		s := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(s, "#") || strings.TrimSpace(s) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(s, domain))
	}
	return ps
}

// components splits a clean absolute path into its names.
func components(path string) []string {
	path = filepath.ToSlash(path)
	path = strings.TrimPrefix(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

func isGitRepo(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

// walkOptions choose what a walk yields.
type walkOptions struct {
	hidden bool // also entries whose names start with "."
}

// rulesAbove returns the ignore rules of the directories above root (a
// clean absolute path), and the root of the git repository holding root,
// "" for none.
func rulesAbove(root string) (ignoreRules, string) {
	var rules ignoreRules
	repoRoot := ""
	for d := root; ; {
		if isGitRepo(d) {
			repoRoot = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	var ancestors []string
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		ancestors = append(ancestors, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if root == filepath.Dir(root) {
		ancestors = nil
	}
	for i := len(ancestors) - 1; i >= 0; i-- {
		d := ancestors[i]
		inRepo := repoRoot != "" && within(repoRoot, d)
		rules = rules.with(d, components(d), inRepo, d == repoRoot, nil)
	}
	return rules, repoRoot
}

// walkFiles calls fn, in lexical order, for every regular file under root
// that the ignore rules and opts let through. Symbolic links are not
// followed and .git directories are skipped. fn returning fs.SkipAll ends
// the walk early without error.
func walkFiles(ctx context.Context, root string, opts walkOptions, fn func(path string) error) error {
	root = filepath.Clean(root)
	rules, repoRoot := rulesAbove(root)
	w := &walker{ctx: ctx, opts: opts, fn: fn}
	err := w.dir(root, components(root), rules, repoRoot != "")
	if err == fs.SkipAll {
		return nil
	}
	return err
}

type walker struct {
	ctx  context.Context
	opts walkOptions
	fn   func(string) error
}

func (w *walker) dir(dir string, comps []string, rules ignoreRules, inRepo bool) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable directories are skipped, as ripgrep does
	}
	isRoot, hasIgnore := false, false
	for _, e := range entries {
		switch e.Name() {
		case ".git":
			isRoot = true
		case ".gitignore", ".ignore", ".rgignore":
			hasIgnore = true
		}
	}
	inRepo = inRepo || isRoot
	if isRoot || hasIgnore {
		has := func(name string) bool {
			_, found := slices.BinarySearchFunc(entries, name, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
			return found
		}
		rules = rules.with(dir, comps, inRepo, isRoot, has)
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		if !w.opts.hidden && strings.HasPrefix(name, ".") {
			continue
		}
		t := e.Type()
		if t&fs.ModeSymlink != 0 || (!t.IsDir() && !t.IsRegular()) {
			continue
		}
		sub := append(slices.Clip(comps), name)
		if rules.ignored(sub, t.IsDir()) {
			continue
		}
		path := filepath.Join(dir, name)
		if t.IsDir() {
			if err := w.dir(path, sub, rules, inRepo); err != nil {
				return err
			}
			continue
		}
		if err := w.fn(path); err != nil {
			return err
		}
	}
	return nil
}
