package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ConfigFiles are the names of a project's config files, read in each
// directory from the worktree root down to the working directory, and in
// each of its ConfigDirs.
var configFiles = []string{"opencode.json", "opencode.jsonc", "codeloop.json", "codeloop.jsonc"}

// ConfigFiles returns the names of the config files a project directory
// may hold, in the order they are read.
func ConfigFiles() []string { return slices.Clone(configFiles) }

// ConfigDirs returns the names of the config directories a project
// directory may hold, in the order they are read.
func ConfigDirs() []string { return []string{".opencode", ".codeloop"} }

// surfaceSubdirs are the sub-directories of a config directory whose files
// can name commands or permissions: agents, commands, tools, hooks,
// plugins.
var surfaceSubdirs = []string{"agent", "agents", "mode", "modes", "command", "commands", "tool", "tools",
	"hooks", "plugin", "plugins"}

// claudeSurface are the parts of a project's .claude directory that can
// name commands or permissions.
var claudeSurface = []string{"settings.json", "settings.local.json", "hooks", "agents", "commands"}

// maxFiles bounds how many files a fingerprint reads; maxFileBytes how
// much of one.
const (
	maxFiles     = 2000
	maxFileBytes = 16 << 20
)

// Surface lists the files and directories of a project, from worktree down
// to cwd, that can make codeloop run something or loosen a protection:
// the config files, .mcp.json, the config directories' config files and
// their agent, command, tool, hook and plugin directories, and
// .claude/settings*.json with .claude's hooks, agents and commands.
// Entries that do not exist are listed too: creating one changes the
// fingerprint.
func Surface(worktree, cwd string) []string {
	var out []string
	for _, d := range chain(cwd, worktree) {
		for _, f := range configFiles {
			out = append(out, filepath.Join(d, f))
		}
		out = append(out, filepath.Join(d, ".mcp.json"))
		for _, cd := range ConfigDirs() {
			base := filepath.Join(d, cd)
			for _, f := range configFiles {
				out = append(out, filepath.Join(base, f))
			}
			for _, s := range surfaceSubdirs {
				out = append(out, filepath.Join(base, s))
			}
		}
		for _, s := range claudeSurface {
			out = append(out, filepath.Join(d, ".claude", s))
		}
	}
	return out
}

// chain lists the directories from root down to dir, both included; root
// must be dir or one of its ancestors, else only dir is listed.
func chain(dir, root string) []string {
	var out []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	if out[len(out)-1] != root {
		return []string{filepath.Clean(dir)}
	}
	slices.Reverse(out)
	return out
}

// Fingerprint maps each existing file of a project's surface, relative to
// the project, to a digest of its mode and content.
type Fingerprint map[string]string

// Sum fingerprints paths (files, or directories walked for their files,
// node_modules left out) relative to dir. Paths that do not exist are left
// out; at most maxFiles files are read. A symbolic link counts with what
// it leads to inside dir: a link to a file with the file's content, a link
// to a directory with the files below it, so that a change to what a link
// points at changes the fingerprint as a change to the link would. Links
// leading out of dir count by their text only.
func Sum(dir string, paths []string) Fingerprint {
	s := summer{dir: dir, root: dir, fp: Fingerprint{}, seen: map[string]bool{}}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		s.root = r
	}
	for _, p := range paths {
		s.path(p, p)
	}
	return s.fp
}

// summer collects a Fingerprint; root is dir with its links resolved, and
// seen holds the resolved directories being walked through a link, so
// that a link loop ends.
type summer struct {
	dir  string
	root string
	fp   Fingerprint
	seen map[string]bool
}

// add records the file read at real under the name name; target is what
// a link leads to inside the project (see follow), "" otherwise.
func (s *summer) add(name, real string, mode fs.FileMode, target string) {
	if len(s.fp) >= maxFiles {
		return
	}
	key := name
	if r, err := filepath.Rel(s.dir, name); err == nil && !strings.HasPrefix(r, "..") {
		key = filepath.ToSlash(r)
	}
	s.fp[key] = digestFile(real, mode, target)
}

// follow returns what the link real leads to when that is inside the
// project, else "".
func (s *summer) follow(real string) string {
	target, err := filepath.EvalSymlinks(real)
	if err != nil {
		return ""
	}
	if r, err := filepath.Rel(s.root, target); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return ""
	}
	return target
}

// path records the file or directory at real under the name name; a
// directory is walked, and a link to a directory is followed.
func (s *summer) path(name, real string) {
	st, err := os.Lstat(real)
	if err != nil {
		return
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		target := s.follow(real)
		s.add(name, real, st.Mode(), target)
		if target == "" {
			return
		}
		if t, err := os.Stat(target); err == nil && t.IsDir() && !s.seen[target] {
			s.seen[target] = true
			s.walk(name, target)
			delete(s.seen, target)
		}
		return
	}
	if !st.IsDir() {
		s.add(name, real, st.Mode(), "")
		return
	}
	s.walk(name, real)
}

// walk records the files below the directory real under name.
func (s *summer) walk(name, real string) {
	_ = filepath.WalkDir(real, func(q string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() && e.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if len(s.fp) >= maxFiles {
			return filepath.SkipAll
		}
		if q == real || e.IsDir() {
			return nil
		}
		r, err := filepath.Rel(real, q)
		if err != nil {
			return nil
		}
		s.path(filepath.Join(name, r), q)
		return nil
	})
}

// digestFile sums up a file's type, permissions and content; for a
// symbolic link, the link's text and, when target is not "", the type and
// content of target, the file it leads to. Only regular files are read, so
// a named pipe never blocks.
func digestFile(p string, mode fs.FileMode, target string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%v\n", mode)
	if mode&fs.ModeSymlink != 0 {
		t, _ := os.Readlink(p)
		h.Write([]byte(t))
		st, err := os.Stat(target)
		if target == "" || err != nil {
			return hex.EncodeToString(h.Sum(nil))
		}
		p, mode = target, st.Mode()
		fmt.Fprintf(h, "\n%v\n", mode)
	}
	if mode.IsRegular() {
		if f, err := os.Open(p); err == nil {
			_, _ = io.Copy(h, io.LimitReader(f, maxFileBytes))
			_ = f.Close()
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Diff describes how now differs from fp, one line a file, sorted.
func (fp Fingerprint) Diff(now Fingerprint) []string {
	var out []string
	for p, d := range now {
		old, ok := fp[p]
		switch {
		case !ok:
			out = append(out, "added "+p)
		case old != d:
			out = append(out, "changed "+p)
		}
	}
	for p := range fp {
		if _, ok := now[p]; !ok {
			out = append(out, "removed "+p)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		return strings.Compare(a[strings.IndexByte(a, ' '):], b[strings.IndexByte(b, ' '):])
	})
	return out
}

// Referenced returns the files inside dir that a command line names (a
// script it runs, a server's entry file), so that a change to one changes
// the project's fingerprint. Words are split on white space and quotes;
// $CLAUDE_PROJECT_DIR and ${CLAUDE_PROJECT_DIR} stand for dir.
func Referenced(dir, cmdline string) []string {
	var out []string
	cmdline = strings.NewReplacer("${CLAUDE_PROJECT_DIR}", dir, "$CLAUDE_PROJECT_DIR", dir, `"`, "", "'", "").Replace(cmdline)
	for _, w := range strings.FieldsFunc(cmdline, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '=' || r == ';' || r == '&' || r == '|'
	}) {
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		p = filepath.Clean(p)
		if r, err := filepath.Rel(dir, p); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// OwnFiles returns the names of the files and directories a project
// directory may hold that configure codeloop and the agents whose files it
// reads: the config files, .mcp.json, and the .opencode, .codeloop and
// .claude directories. Nothing but the user, through codeloop, may change
// them: codeloop's edit tools ask every time and the sandbox keeps them
// read-only.
func OwnFiles() (files, dirs []string) {
	return append(ConfigFiles(), ".mcp.json"), append(ConfigDirs(), ".claude")
}
