// Package format runs code formatters on the files codeloop's tools
// change. A formatter is chosen by the file's extension, and runs only when
// its program is installed and, for formatters that need one, the project
// has its config file. A formatter that fails leaves the file as written.
package format

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/codeloop/codeloop/internal/proc"
)

// DefaultTimeout bounds one formatter run.
const DefaultTimeout = 10 * time.Second

// Formatter describes a formatting program.
type Formatter struct {
	// Name identifies the formatter in the config and in results.
	Name string
	// Command is the program and its arguments; "$FILE" is replaced by the
	// file's absolute path.
	Command []string
	// Extensions are the file name extensions formatted, with their dot.
	Extensions []string
	// Env is added to codeloop's environment for the program.
	Env map[string]string
	// Needs, when not empty, are the config files of which one must be in
	// the file's directory or one above it, up to the worktree.
	Needs []Marker
	// RunsProjectCode marks a formatter that runs code of the project's
	// (prettier's JavaScript config and plugins, mix's .formatter.exs):
	// it does not run in a project the user has not trusted.
	RunsProjectCode bool
}

// Marker is a config file a formatter needs; when Contains is set the file
// must hold that text (a pyproject.toml with a [tool.ruff] table).
type Marker struct {
	Name     string
	Contains string
}

// Builtins returns the built-in formatters, in the order they are
// preferred: the first that applies to a file formats it.
func Builtins() []Formatter {
	prettierConfig := []Marker{
		{Name: ".prettierrc"}, {Name: ".prettierrc.json"}, {Name: ".prettierrc.yaml"}, {Name: ".prettierrc.yml"},
		{Name: ".prettierrc.json5"}, {Name: ".prettierrc.js"}, {Name: ".prettierrc.cjs"}, {Name: ".prettierrc.mjs"},
		{Name: ".prettierrc.toml"}, {Name: "prettier.config.js"}, {Name: "prettier.config.cjs"},
		{Name: "prettier.config.mjs"}, {Name: "prettier.config.ts"}, {Name: "package.json", Contains: `"prettier"`},
	}
	return []Formatter{
		{Name: "gofmt", Command: []string{"gofmt", "-w", "$FILE"}, Extensions: []string{".go"}},
		{Name: "prettier", Command: []string{"prettier", "--write", "$FILE"}, Needs: prettierConfig, RunsProjectCode: true,
			Extensions: []string{".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".json", ".jsonc",
				".css", ".scss", ".less", ".html", ".vue", ".svelte", ".md", ".mdx", ".yaml", ".yml", ".graphql", ".gql"}},
		{Name: "ruff", Command: []string{"ruff", "format", "$FILE"}, Extensions: []string{".py", ".pyi"},
			Needs: []Marker{{Name: "ruff.toml"}, {Name: ".ruff.toml"}, {Name: "pyproject.toml", Contains: "[tool.ruff"}}},
		{Name: "black", Command: []string{"black", "--quiet", "$FILE"}, Extensions: []string{".py", ".pyi"},
			Needs: []Marker{{Name: "pyproject.toml", Contains: "[tool.black"}}},
		{Name: "rustfmt", Command: []string{"rustfmt", "$FILE"}, Extensions: []string{".rs"}},
		{Name: "clang-format", Command: []string{"clang-format", "-i", "$FILE"},
			Extensions: []string{".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".m", ".mm"},
			Needs:      []Marker{{Name: ".clang-format"}, {Name: "_clang-format"}}},
		{Name: "shfmt", Command: []string{"shfmt", "-w", "$FILE"}, Extensions: []string{".sh", ".bash"}},
		{Name: "mix", Command: []string{"mix", "format", "$FILE"},
			Extensions: []string{".ex", ".exs", ".eex", ".heex", ".leex", ".neex", ".sface"},
			Needs:      []Marker{{Name: ".formatter.exs"}}, RunsProjectCode: true},
		{Name: "zig", Command: []string{"zig", "fmt", "$FILE"}, Extensions: []string{".zig", ".zon"}},
		{Name: "dart", Command: []string{"dart", "format", "$FILE"}, Extensions: []string{".dart"}},
		{Name: "terraform", Command: []string{"terraform", "fmt", "$FILE"}, Extensions: []string{".tf", ".tfvars"}},
		{Name: "nixfmt", Command: []string{"nixfmt", "$FILE"}, Extensions: []string{".nix"}},
	}
}

// entry is one formatter of the formatter config key, in OpenCode's shape.
type entry struct {
	Disabled    bool              `json:"disabled"`
	Command     []string          `json:"command"`
	Environment map[string]string `json:"environment"`
	Extensions  []string          `json:"extensions"`
}

// ConfigError is a problem with the formatter config key.
type ConfigError struct {
	Formatter string
	Msg       string
}

func (e *ConfigError) Error() string {
	if e.Formatter == "" {
		return "formatter config: " + e.Msg
	}
	return fmt.Sprintf("formatter config: formatter %q: %s", e.Formatter, e.Msg)
}

// Resolve applies the formatter config key (raw JSON: absent, true, false
// or an object mapping names to entries) to the built-in table. An entry
// named like a built-in formatter changes the fields it sets (a command of
// one's own also drops the config file the built-in one needs);
// "disabled": true removes it; any other name adds a formatter, which needs
// a command and extensions and comes before the built-in ones.
func Resolve(raw json.RawMessage) ([]Formatter, error) {
	fs := Builtins()
	switch strings.TrimSpace(string(raw)) {
	case "", "null", "true":
		return fs, nil
	case "false":
		return nil, nil
	}
	var entries map[string]entry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, &ConfigError{Msg: "want false, true or an object of formatters: " + err.Error()}
	}
	var added []Formatter
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		e := entries[name]
		i := slices.IndexFunc(fs, func(f Formatter) bool { return f.Name == name })
		if e.Disabled {
			if i >= 0 {
				fs = slices.Delete(fs, i, i+1)
			}
			continue
		}
		f := Formatter{Name: name}
		if i >= 0 {
			f = fs[i]
		} else if len(e.Command) == 0 || len(e.Extensions) == 0 {
			return nil, &ConfigError{Formatter: name, Msg: `a formatter codeloop does not know needs "command" (with "$FILE") and "extensions"`}
		}
		if len(e.Command) > 0 {
			f.Command, f.Needs = e.Command, nil
		}
		if len(e.Extensions) > 0 {
			f.Extensions = normalExtensions(e.Extensions)
		}
		if e.Environment != nil {
			f.Env = e.Environment
		}
		if i >= 0 {
			fs[i] = f
		} else {
			added = append(added, f)
		}
	}
	return append(added, fs...), nil
}

func normalExtensions(exts []string) []string {
	out := make([]string, 0, len(exts))
	for _, e := range exts {
		e = strings.ToLower(strings.TrimSpace(e))
		if e != "" && !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// Options configure a Runner.
type Options struct {
	Formatters []Formatter
	// Worktree is the project root: the search for config files stops
	// there, formatters run in it, and files outside it are not formatted.
	Worktree string
	// Timeout bounds one run (DefaultTimeout when zero).
	Timeout time.Duration
	Log     *slog.Logger
	// Untrusted says the user has not trusted the project: programs are
	// found on PATH only, never in the project's node_modules/.bin.
	Untrusted bool
}

// Runner formats files with the first formatter that applies.
type Runner struct{ opts Options }

// New returns a runner.
func New(opts Options) *Runner {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	opts.Worktree = filepath.Clean(opts.Worktree)
	return &Runner{opts: opts}
}

// Result is what Format did.
type Result struct {
	// Formatter is the formatter run; empty when none applies.
	Formatter string
	// Changed says the formatter changed the file.
	Changed bool
	// Err is why the formatter failed; the file is then as it was.
	Err error
}

// For returns the formatter that applies to path and the program to run,
// or false when none does.
func (r *Runner) For(path string) (Formatter, string, bool) {
	if r == nil || !within(path, r.opts.Worktree) {
		return Formatter{}, "", false
	}
	ext := strings.ToLower(filepath.Ext(path))
	for _, f := range r.opts.Formatters {
		if len(f.Command) == 0 || !slices.Contains(f.Extensions, ext) {
			continue
		}
		prog, ok := r.program(f.Command[0], path)
		if !ok || (len(f.Needs) > 0 && !r.hasConfig(path, f.Needs)) {
			continue
		}
		return f, prog, true
	}
	return Formatter{}, "", false
}

// Format formats path (absolute) in place with the first formatter that
// applies. When the formatter fails or times out, the file keeps the
// content it had.
func (r *Runner) Format(ctx context.Context, path string) Result {
	f, prog, ok := r.For(path)
	if !ok {
		return Result{}
	}
	before, err := os.ReadFile(path)
	if err != nil {
		return Result{}
	}
	res := Result{Formatter: f.Name}
	if err := r.run(ctx, f, prog, path); err != nil {
		res.Err = err
		// The formatter may have written part of the file before failing.
		if now, rerr := os.ReadFile(path); rerr == nil && !bytes.Equal(now, before) {
			if werr := os.WriteFile(path, before, 0o644); werr != nil {
				res.Err = errors.Join(err, fmt.Errorf("restoring the file: %w", werr))
			}
		}
		r.opts.Log.Warn("format: formatter failed", "formatter", f.Name, "file", path, "err", err)
		return res
	}
	after, err := os.ReadFile(path)
	if err != nil {
		res.Err = fmt.Errorf("reading the formatted file: %w", err)
		return res
	}
	res.Changed = !bytes.Equal(before, after)
	return res
}

// run runs f on path, killing its process group on timeout.
func (r *Runner) run(ctx context.Context, f Formatter, prog, path string) error {
	args := make([]string, 0, len(f.Command)-1)
	for _, a := range f.Command[1:] {
		args = append(args, strings.ReplaceAll(a, "$FILE", path))
	}
	cmd := exec.Command(prog, args...)
	cmd.Dir = r.opts.Worktree
	cmd.Env = os.Environ()
	for k, v := range f.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out tail
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := proc.Start(cmd)
	if err != nil {
		return fmt.Errorf("starting %s: %w", f.Command[0], err)
	}
	timer := time.NewTimer(r.opts.Timeout)
	defer timer.Stop()
	select {
	case <-p.Done():
	case <-timer.C:
		_ = p.Signal(syscall.SIGKILL)
		<-p.Done()
		return fmt.Errorf("timed out after %s", r.opts.Timeout)
	case <-ctx.Done():
		_ = p.Signal(syscall.SIGKILL)
		<-p.Done()
		return ctx.Err()
	}
	if err := p.Wait(); err != nil {
		if s := out.String(); s != "" {
			return fmt.Errorf("%w: %s", err, s)
		}
		return err
	}
	return nil
}

// program finds name on PATH or, for tools installed with npm, in a
// node_modules/.bin directory from path's directory up to the worktree.
func (r *Runner) program(name, path string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	if strings.ContainsRune(name, filepath.Separator) || r.opts.Untrusted {
		return "", false
	}
	for dir := filepath.Dir(path); within(dir, r.opts.Worktree); dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "node_modules", ".bin", name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p, true
		}
		if dir == r.opts.Worktree || dir == filepath.Dir(dir) {
			break
		}
	}
	return "", false
}

// hasConfig reports whether one of needs is in path's directory or one
// above it, up to the worktree.
func (r *Runner) hasConfig(path string, needs []Marker) bool {
	for dir := filepath.Dir(path); within(dir, r.opts.Worktree); dir = filepath.Dir(dir) {
		for _, m := range needs {
			p := filepath.Join(dir, m.Name)
			if m.Contains == "" {
				if _, err := os.Stat(p); err == nil {
					return true
				}
				continue
			}
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(m.Contains)) {
				return true
			}
		}
		if dir == r.opts.Worktree || dir == filepath.Dir(dir) {
			break
		}
	}
	return false
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// tail keeps the first 2 KiB written to it, which hold a formatter's
// first complaint.
type tail struct{ buf []byte }

func (t *tail) Write(p []byte) (int, error) {
	if room := 2048 - len(t.buf); room > 0 {
		t.buf = append(t.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// String returns the first lines kept, joined.
func (t *tail) String() string {
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	if len(lines) > 3 {
		lines = append(lines[:3], "...")
	}
	return strings.Join(lines, " | ")
}
