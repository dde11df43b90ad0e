package custom

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// bridgeFiles are the JavaScript bridge to OpenCode's tool files and its
// stand-in for @opencode-ai/plugin.
//
//go:embed bridge.mjs shim.mjs
var bridgeFiles embed.FS

// Runtime is a JavaScript runtime that runs OpenCode's tool files.
type Runtime struct {
	// Name is bun, deno or node.
	Name string
	// Path is the executable; Args come before the bridge's path.
	Path string
	Args []string
	// Version is what the runtime says of itself (node's only).
	Version string
	// TypeScript reports whether .ts files run (bun, deno, node from 22.6).
	TypeScript bool
}

// FindJS lists OpenCode's tool files: the .js, .mjs and .ts files directly
// inside each of dirs, in name order. Missing directories are skipped.
func FindJS(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".d.ts") || !isJS(name) {
				continue
			}
			full := filepath.Join(d, name)
			if st, err := os.Stat(full); err == nil && st.Mode().IsRegular() {
				out = append(out, full)
			}
		}
	}
	return slices.Compact(out)
}

func isJS(name string) bool {
	switch filepath.Ext(name) {
	case ".js", ".mjs", ".ts", ".mts":
		return true
	}
	return false
}

func isTS(name string) bool { ext := filepath.Ext(name); return ext == ".ts" || ext == ".mts" }

var nodeVersion = regexp.MustCompile(`^v(\d+)\.(\d+)`)

// FindRuntime looks for bun, then deno, then node on the PATH of env (the
// process's when nil).
func FindRuntime(ctx context.Context, env []string) (Runtime, bool) {
	if env == nil {
		env = os.Environ()
	}
	var pathVar string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	if p := lookPath("bun", pathVar); p != "" {
		return Runtime{Name: "bun", Path: p, Args: []string{"run", "--silent"}, TypeScript: true}, true
	}
	if p := lookPath("deno", pathVar); p != "" {
		return Runtime{Name: "deno", Path: p, Args: []string{"run", "--allow-all", "--quiet"}, TypeScript: true}, true
	}
	p := lookPath("node", pathVar)
	if p == "" {
		return Runtime{}, false
	}
	// A tool's error output is what the model reads of a failed call:
	// node's warnings (a package.json without "type") are noise there.
	rt := Runtime{Name: "node", Path: p, Args: []string{"--no-warnings"}}
	ctx, cancel := context.WithTimeout(ctx, SchemaTimeout)
	defer cancel()
	out, _, code, err := run(ctx, p, []string{"--version"}, "", env, nil)
	if err != nil || code != 0 {
		return rt, true
	}
	rt.Version = strings.TrimSpace(string(out))
	if m := nodeVersion.FindStringSubmatch(rt.Version); m != nil {
		major, _ := strconv.Atoi(m[1])
		minor, _ := strconv.Atoi(m[2])
		if major > 22 || major == 22 && minor >= 6 {
			rt.TypeScript = true
			rt.Args = append(rt.Args, "--experimental-strip-types")
		}
	}
	return rt, true
}

func lookPath(name, pathVar string) string {
	for _, d := range filepath.SplitList(pathVar) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && executable(st) {
			return p
		}
	}
	return ""
}

// WriteBridge writes the bridge into a directory of dir named after its
// contents, once, and returns the bridge's path.
func WriteBridge(dir string) (string, error) {
	h := sha256.New()
	names := []string{"bridge.mjs", "shim.mjs"}
	contents := make([][]byte, len(names))
	for i, n := range names {
		b, err := bridgeFiles.ReadFile(n)
		if err != nil {
			return "", fmt.Errorf("custom tools: the embedded bridge: %w", err)
		}
		contents[i] = b
		h.Write(b)
	}
	out := filepath.Join(dir, "js-bridge-"+hex.EncodeToString(h.Sum(nil))[:12])
	if err := os.MkdirAll(out, 0o700); err != nil {
		return "", fmt.Errorf("custom tools: writing the JavaScript bridge: %w", err)
	}
	for i, n := range names {
		p := filepath.Join(out, n)
		if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, contents[i]) {
			continue
		}
		tmp, err := os.CreateTemp(out, n+".*")
		if err != nil {
			return "", fmt.Errorf("custom tools: writing the JavaScript bridge: %w", err)
		}
		_, werr := tmp.Write(contents[i])
		cerr := tmp.Close()
		if err := firstErr(werr, cerr, os.Rename(tmp.Name(), p)); err != nil {
			_ = os.Remove(tmp.Name())
			return "", fmt.Errorf("custom tools: writing the JavaScript bridge: %w", err)
		}
	}
	return filepath.Join(out, "bridge.mjs"), nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// jsSpec is one tool a file exports, as the bridge describes it.
type jsSpec struct {
	Export      string          `json:"export"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// LoadJS asks the bridge, under rt, for the tools each of OpenCode's tool
// files exports, all files at once: a default export is named after the
// file, a named export <file>_<name>. TypeScript files are skipped, with
// the reason, when rt cannot run them.
func LoadJS(ctx context.Context, files []string, rt Runtime, bridge string, opts Options) ([]*Tool, []error) {
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	tools := make([][]*Tool, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		if isTS(f) && !rt.TypeScript {
			errs[i] = fmt.Errorf("custom tool %s: skipped: %s %s runs no TypeScript (node 22.6 or later, bun or deno does)",
				f, rt.Name, rt.Version)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			tools[i], errs[i] = loadJS(ctx, f, rt, bridge, opts)
		}()
	}
	wg.Wait()
	var (
		out  []*Tool
		bad  []error
		seen = map[string]string{}
	)
	for i := range files {
		if errs[i] != nil {
			bad = append(bad, errs[i])
		}
		for _, t := range tools[i] {
			if prev, dup := seen[t.name]; dup {
				bad = append(bad, fmt.Errorf("custom tool %s is named %q like %s; it is left out (rename one)", t.file, t.name, prev))
				continue
			}
			seen[t.name] = t.file
			out = append(out, t)
		}
	}
	return out, bad
}

func loadJS(ctx context.Context, file string, rt Runtime, bridge string, opts Options) ([]*Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, SchemaTimeout)
	defer cancel()
	args := append(slices.Clip(rt.Args), bridge, "schema", file)
	stdout, stderr, code, err := run(ctx, rt.Path, args, filepath.Dir(file), opts.Env, nil)
	if err != nil {
		return nil, fmt.Errorf("custom tool %s: running it with %s: %w", file, rt.Name, err)
	}
	if code != 0 {
		return nil, fmt.Errorf("custom tool %s: %s could not load it: %s", file, rt.Name, lastLine(stderr))
	}
	var specs []jsSpec
	if err := json.Unmarshal(bytes.TrimSpace(stdout), &specs); err != nil {
		return nil, fmt.Errorf("custom tool %s: the bridge's answer: %w", file, err)
	}
	if len(specs) == 0 {
		return nil, fmt.Errorf("custom tool %s exports no tool (an object with description, args and execute)", file)
	}
	base := filepath.Base(file)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	var out []*Tool
	for _, s := range specs {
		name := base
		if s.Export != "default" {
			name = base + "_" + s.Export
		}
		if !validName.MatchString(name) {
			return out, fmt.Errorf("custom tool %s: the name %q may hold only letters, digits, '_' and '-' (at most 64)", file, name)
		}
		schema, err := objectSchema(s.Schema)
		if err != nil {
			return out, fmt.Errorf("custom tool %s: %s: %w", file, name, err)
		}
		out = append(out, &Tool{path: rt.Path, args: append(slices.Clip(rt.Args), bridge, "call", file, s.Export),
			file: file, name: name, description: strings.TrimSpace(s.Description), schema: schema,
			timeout: DefaultTimeout, opts: opts})
	}
	return out, nil
}

// lastLine is the last non-empty line of a failed load's error output: a
// runtime's error message, after its stack trace.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		if l = strings.TrimSpace(l); strings.Contains(l, "Error") {
			return l
		}
	}
	if s := strings.TrimSpace(lines[len(lines)-1]); s != "" {
		return s
	}
	return "no error output"
}
