package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/trust"
)

// LoadOptions say where to look for config.
type LoadOptions struct {
	// Cwd is the working directory; project config is found from here up
	// to the worktree root.
	Cwd string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Dirs are codeloop's directories; Dirs.Config is the global config
	// directory and Dirs.Home the home directory.
	Dirs paths.Dirs
	// KnownProvider reports whether a provider id is one codeloop knows
	// credentials for without any config (the catalog's); a project's
	// address for such a provider is held back until it is trusted. Nil
	// means every provider is.
	KnownProvider func(id string) bool
}

// Names of the config files, in the order they are read within one
// directory: OpenCode's first, so codeloop's own win.
var (
	globalOpenCodeFiles = []string{"config.json", "opencode.json", "opencode.jsonc"}
	globalCodeloopFiles = []string{"config.json", "codeloop.json", "codeloop.jsonc"}
	projectFiles        = trust.ConfigFiles()
	dirNames            = trust.ConfigDirs()
)

// Load reads and merges every config source, later ones winning:
//
//  1. the MCP servers of Claude Code's ~/.claude.json (the user's, and
//     those added for this project), then the global directories
//     ~/.config/opencode and ~/.config/codeloop
//  2. the files named by OPENCODE_CONFIG and CODELOOP_CONFIG
//  3. Claude Code's .mcp.json, then opencode.json[c] and codeloop.json[c],
//     in each directory from the worktree root down to the working
//     directory (unless
//     CODELOOP_DISABLE_PROJECT_CONFIG or OPENCODE_DISABLE_PROJECT_CONFIG)
//  4. the same files in each config directory: .opencode and .codeloop from
//     the worktree root down, ~/.opencode, ~/.codeloop, OPENCODE_CONFIG_DIR
//     and CODELOOP_CONFIG_DIR
//  5. the text of OPENCODE_CONFIG_CONTENT and CODELOOP_CONFIG_CONTENT
//  6. OPENCODE_PERMISSION and CODELOOP_PERMISSION, each a permission value
//
// Files of the project (3, and the project's directories of 4) are read
// twice: in full into Loaded.Trusted, and into Loaded.Guarded without
// {env:}/{file:} substitution and without what they would run or loosen
// (Loaded.HeldBack lists it). Loaded.Config is Guarded until Use(true).
//
// Errors in a file are *Error values naming the file, line and column.
func Load(ctx context.Context, opts LoadOptions) (*Loaded, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	cwd, err := filepath.Abs(opts.Cwd)
	if err != nil {
		return nil, fmt.Errorf("config: working directory: %w", err)
	}
	home := opts.Dirs.Home
	if home == "" {
		home = getenv("HOME")
	}
	l := &loader{getenv: getenv, home: home, known: opts.KnownProvider, out: &Loaded{
		Trusted:  &Config{},
		Guarded:  &Config{},
		Sources:  map[string]string{},
		Worktree: worktree(cwd),
	}}
	out := l.out
	l.root = out.Worktree

	// 1. Global directories, after the MCP servers of Claude Code's
	// ~/.claude.json.
	if !claudeDisabled(getenv) {
		l.claudeUserMCP(home)
	}
	l.dir(ctx, opts.Dirs.OpenCodeConfig(getenv), globalOpenCodeFiles)
	l.dir(ctx, globalCodeloopDir(opts.Dirs, getenv, home), globalCodeloopFiles)

	// 2. Explicit files.
	for _, name := range []string{"OPENCODE_CONFIG", "CODELOOP_CONFIG"} {
		if p := getenv(name); p != "" {
			l.file(ctx, absFrom(cwd, p), true)
		}
	}

	// 3. Project files, outermost first.
	project := getenv("CODELOOP_DISABLE_PROJECT_CONFIG") == "" && getenv("OPENCODE_DISABLE_PROJECT_CONFIG") == ""
	chain := ancestors(cwd, out.Worktree)
	if project {
		l.project = true
		for _, d := range chain {
			l.mcpJSON(ctx, d)
			for _, f := range projectFiles {
				l.file(ctx, filepath.Join(d, f), false)
			}
		}
		l.project = false
	}

	// 4. Config directories.
	var dirs []string
	if project {
		l.project = true
		for _, d := range chain {
			for _, n := range dirNames {
				l.dir(ctx, filepath.Join(d, n), projectFiles)
			}
		}
		l.project = false
	}
	if home != "" {
		for _, n := range dirNames {
			dirs = append(dirs, filepath.Join(home, n))
		}
	}
	for _, name := range []string{"OPENCODE_CONFIG_DIR", "CODELOOP_CONFIG_DIR"} {
		if p := getenv(name); p != "" {
			dirs = append(dirs, absFrom(cwd, p))
		}
	}
	for _, d := range dirs {
		l.dir(ctx, d, projectFiles)
	}

	// 5. Inline content.
	for _, name := range []string{"OPENCODE_CONFIG_CONTENT", "CODELOOP_CONFIG_CONTENT"} {
		if text := getenv(name); text != "" {
			l.text(name, []byte(text), cwd)
		}
	}

	// 6. Permission overrides.
	for _, name := range []string{"OPENCODE_PERMISSION", "CODELOOP_PERMISSION"} {
		if text := getenv(name); text != "" {
			l.permission(name, text)
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out.HeldBack = trust.Sort(append(out.HeldBack, l.acc.finish(out.Guarded)...))
	out.Config = out.Guarded
	return out, nil
}

// loader accumulates layers; the first error stops further reading.
type loader struct {
	getenv func(string) string
	home   string
	out    *Loaded
	err    error
	// project is set while the project's own files are read; root is the
	// project's directory.
	project bool
	root    string
	acc     guarded
	known   func(string) bool
}

// credentials reports whether the user's credentials could reach provider
// id: the catalog knows it, or the user's config defines it.
func (l *loader) credentials(id string) bool {
	if _, ok := l.out.Guarded.Provider[id]; ok {
		return true
	}
	return l.known == nil || l.known(id)
}

// dir records d as a config directory when it exists and reads its files.
func (l *loader) dir(ctx context.Context, d string, files []string) {
	if l.err != nil || d == "" || !isDir(d) || slices.Contains(l.out.Dirs, d) {
		return
	}
	l.out.Dirs = append(l.out.Dirs, d)
	if l.project {
		l.out.ProjectDirs = append(l.out.ProjectDirs, d)
	}
	for _, f := range files {
		l.file(ctx, filepath.Join(d, f), false)
	}
}

// file reads and merges one file; a missing file is an error only when
// required.
func (l *loader) file(ctx context.Context, path string, required bool) {
	if l.err != nil {
		return
	}
	if err := ctx.Err(); err != nil {
		l.err = err
		return
	}
	if slices.Contains(l.out.Files, path) {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist) && !required:
		case errors.Is(err, fs.ErrNotExist):
			l.err = &Error{File: path, Msg: "config file does not exist"}
		case !required && isDir(path):
		default:
			l.err = &Error{File: path, Msg: err.Error()}
		}
		return
	}
	l.out.Files = append(l.out.Files, path)
	if l.project {
		l.out.ProjectFiles = append(l.out.ProjectFiles, path)
	}
	l.text(path, data, filepath.Dir(path))
}

// text parses one config text and merges it into both views: in full into
// Trusted, and into Guarded either in full (the user's) or, for the
// project's own files, without substitution and with what they would run
// or loosen held back.
func (l *loader) text(name string, data []byte, dir string) {
	l.layers(name, dir, data, data, data)
}

// layers merges full into Trusted and guarded into Guarded, as text does;
// lines is the file's text for the line numbers of what is held back.
func (l *loader) layers(name, dir string, full, guarded, lines []byte) {
	if l.err != nil {
		return
	}
	opts := ParseOptions{Name: name, Dir: dir, Home: l.home, Getenv: l.getenv}
	layer, err := parseLayer(full, opts)
	if err != nil {
		l.err = err
		return
	}
	stampLayer(layer.cfg, name, dir, l.home)
	if l.project {
		layer.cfg.SecretFiles = addOnly(layer.cfg.SecretFiles)
	}
	merge(l.out.Trusted, layer.cfg)
	for _, k := range layer.keys {
		l.out.Sources[k] = name
	}
	opts.NoSubstitute = l.project
	again, err := parseLayer(guarded, opts)
	if err != nil {
		l.err = err
		return
	}
	stampLayer(again.cfg, name, dir, l.home)
	if l.project {
		again.cfg.SecretFiles = addOnly(again.cfg.SecretFiles)
		l.out.HeldBack = append(l.out.HeldBack, guard(again.cfg, name, lines, l.root, l.credentials, &l.acc)...)
	}
	merge(l.out.Guarded, again.cfg)
}

// addOnly drops the "!pattern" entries of a project's secret_files: a
// project may add secret files, trusted or not, and never exempt one.
func addOnly(patterns []string) []string {
	return slices.DeleteFunc(patterns, func(p string) bool { return strings.HasPrefix(strings.TrimSpace(p), "!") })
}

// stampLayer records which file each hook group came from, and makes the
// custom tool paths absolute: relative to the file's directory, ~/ to
// home.
func stampLayer(c *Config, name, dir, home string) {
	for _, groups := range c.Hooks {
		for i := range groups {
			groups[i].Source = name
		}
	}
	for i, p := range c.CustomTools {
		switch {
		case home != "" && (p == "~" || strings.HasPrefix(p, "~/")):
			c.CustomTools[i] = filepath.Join(home, strings.TrimPrefix(p, "~"))
		case !filepath.IsAbs(p) && dir != "":
			c.CustomTools[i] = filepath.Join(dir, p)
		}
	}
}

// permission merges a permission value given in an environment variable.
func (l *loader) permission(name, text string) {
	if l.err != nil {
		return
	}
	for _, dst := range []*Config{l.out.Trusted, l.out.Guarded} {
		layer, err := parseLayer([]byte(`{"permission":`+text+"\n}"), ParseOptions{Name: name, Home: l.home, Getenv: l.getenv})
		if err != nil {
			var ce *Error
			if errors.As(err, &ce) {
				ce.Line, ce.Col = 0, 0 // positions in the wrapper would mislead
			}
			l.err = err
			return
		}
		merge(dst, layer.cfg)
	}
	l.out.Sources["permission"] = name
}

// globalCodeloopDir is codeloop's global config directory. When
// CODELOOP_CONFIG_DIR is set, paths.Resolve makes it Dirs.Config; it is then
// read as a config directory (step 4), and the XDG default stays global.
func globalCodeloopDir(d paths.Dirs, getenv func(string) string, home string) string {
	if getenv("CODELOOP_CONFIG_DIR") == "" && d.Config != "" {
		return d.Config
	}
	if v := getenv("XDG_CONFIG_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, paths.App)
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".config", paths.App)
}

// worktree is the nearest ancestor of dir (dir included) holding .git, or
// dir itself.
func worktree(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// ancestors lists the directories from root down to dir, both included;
// root must be dir or one of its ancestors.
func ancestors(dir, root string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		out = append(out, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	slices.Reverse(out)
	return out
}

func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
