// Package custom offers executables as tools: a program in any language
// that prints its description and JSON Schema when run with --schema, and,
// when called, reads the arguments as JSON on standard input and writes
// its result on standard output.
//
// It imports tool, permission and proc; the app wires the tools it finds
// in beside the built-in ones.
package custom

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/proc"
	"github.com/codeloop/codeloop/internal/tool"
)

// DefaultTimeout is how long a call may run when the tool names no
// timeout of its own.
const DefaultTimeout = 2 * time.Minute

// SchemaTimeout bounds a tool's answer to --schema.
const SchemaTimeout = 10 * time.Second

// maxCapture bounds what is read of a tool's standard output and error.
const maxCapture = 16 << 20

// maxStderr bounds the error text a failed call reports.
const maxStderr = 8 << 10

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Spec is what a tool prints when run with --schema.
type Spec struct {
	// Name is the tool's name for the model; the file name without its
	// extension when empty.
	Name        string `json:"name,omitempty"`
	Description string `json:"description"`
	// Schema is the JSON Schema of the arguments ("parameters" and
	// "input_schema" are read too).
	Schema      json.RawMessage `json:"schema,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// Timeout is in seconds; zero takes DefaultTimeout.
	Timeout float64 `json:"timeout,omitempty"`
}

// Options configure the tools.
type Options struct {
	// Truncator cuts long outputs as it does the built-in tools'.
	Truncator *tool.Truncator
	// Env is the tools' base environment; nil means the process's.
	Env []string
	Log *slog.Logger
}

// Tool is one executable offered to the model.
type Tool struct {
	path        string
	args        []string // before the call's; the bridge's for a JavaScript tool
	file        string   // the file the tool came from
	name        string
	description string
	schema      json.RawMessage
	timeout     time.Duration
	opts        Options
}

var _ tool.Tool = (*Tool)(nil)

// ID is the tool's name.
func (t *Tool) ID() string { return t.name }

// Description is what the tool said about itself.
func (t *Tool) Description() string { return t.description }

// Schema is the JSON Schema of the tool's arguments.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// Path is the executable.
func (t *Tool) Path() string { return t.path }

// File is the file the tool came from: the executable, or the JavaScript
// or TypeScript file.
func (t *Tool) File() string { return t.file }

// Find lists the executables paths name: each path that is an executable
// regular file, and the executable regular files directly inside each path
// that is a directory, in name order. Missing paths are skipped.
func Find(paths []string) []string {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !st.IsDir() {
			if executable(st) {
				out = append(out, p)
			}
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			full := filepath.Join(p, e.Name())
			if st, err := os.Stat(full); err == nil && !st.IsDir() && executable(st) {
				out = append(out, full)
			}
		}
	}
	return slices.Compact(out)
}

func executable(st fs.FileInfo) bool { return st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 }

// Load asks each executable for its spec, all at once, and returns the
// tools in the order of paths. An executable that does not answer with a
// valid spec is left out and its error returned.
func Load(ctx context.Context, paths []string, opts Options) ([]*Tool, []error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	tools := make([]*Tool, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tools[i], errs[i] = load(ctx, p, opts)
		}()
	}
	wg.Wait()
	var (
		out  []*Tool
		bad  []error
		seen = map[string]string{}
	)
	for i, t := range tools {
		if errs[i] != nil {
			bad = append(bad, errs[i])
			continue
		}
		if prev, dup := seen[t.name]; dup {
			bad = append(bad, fmt.Errorf("custom tool %s is named %q like %s; it is left out (rename one)", t.path, t.name, prev))
			continue
		}
		seen[t.name] = t.path
		out = append(out, t)
	}
	return out, bad
}

func load(ctx context.Context, path string, opts Options) (*Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, SchemaTimeout)
	defer cancel()
	stdout, stderr, code, err := run(ctx, path, []string{"--schema"}, filepath.Dir(path), opts.Env, nil)
	if err != nil {
		return nil, fmt.Errorf("custom tool %s: running it with --schema: %w", path, err)
	}
	if code != 0 {
		return nil, fmt.Errorf("custom tool %s: --schema exited with status %d: %s", path, code, firstLine(stderr))
	}
	var spec Spec
	if err := json.Unmarshal(bytes.TrimSpace(stdout), &spec); err != nil {
		return nil, fmt.Errorf("custom tool %s: --schema must print a JSON object with \"description\" and \"schema\": %w", path, err)
	}
	t := &Tool{path: path, file: path, name: spec.Name, description: strings.TrimSpace(spec.Description), opts: opts, timeout: DefaultTimeout}
	if t.name == "" {
		base := filepath.Base(path)
		t.name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if !validName.MatchString(t.name) {
		return nil, fmt.Errorf("custom tool %s: the name %q may hold only letters, digits, '_' and '-' (at most 64); "+
			"set \"name\" in its --schema output", path, t.name)
	}
	if t.description == "" {
		return nil, fmt.Errorf("custom tool %s: its --schema output has no \"description\"", path)
	}
	if spec.Timeout > 0 {
		t.timeout = time.Duration(spec.Timeout * float64(time.Second))
	}
	schema := spec.Schema
	for _, alt := range []json.RawMessage{spec.Parameters, spec.InputSchema} {
		if len(schema) == 0 {
			schema = alt
		}
	}
	if t.schema, err = objectSchema(schema); err != nil {
		return nil, fmt.Errorf("custom tool %s: %w", path, err)
	}
	return t, nil
}

// objectSchema checks that raw is a JSON Schema of an object, and gives
// it "type": "object" (and no properties) when it says nothing.
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil || s == nil {
		return nil, errors.New(`its "schema" must be a JSON Schema object`)
	}
	switch s["type"] {
	case nil:
		s["type"] = "object"
	case "object":
	default:
		return nil, fmt.Errorf(`its "schema" must describe an object, not %v`, s["type"])
	}
	if _, ok := s["properties"]; !ok {
		s["properties"] = map[string]any{}
	}
	return json.Marshal(s)
}

// Run asks permission (the tool's name is the permission), then runs the
// executable in the session's directory with the arguments on standard
// input.
func (t *Tool) Run(ctx context.Context, call *tool.Call) (*tool.Result, error) {
	input := bytes.TrimSpace(call.Input)
	if len(input) == 0 {
		input = []byte("{}")
	}
	if err := call.Ask(ctx, permission.Request{Permission: t.name, Patterns: []string{"*"}, Always: []string{"*"},
		Metadata: map[string]any{"tool": t.name, "input": json.RawMessage(input)}}); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	env := append(slices.Clip(t.opts.Env), "CODELOOP_SESSION_ID="+call.SessionID, "CODELOOP_CALL_ID="+call.ID,
		"CODELOOP_PROJECT_DIR="+call.Worktree)
	stdout, stderr, code, err := run(ctx, t.path, t.args, call.Dir, env, input)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("the %s tool did not finish within %s and was stopped", t.name, t.timeout)
	case errors.As(err, new(*signalError)):
		return nil, fmt.Errorf("the %s tool crashed (%v):\n%s", t.name, err, errorText(stderr))
	case err != nil:
		return nil, fmt.Errorf("the %s tool could not run: %w", t.name, err)
	case code != 0:
		return nil, fmt.Errorf("the %s tool failed with exit status %d:\n%s", t.name, code, errorText(stderr))
	}
	res := &tool.Result{Title: t.name, Output: string(stdout)}
	if t.opts.Truncator != nil {
		t.opts.Truncator.Apply(res, call.CanDelegate, false)
	}
	return res, nil
}

// run runs path with args in dir and returns its output and exit status.
// The whole process group is killed when ctx ends; the error is then
// ctx's.
func run(ctx context.Context, path string, args []string, dir string, env []string, stdin []byte) ([]byte, []byte, int, error) {
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr := &capped{max: maxCapture}, &capped{max: maxCapture}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second
	p, err := proc.Start(cmd)
	if err != nil {
		return nil, nil, -1, err
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		_ = p.Signal(syscall.SIGKILL)
		<-p.Done()
		return stdout.bytes(), stderr.bytes(), -1, ctx.Err()
	}
	err = p.Wait()
	var ee *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		return stdout.bytes(), stderr.bytes(), cmd.ProcessState.ExitCode(), nil
	case errors.As(err, &ee):
		code := ee.ExitCode()
		if code < 0 {
			return stdout.bytes(), stderr.bytes(), code, &signalError{state: ee.ProcessState.String()}
		}
		return stdout.bytes(), stderr.bytes(), code, nil
	}
	return nil, nil, -1, err
}

// signalError is a process ended by a signal.
type signalError struct{ state string }

func (e *signalError) Error() string { return e.state }

// errorText is a failed call's standard error for the model, bounded.
func errorText(stderr []byte) string {
	msg := strings.TrimSpace(string(stderr))
	if len(msg) > maxStderr {
		msg = msg[:maxStderr] + "\n[error output cut]"
	}
	if msg == "" {
		msg = "no error output"
	}
	return msg
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return "no error output"
	}
	return s
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}
