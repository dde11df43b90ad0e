package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
)

// checkChatRequest reports what makes a Chat Completions request an invalid
// transcript: a tool call without exactly one result right after its
// assistant message, a result that answers no call, two assistant messages
// in a row, a conversation that does not start with a user message or
// ends with an assistant message, or an assistant message with nothing in
// it.
func checkChatRequest(body []byte) []string {
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return []string{"the body is not JSON: " + err.Error()}
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var roles []string
	pending := map[string]bool{} // calls of the last assistant message without a result yet
	prev := ""
	for i, m := range req.Messages {
		roles = append(roles, m.Role)
		if m.Role != "tool" && len(pending) > 0 {
			bad("message %d (%s) comes before the results of calls %v", i, m.Role, keys(pending))
			clear(pending)
		}
		switch m.Role {
		case "system", "developer":
			if prev != "" && prev != "system" && prev != "developer" {
				bad("system message %d after the conversation started", i)
			}
		case "user":
			if contentEmpty(m.Content) {
				bad("user message %d is empty", i)
			}
		case "assistant":
			if prev == "assistant" {
				bad("assistant messages %d and %d in a row", i-1, i)
			}
			if prev == "" || prev == "system" || prev == "developer" {
				bad("the conversation starts with an assistant message")
			}
			if contentEmpty(m.Content) && len(m.ToolCalls) == 0 {
				bad("assistant message %d has neither text nor tool calls", i)
			}
			for _, c := range m.ToolCalls {
				if c.ID == "" || c.Function.Name == "" {
					bad("assistant message %d has a call without id or name", i)
				}
				if !json.Valid([]byte(c.Function.Arguments)) {
					bad("call %s has arguments that are not JSON: %q", c.ID, c.Function.Arguments)
				}
				pending[c.ID] = true
			}
		case "tool":
			if !pending[m.ToolCallID] {
				bad("tool message %d answers %q, which is not an open call", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		default:
			bad("message %d has role %q", i, m.Role)
		}
		prev = m.Role
	}
	if len(pending) > 0 {
		bad("calls %v have no result", keys(pending))
	}
	if prev == "assistant" || prev == "" {
		bad("the conversation ends with %q, not a user message or a tool result", prev)
	}
	if len(problems) > 0 {
		problems = append(problems, "roles: "+strings.Join(roles, ","))
	}
	return problems
}

func contentEmpty(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s) == ""
	}
	var parts []map[string]any
	if json.Unmarshal(raw, &parts) == nil {
		return len(parts) == 0
	}
	return true
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// phased is a model server whose script can be swapped between runs, and
// which checks and times every request.
type phased struct {
	mu       sync.Mutex
	next     http.Handler
	reqs     []served
	problems []string
}

// served is one request: when it arrived and when its response ended.
type served struct {
	arrived, done time.Time
	body          []byte
}

func (ph *phased) swap(h http.Handler) {
	ph.mu.Lock()
	ph.next = h
	ph.mu.Unlock()
}

func (ph *phased) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var problems []string
	if strings.HasSuffix(r.URL.Path, "/chat/completions") {
		problems = checkChatRequest(body)
	}
	ph.mu.Lock()
	next := ph.next
	idx := len(ph.reqs)
	ph.reqs = append(ph.reqs, served{arrived: arrived, body: body})
	for _, p := range problems {
		ph.problems = append(ph.problems, fmt.Sprintf("request %d: %s", idx+1, p))
	}
	ph.mu.Unlock()
	defer func() {
		ph.mu.Lock()
		ph.reqs[idx].done = time.Now()
		ph.mu.Unlock()
	}()
	next.ServeHTTP(w, r)
}

func (ph *phased) requests() []served {
	ph.mu.Lock()
	defer ph.mu.Unlock()
	return append([]served(nil), ph.reqs...)
}

func (ph *phased) invalid() []string {
	ph.mu.Lock()
	defer ph.mu.Unlock()
	return append([]string(nil), ph.problems...)
}

// rig is a scratch repository and home directory whose config points
// codeloop at a phased model server and at a title server.
type rig struct {
	t                  testing.TB
	dir                string
	home               string
	model              *phased
	modelURL, titleURL string
}

func newRig(t testing.TB, modelSteps []fakellm.Step, files map[string]string) *rig {
	t.Helper()
	root := t.TempDir()
	r := &rig{t: t, dir: filepath.Join(root, "repo"), home: filepath.Join(root, "home"), model: &phased{}}
	r.model.swap(fakellm.NewServer(modelSteps...))
	titleSteps := make([]fakellm.Step, 8)
	for i := range titleSteps {
		titleSteps[i] = append(fakellm.Text("t", "Crash test"), fakellm.Finish(llm.FinishStop, llm.Usage{})...)
	}
	ms, ts := httptest.NewServer(r.model), httptest.NewServer(fakellm.NewServer(titleSteps...))
	t.Cleanup(func() {
		ms.CloseClientConnections()
		ts.CloseClientConnections()
		ms.Close()
		ts.Close()
	})
	for _, d := range []string{r.dir, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(r.dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.modelURL, r.titleURL = ms.URL, ts.URL
	r.writeConfig(`"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "` + ms.URL + `/v1", "apiKey": "test"}`)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = r.dir, r.env()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return r
}

// writeConfig points the "fake" provider at the model server with the
// given npm package and options, and titles at the title server.
func (r *rig) writeConfig(provider string) {
	cfg := fmt.Sprintf(`{
  "model": "fake/model",
  "small_model": "titles/small",
  "provider": {
    "fake": {%s,
             "models": {"model": {"name": "Fake", "limit": {"context": 100000, "output": 4000}}}},
    "titles": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "test"},
               "models": {"small": {}}}
  }
}`, provider, r.titleURL)
	if err := os.WriteFile(filepath.Join(r.dir, "opencode.json"), []byte(cfg), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// useAnthropic points the model at the server through the Anthropic
// Messages API instead of Chat Completions.
func (r *rig) useAnthropic(t testing.TB) {
	t.Helper()
	r.writeConfig(`"npm": "@ai-sdk/anthropic", "options": {"baseURL": "` + r.modelURL + `/v1", "apiKey": "test"}`)
}

func (r *rig) env() []string {
	return []string{
		"HOME=" + r.home,
		"PATH=" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(r.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(r.home, ".local/share"),
		"XDG_CACHE_HOME=" + filepath.Join(r.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(r.home, ".local/state"),
		"GIT_CONFIG_NOSYSTEM=1",
	}
}

func (r *rig) database() string {
	return filepath.Join(r.home, ".local/share", "codeloop", "codeloop.db")
}

func (r *rig) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir, cmd.Env = r.dir, r.env()
	return cmd
}

// run runs codeloop to the end, within timeout, and returns its output and
// exit status; a run that outlives the timeout fails the test as a hang.
func (r *rig) run(timeout time.Duration, args ...string) (stdout, stderr string, code int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := r.command(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		r.t.Fatalf("codeloop %v hung (no exit within %v)\nstdout:\n%s\nstderr:\n%s", args, timeout, out.String(), errb.String())
	}
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		r.t.Fatalf("codeloop %v: %v\n%s", args, err, errb.String())
	}
	return out.String(), errb.String(), code
}

// exported is the part of `codeloop export` the tests read.
type exported struct {
	Messages []struct {
		Info struct {
			ID    string `json:"id"`
			Role  string `json:"role"`
			Error *struct {
				Name string `json:"name"`
				Data struct {
					Message string `json:"message"`
				} `json:"data"`
			} `json:"error"`
		} `json:"info"`
		Parts []exportedPart `json:"parts"`
	} `json:"messages"`
}

type exportedPart struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Text  string `json:"text"`
	Tool  string `json:"tool"`
	State struct {
		Status   string         `json:"status"`
		Error    string         `json:"error"`
		Metadata map[string]any `json:"metadata"`
	} `json:"state"`
}

func (r *rig) export() exported {
	r.t.Helper()
	out, stderr, code := r.run(time.Minute, "export")
	var e exported
	if err := json.Unmarshal([]byte(out), &e); err != nil || code != 0 {
		r.t.Fatalf("export: exit status %d, %v\n%s", code, err, stderr)
	}
	return e
}
