package tool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.Main(os.Args) // the sandbox helper, when a test runs a confined command
	goleak.VerifyTestMain(m)
}

// ruleAsker answers permission requests with the real rule evaluation:
// deny rules refuse, everything else is let through and recorded.
type ruleAsker struct {
	rules permission.Ruleset

	mu    sync.Mutex
	asked []permission.Request
}

func (a *ruleAsker) Ask(_ context.Context, req permission.Request) error {
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	for _, p := range req.Patterns {
		if r, ok := permission.Evaluate(req.Permission, p, a.rules); ok && r.Action == permission.Deny {
			return &permission.DeniedError{Permission: req.Permission, Pattern: p, Rule: r}
		}
	}
	return nil
}

// requests returns the recorded requests of one permission.
func (a *ruleAsker) requests(perm string) []permission.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []permission.Request
	for _, r := range a.asked {
		if r.Permission == perm {
			out = append(out, r)
		}
	}
	return out
}

// testEnv is an Env for tests: outputs saved under a temporary directory,
// a real bus, ripgrep off unless a test turns it on.
func testEnv(t testing.TB) Env {
	t.Helper()
	b := bus.New(time.Second)
	return Env{
		Truncator: &Truncator{Dir: filepath.Join(t.TempDir(), "tool-output")},
		Bus:       b,
		Questions: NewQuestions(b),
		Ripgrep:   "-",
	}
}

// toolByID builds the built-in tools from env and returns the one named id.
func toolByID(t testing.TB, env Env, id string) Tool {
	t.Helper()
	tl, ok := NewRegistry(Builtins(env)...).Lookup(id)
	if !ok {
		t.Fatalf("no tool %s", id)
	}
	return tl
}

// newCall is a call of tool in dir (also the worktree) with input
// encoded as JSON.
func newCall(t testing.TB, tool, dir string, input any) (*Call, *ruleAsker) {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	asker := &ruleAsker{}
	return &Call{ID: "call_1", Tool: tool, Input: raw, SessionID: "ses_test", MessageID: "msg_test",
		Agent: "build", Dir: dir, Worktree: dir, Asker: asker}, asker
}

// run runs tool id with input in dir.
func run(t testing.TB, env Env, id, dir string, input any) (*Result, error) {
	t.Helper()
	call, _ := newCall(t, id, dir, input)
	return toolByID(t, env, id).Run(context.Background(), call)
}

// writeFiles creates files (path → content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
