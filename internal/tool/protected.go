package tool

import (
	"bufio"
	"github.com/codeloop/codeloop/internal/trust"
	"os"
	"path/filepath"
	"strings"

	"github.com/codeloop/codeloop/internal/permission"
)

// protectedNames returns the paths that write, edit and apply_patch change
// only with the user's approval, asked every time: what configures
// codeloop, other agents and their tools, where a change runs code later
// (an MCP server, a config's commands, a hook). Files are protected at the
// project root and in each directory from it down to the working
// directory; so are directories, with everything under them. Everything
// under .git is protected wherever it is (see ProtectedPath). This is the
// one list of them in this package; the OS sandbox keeps a list of its own.
func protectedNames() (files, dirs []string) { return trust.OwnFiles() }

// ProtectedPath reports whether the absolute path is protected in the
// project rooted at worktree whose working directory is dir, and says
// why. Protected are: anything under a directory named .git, at any depth;
// when worktree/.git is a file, the git directory it points to and that
// directory's common directory; and the files and directories of
// protectedNames in worktree and each directory between it and dir.
// Names are compared without regard to case, and a path is checked as
// written and with its symbolic links resolved.
func ProtectedPath(worktree, dir, path string) (string, bool) {
	if worktree == "" {
		worktree = dir
	}
	if why, ok := protectedPath(worktree, dir, filepath.Clean(path)); ok {
		return why, true
	}
	real := resolveExisting(path)
	if real == filepath.Clean(path) {
		return "", false
	}
	return protectedPath(resolveExisting(worktree), resolveExisting(dir), real)
}

func protectedPath(worktree, dir, path string) (string, bool) {
	for _, c := range strings.Split(filepath.ToSlash(path), "/") {
		if strings.EqualFold(c, ".git") {
			return "it is inside a .git directory", true
		}
	}
	for _, g := range gitDirs(worktree) {
		if within(g, path) {
			return "it is inside the project's git directory " + g, true
		}
	}
	chain := []string{worktree}
	if dir != "" && dir != worktree && within(worktree, dir) {
		rel, _ := filepath.Rel(worktree, dir)
		d := worktree
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			d = filepath.Join(d, c)
			chain = append(chain, d)
		}
	}
	files, dirs := protectedNames()
	for _, d := range chain {
		if !within(d, path) || path == d {
			continue
		}
		rel, _ := filepath.Rel(d, path)
		first, rest, _ := strings.Cut(rel, string(filepath.Separator))
		for _, n := range dirs {
			if strings.EqualFold(first, n) {
				return "it is inside " + filepath.Join(d, first), true
			}
		}
		if rest != "" {
			continue
		}
		for _, n := range files {
			if strings.EqualFold(first, n) {
				return "it is a configuration file of codeloop or of another agent", true
			}
		}
	}
	return "", false
}

// gitDirs returns, when worktree/.git is a file ("gitdir: <path>"), the
// git directory it names and that directory's common directory (from its
// commondir file), resolved.
func gitDirs(worktree string) []string {
	dotgit := filepath.Join(worktree, ".git")
	st, err := os.Lstat(dotgit)
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	g := readFirstLine(dotgit)
	g, ok := strings.CutPrefix(g, "gitdir:")
	if !ok || strings.TrimSpace(g) == "" {
		return nil
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(worktree, g)
	}
	dirs := []string{filepath.Clean(g), resolveExisting(g)}
	if c := readFirstLine(filepath.Join(g, "commondir")); c != "" {
		if !filepath.IsAbs(c) {
			c = filepath.Join(g, c)
		}
		dirs = append(dirs, filepath.Clean(c), resolveExisting(c))
	}
	return dirs
}

// readFirstLine returns the first line of a small file, trimmed, or "".
func readFirstLine(path string) string {
	f, err := openRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if sc.Scan() {
		return strings.TrimSpace(sc.Text())
	}
	return ""
}

// resolveExisting returns path (absolute) with the symbolic links of its
// longest existing prefix resolved.
func resolveExisting(path string) string {
	path = filepath.Clean(path)
	rest := ""
	for p := path; ; {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// protectEdit marks req, an edit of the absolute paths, as protected when
// one of them is: asked every time, never approved for later.
func protectEdit(call *Call, paths []string, req *permission.Request) {
	var why []string
	for _, p := range paths {
		if reason, ok := ProtectedPath(call.Worktree, baseDir(call), p); ok {
			why = append(why, relPath(call, p)+" ("+reason+")")
		}
	}
	if len(why) == 0 {
		return
	}
	req.Always, req.Protected = nil, true
	req.Reason = "git's, codeloop's and other agents' own files are protected: " + strings.Join(why, ", ")
	req.Metadata["protected"] = why
}
