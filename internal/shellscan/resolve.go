package shellscan

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A command run through a path (./x, bin/x, /tmp/x) may be a symbolic
// link to, or a copy of, a program that a rule names: rm reached as ./x is
// still rm. With a working directory the analysis resolves such paths and
// gives each command the names of the programs it really is, as Aliases;
// a rule about one of those programs holds for the command too.

// Alias says that the command whose pattern is Pattern runs a program also
// known by another name: As is the same command under that name.
type Alias struct {
	Pattern string `json:"pattern"`
	As      string `json:"as"`
}

// AnalyzeOptions say how to analyse a shell text.
type AnalyzeOptions struct {
	// Shell is the shell that runs the text (a name or path); empty means
	// bash.
	Shell string
	// Dir is the directory the text runs in. When set, programs run
	// through a path are resolved from it; when empty they are judged by
	// the name they are called by.
	Dir string
	// Path is the PATH the text runs with, where copies of programs are
	// looked for; Home is the home directory, for "~/…" paths.
	Path, Home string
}

// Analyze is AnalyzeShell with options: with opts.Dir set, a command run
// through a path that is a symbolic link (at any depth) or a copy of an
// installed program gets an Alias for each other name it has, and one run
// through a path that does not exist yet, or from a directory only known at
// run time, is unanalysable, since what it runs cannot be known.
func Analyze(cmd string, opts AnalyzeOptions) Analysis {
	shell := opts.Shell
	if shell == "" {
		shell = "bash"
	}
	z := newAnalyzer()
	z.resolving = opts.Dir != ""
	z.run(cmd, shell)
	if z.resolving {
		z.resolvePrograms(opts)
	}
	z.out.Reason = strings.Join(z.reasons, "; ")
	z.out.Unanalysable = len(z.reasons) > 0
	return z.out
}

// progRef is a command run through a path, kept for resolving.
type progRef struct {
	word    string // the path as expanded
	name    string // the name the command is judged by
	pattern string // the command's pattern
}

// noteProgram records a command whose program word is a path.
func (z *analyzer) noteProgram(word, name, pattern string) {
	if z.resolving && strings.Contains(word, "/") {
		z.progs = append(z.progs, progRef{word: word, name: name, pattern: pattern})
	}
}

// noteDir records a directory a command changes to: a known one is a
// candidate for resolving relative program paths; an unknown one (ok
// false) makes them unresolvable.
func (z *analyzer) noteDir(dir string, ok bool) {
	if !z.resolving {
		return
	}
	if !ok {
		z.dirUnknown = true
		return
	}
	z.dirs = append(z.dirs, dir)
}

// resolvePrograms adds the aliases of the commands run through paths.
func (z *analyzer) resolvePrograms(opts AnalyzeOptions) {
	if len(z.progs) == 0 {
		return
	}
	dirs := []string{opts.Dir}
	for _, d := range z.dirs {
		d = expandHome(d, opts.Home)
		if filepath.IsAbs(d) {
			dirs = append(dirs, d)
			continue
		}
		for _, base := range slices.Clone(dirs) {
			dirs = append(dirs, filepath.Join(base, d))
		}
	}
	var copies *programIndex
	seen := make(map[Alias]bool)
	for _, p := range z.progs {
		word := expandHome(p.word, opts.Home)
		var paths []string
		if filepath.IsAbs(word) {
			paths = []string{word}
		} else if z.dirUnknown {
			z.fail("%s is run from a directory only known when the command runs, so the program it is cannot be known", p.word)
			continue
		} else {
			for _, d := range dirs {
				paths = append(paths, filepath.Join(d, word))
			}
		}
		for _, path := range paths {
			names, ok := linkNames(path)
			if !ok {
				z.fail("%s does not exist before the command runs, so the program it is cannot be known; run it in a separate command once it exists, with the tool's working directory rather than cd", p.word)
				break
			}
			if copies == nil {
				copies = newProgramIndex(opts.Path)
			}
			for _, target := range names {
				z.alias(seen, p, filepath.Base(target))
			}
			for _, name := range copies.sameAs(names[len(names)-1]) {
				z.alias(seen, p, name)
			}
		}
	}
}

// alias records that the command of p is also the program name.
func (z *analyzer) alias(seen map[Alias]bool, p progRef, name string) {
	name = programName(name)
	if name == "" || name == p.name {
		return
	}
	a := Alias{Pattern: p.pattern, As: name + strings.TrimPrefix(p.pattern, p.name)}
	if !seen[a] {
		seen[a] = true
		z.out.Aliases = append(z.out.Aliases, a)
	}
}

// linkNames follows the symbolic links from path and returns the path of
// every link target in turn, the file finally reached last; false when
// path does not exist or the links do not end.
func linkNames(path string) ([]string, bool) {
	var out []string
	for range maxLinks {
		fi, err := os.Lstat(path)
		if err != nil {
			return nil, false
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			return append(out, path), true
		}
		target, err := os.Readlink(path)
		if err != nil {
			return nil, false
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		out = append(out, target)
		path = target
	}
	return nil, false
}

// programIndex finds the installed programs a file is a copy or a hard
// link of. It lists the PATH directories once, when first asked.
type programIndex struct {
	path  string
	files []indexed
	done  bool
}

type indexed struct {
	name string
	path string
	info os.FileInfo
}

func newProgramIndex(path string) *programIndex { return &programIndex{path: path} }

func (x *programIndex) load() {
	x.done = true
	for _, dir := range filepath.SplitList(x.path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			fi, err := os.Stat(p)
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
				continue
			}
			x.files = append(x.files, indexed{name: e.Name(), path: p, info: fi})
		}
	}
}

// sameAs returns the names of the installed programs that file is: the
// same file, or one with the same content.
func (x *programIndex) sameAs(file string) []string {
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return nil
	}
	if !x.done {
		x.load()
	}
	var out []string
	for _, c := range x.files {
		if os.SameFile(fi, c.info) || (c.info.Size() == fi.Size() && sameContent(file, c.path)) {
			out = append(out, c.name)
		}
	}
	return out
}

// sameContent reports whether two files hold the same bytes.
func sameContent(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return ea != nil && eb != nil
		}
	}
}
