package sandbox

import (
	"bufio"
	"github.com/codeloop/codeloop/internal/trust"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// gitPrefix starts a protected path that names an entry of the project's
// git directories rather than of the project.
const gitPrefix = ".git/"

// DefaultProtected returns the paths, relative to the project, that
// confined commands may not change: code and settings that git or codeloop
// would run or read later on the user's behalf. A path that starts with
// ".git/" names that entry in each of the project's git directories: .git
// itself, or, when .git is a file (a linked worktree), the git directory it
// points to and that directory's common directory.
func DefaultProtected() []string {
	files, dirs := trust.OwnFiles()
	return append(append([]string{
		".git/config", ".git/config.worktree", ".git/commondir", ".git/hooks", ".git/info", ".git/modules",
	}, files...), dirs...)
}

// ProtectedPaths returns the absolute paths of project that confined
// commands may not change, whether they exist or not, sorted: the
// protected paths of DefaultProtected, the project's .git, and the git
// directories a .git file points to (with their worktrees' directories). A
// path is protected when it is one of these or lies beneath one. A confined
// command may write inside a git directory (objects, refs, the index) but
// may not rename or remove it, nor change its config, hooks, info, modules,
// commondir or config.worktree.
func ProtectedPaths(project string) []string {
	out := make([]string, 0, 24)
	for _, e := range protectionOf(project, DefaultProtected()) {
		out = append(out, e.path)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// protected is one protected path and how the helper protects it.
type protected struct {
	path string
	// readOnly paths are bound onto themselves read-only. The others, git
	// directories, are bound onto themselves writable: a mount point can
	// be neither renamed nor removed, and the read-only entries inside
	// stay where they are.
	readOnly bool
}

// protection returns the protected paths of the policy, parents before
// what lies beneath them.
func (p Policy) protection() []protected {
	if p.Mode == ModeOff {
		return nil
	}
	rel := p.Protected
	if rel == nil {
		rel = DefaultProtected()
	}
	return protectionOf(p.Project, rel)
}

// protectionOf resolves rel, paths relative to project, to the absolute
// protected paths, git directories included, sorted so that a path comes
// before those beneath it.
func protectionOf(project string, rel []string) []protected {
	var out []protected
	var inGit []string
	for _, r := range rel {
		r = filepath.Clean(r)
		if r == ".git" {
			continue // always protected, below
		}
		if rest, ok := strings.CutPrefix(r, gitPrefix); ok {
			inGit = append(inGit, rest)
			continue
		}
		out = append(out, protected{path: filepath.Join(project, r), readOnly: true})
	}
	dotGit := filepath.Join(project, ".git")
	info, err := os.Lstat(dotGit)
	switch {
	case err != nil:
		// No repository: a command may not create one whose config and
		// hooks the user's git would then use.
		out = append(out, protected{path: dotGit, readOnly: true})
	case info.IsDir():
		out = append(out, gitDirProtection(dotGit, inGit)...)
	case info.Mode()&os.ModeSymlink != 0:
		out = append(out, protected{path: dotGit})
		if dir, err := filepath.EvalSymlinks(dotGit); err == nil {
			out = append(out, gitDirProtection(dir, inGit)...)
		}
	default:
		// A linked worktree: .git names the git directory.
		out = append(out, protected{path: dotGit, readOnly: true})
		if dir := readGitFile(dotGit); dir != "" {
			out = append(out, gitDirProtection(dir, inGit)...)
		}
	}
	slices.SortFunc(out, func(a, b protected) int { return strings.Compare(a.path, b.path) })
	return slices.CompactFunc(out, func(a, b protected) bool { return a.path == b.path })
}

// gitDirProtection protects the git directory dir, its entries named in
// inGit, its worktrees' directories and, when it names one, its common
// directory.
func gitDirProtection(dir string, inGit []string) []protected {
	out := gitEntries(dir, inGit)
	worktrees := filepath.Join(dir, "worktrees")
	if ents, err := os.ReadDir(worktrees); err == nil {
		out = append(out, protected{path: worktrees})
		for _, e := range ents {
			if e.IsDir() {
				out = append(out, gitEntries(filepath.Join(worktrees, e.Name()), inGit)...)
			}
		}
	}
	if common := readCommonDir(dir); common != "" && common != dir {
		out = append(out, gitEntries(common, inGit)...)
		cw := filepath.Join(common, "worktrees")
		if ents, err := os.ReadDir(cw); err == nil {
			out = append(out, protected{path: cw})
			for _, e := range ents {
				if e.IsDir() {
					out = append(out, gitEntries(filepath.Join(cw, e.Name()), inGit)...)
				}
			}
		}
	}
	return out
}

// gitEntries pins the git directory dir and makes its entries inGit
// read-only.
func gitEntries(dir string, inGit []string) []protected {
	out := []protected{{path: dir}}
	for _, r := range inGit {
		out = append(out, protected{path: filepath.Join(dir, r), readOnly: true})
	}
	return out
}

// readGitFile returns the absolute git directory a .git file names, or ""
// when it names none.
func readGitFile(path string) string {
	line := firstLine(path)
	dir, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return ""
	}
	return absFrom(filepath.Dir(path), strings.TrimSpace(dir))
}

// readCommonDir returns the absolute common directory the git directory
// dir names in its commondir file, or "" when it has none.
func readCommonDir(dir string) string {
	line := strings.TrimSpace(firstLine(filepath.Join(dir, "commondir")))
	if line == "" {
		return ""
	}
	return absFrom(dir, line)
}

func absFrom(base, p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// firstLine returns the first line of the regular file at path, "" when
// it cannot be read. It does not wait on a FIFO a command left there.
func firstLine(path string) string {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	sc := bufio.NewScanner(io.LimitReader(f, 4096))
	if sc.Scan() {
		return strings.TrimRight(sc.Text(), "\r")
	}
	return ""
}
