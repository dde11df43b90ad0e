package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
)

// permProject is a git project whose model is a scripted server speaking
// the Chat Completions wire format, with the permission config given. Apps
// opened on it share one home, so one SQLite database: closing an app and
// opening another is a restart of the process.
type permProject struct {
	t         *testing.T
	dir, home string
	model     *fakellm.Server
}

func newPermProject(t *testing.T, permissionConfig, script string) *permProject {
	t.Helper()
	steps, err := fakellm.Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	p := &permProject{t: t, dir: filepath.Join(root, "project"), home: filepath.Join(root, "home"), model: fakellm.NewServer(steps...)}
	srv := httptest.NewServer(p.model)
	t.Cleanup(srv.Close)
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`{
  "model": "fake/model",
  "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "test"},
                        "models": {"model": {"limit": {"context": 100000, "output": 4000}}}}},
  "permission": %s
}`, srv.URL, permissionConfig)
	if err := os.WriteFile(filepath.Join(p.dir, "opencode.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", p.dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return p
}

// open starts the project's app, as a new process would.
func (p *permProject) open() *App {
	p.t.Helper()
	env := map[string]string{"HOME": p.home, "CODELOOP_DISABLE_MODELS_FETCH": "1", "OLLAMA_HOST": "127.0.0.1:1"}
	getenv := func(k string) string { return env[k] }
	dirs, err := paths.Resolve(getenv)
	if err != nil {
		p.t.Fatal(err)
	}
	a, err := Open(context.Background(), Options{Dir: p.dir, Dirs: dirs, Getenv: getenv, NoMCP: true})
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { _ = a.Close() })
	return a
}

// prompt runs one turn in a new session of a and returns the session's
// messages.
func (p *permProject) prompt(a *App, text string) (string, []message.Message) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// A title of its own keeps title generation from taking a scripted step.
	sess, err := a.Sessions.Create(ctx, session.CreateInput{ProjectID: a.ProjectID, Directory: a.Dir, Title: "permissions"})
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := a.Engine.Prompt(ctx, session.PromptInput{SessionID: sess.ID, Parts: []message.Part{session.TextPart(text)}}); err != nil {
		p.t.Fatal(err)
	}
	msgs, err := a.Sessions.Messages(ctx, sess.ID)
	if err != nil {
		p.t.Fatal(err)
	}
	return sess.ID, msgs
}

// toolResults returns the tool results of the model's n-th request (from
// 0), by call id.
func (p *permProject) toolResults(n int) map[string]string {
	p.t.Helper()
	reqs := p.model.Requests()
	if n >= len(reqs) {
		p.t.Fatalf("the model got %d requests, want request %d", len(reqs), n+1)
	}
	var body struct {
		Messages []struct {
			Role       string          `json:"role"`
			ToolCallID string          `json:"tool_call_id"`
			Content    json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[n].Body, &body); err != nil {
		p.t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range body.Messages {
		if m.Role != "tool" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) != nil {
			s = string(m.Content)
		}
		out[m.ToolCallID] = s
	}
	return out
}

func (p *permProject) exists(name string) bool {
	_, err := os.Stat(filepath.Join(p.dir, name))
	return err == nil
}

// replier answers the permission.asked events of an app's bus through
// Service.Reply, with its replies in order, as a front end would.
type replier struct {
	t       *testing.T
	cancel  context.CancelFunc
	done    chan struct{}
	mu      sync.Mutex
	asked   []permission.Request
	replies []permission.Reply
	check   func(n int, req permission.Request) // runs before the n-th reply
}

func answer(t *testing.T, a *App, replies ...permission.Reply) *replier {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &replier{t: t, cancel: cancel, done: make(chan struct{}), replies: replies}
	sub := a.Bus.Subscribe(bus.Filter{Types: []string{bus.PermissionAsked}}, 16)
	go func() {
		defer close(r.done)
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-sub.C:
				req, ok := ev.Properties.(permission.Request)
				if !ok {
					t.Errorf("permission.asked carries %T", ev.Properties)
					continue
				}
				r.mu.Lock()
				n := len(r.asked)
				r.asked = append(r.asked, req)
				reply := permission.Reply{Kind: permission.ReplyReject, Message: "unexpected question"}
				if n < len(r.replies) {
					reply = r.replies[n]
				} else {
					t.Errorf("unexpected permission request %d: %s %v", n+1, req.Permission, req.Patterns)
				}
				check := r.check
				r.mu.Unlock()
				if check != nil {
					check(n, req)
				}
				if err := a.Permissions.Reply(ctx, req.ID, reply); err != nil {
					t.Errorf("reply to %s: %v", req.ID, err)
				}
			}
		}
	}()
	t.Cleanup(func() { r.stop() })
	return r
}

// stop ends the replier once its last reply is saved and returns the
// requests it saw.
func (r *replier) stop() []permission.Request {
	r.cancel()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.asked)
}

// toolParts returns the tool parts of msgs in order.
func toolParts(msgs []message.Message) []*message.ToolPart {
	var out []*message.ToolPart
	for _, m := range msgs {
		for _, part := range m.Parts {
			if tp, ok := part.(*message.ToolPart); ok {
				out = append(out, tp)
			}
		}
	}
	return out
}

// finalText is the text of the last assistant message, which must have
// ended without an error.
func finalText(t *testing.T, msgs []message.Message) string {
	t.Helper()
	last := msgs[len(msgs)-1]
	if last.Info.Role != message.RoleAssistant || last.Info.Error != nil {
		t.Fatalf("the turn did not end with an answer: role %s, error %v", last.Info.Role, last.Info.Error)
	}
	var text []string
	for _, part := range last.Parts {
		if tp, ok := part.(*message.TextPart); ok {
			text = append(text, tp.Text)
		}
	}
	return strings.Join(text, "")
}

func bashCall(id, command string) string {
	raw, _ := json.Marshal(map[string]string{"command": command})
	return fmt.Sprintf("step\ncall %s bash %s\nfinish tool-calls input=100 output=10\n", id, raw)
}

func answerStep(text string) string {
	return "step\ntext " + text + "\nfinish stop input=100 output=10\n"
}

// TestPermissionOnce answers a bash ask once: the command runs, and the
// same command called again is asked about again.
func TestPermissionOnce(t *testing.T) {
	t.Parallel()
	p := newPermProject(t, `{"bash": "ask"}`,
		bashCall("call_1", "echo ran >> log.txt")+bashCall("call_2", "echo ran >> log.txt")+answerStep("Logged twice."))
	a := p.open()
	once := permission.Reply{Kind: permission.ReplyOnce}
	r := answer(t, a, once, once)
	r.check = func(n int, _ permission.Request) {
		// The second ask comes after the first command ran.
		if data, _ := os.ReadFile(filepath.Join(p.dir, "log.txt")); n == 1 && string(data) != "ran\n" {
			t.Errorf("at the second ask log.txt holds %q, want the first run's line", data)
		}
	}
	_, msgs := p.prompt(a, "log twice")
	asked := r.stop()
	if len(asked) != 2 {
		t.Fatalf("%d asks, want 2: %+v", len(asked), asked)
	}
	for _, req := range asked {
		if req.Permission != "bash" || !slices.Equal(req.Patterns, []string{"echo ran >> log.txt"}) ||
			!slices.Equal(req.Always, []string{"echo *"}) || req.Tool == nil || req.Tool.CallID == "" {
			t.Errorf("ask %+v", req)
		}
	}
	if asked[0].Tool.CallID == asked[1].Tool.CallID {
		t.Errorf("both asks name call %s", asked[0].Tool.CallID)
	}
	if data, _ := os.ReadFile(filepath.Join(p.dir, "log.txt")); string(data) != "ran\nran\n" {
		t.Errorf("log.txt = %q, want two runs", data)
	}
	for _, tp := range toolParts(msgs) {
		if tp.State.Status != message.ToolCompleted {
			t.Errorf("%s: %s %s", tp.CallID, tp.State.Status, tp.State.Error)
		}
	}
	if got := finalText(t, msgs); got != "Logged twice." {
		t.Errorf("answer %q", got)
	}
}

// TestPermissionAlwaysScopes answers always for the project and for the
// session: each approval covers the session's later calls of the same
// command; after a restart only the project one still applies to a new
// session.
func TestPermissionAlwaysScopes(t *testing.T) {
	t.Parallel()
	script := bashCall("call_1", "touch a.txt") + bashCall("call_2", "touch b.txt") +
		bashCall("call_3", "mkdir d1") + bashCall("call_4", "mkdir d2") + answerStep("First session done.") +
		// After the restart, in a new session.
		bashCall("call_5", "touch c.txt") + bashCall("call_6", "mkdir d3") + answerStep("Second session done.")
	p := newPermProject(t, `{"bash": {"*": "ask"}}`, script)

	a := p.open()
	r := answer(t, a,
		permission.Reply{Kind: permission.ReplyAlways, Scope: permission.ScopeProject},
		permission.Reply{Kind: permission.ReplyAlways}) // the session by default
	first, msgs := p.prompt(a, "make files")
	asked := r.stop()
	if got := patternsOf(asked); !slices.Equal(got, []string{"touch a.txt", "mkdir d1"}) {
		t.Errorf("first session asked about %v, want touch a.txt and mkdir d1 only", got)
	}
	if got := finalText(t, msgs); got != "First session done." {
		t.Errorf("answer %q", got)
	}
	ctx := context.Background()
	if saved, err := a.Store.ListApprovals(ctx, "project", a.ProjectID); err != nil || len(saved) != 1 ||
		saved[0].Permission != "bash" || saved[0].Pattern != "touch *" {
		t.Errorf("saved project approvals %+v, %v", saved, err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}

	b := p.open()
	if b.ProjectID != a.ProjectID {
		t.Fatalf("project id changed across the restart: %s, %s", a.ProjectID, b.ProjectID)
	}
	r = answer(t, b, permission.Reply{Kind: permission.ReplyOnce})
	second, msgs := p.prompt(b, "make more files")
	asked = r.stop()
	if second == first {
		t.Fatal("the second prompt reused the first session")
	}
	if got := patternsOf(asked); !slices.Equal(got, []string{"mkdir d3"}) {
		t.Errorf("new session after restart asked about %v, want mkdir d3 only (touch approved for the project)", got)
	}
	if got := finalText(t, msgs); got != "Second session done." {
		t.Errorf("answer %q", got)
	}
	for _, f := range []string{"a.txt", "b.txt", "c.txt", "d1", "d2", "d3"} {
		if !p.exists(f) {
			t.Errorf("%s was not created", f)
		}
	}
	if p.model.Remaining() != 0 {
		t.Errorf("%d scripted steps left", p.model.Remaining())
	}
}

func patternsOf(reqs []permission.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, strings.Join(r.Patterns, "; "))
	}
	return out
}

// TestPermissionReject rejects a bash ask: with a message the model gets
// it as the call's error and the loop goes on; without one the loop stops.
func TestPermissionReject(t *testing.T) {
	t.Parallel()
	const correction = "do not delete build/; run make clean instead"
	tests := []struct {
		name     string
		message  string
		requests int // model requests made
	}{
		{"with a message", correction, 2},
		{"without a message", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPermProject(t, `{"bash": "ask"}`,
				bashCall("call_1", "rm -rf build")+answerStep("I will run make clean."))
			if err := os.MkdirAll(filepath.Join(p.dir, "build"), 0o755); err != nil {
				t.Fatal(err)
			}
			a := p.open()
			r := answer(t, a, permission.Reply{Kind: permission.ReplyReject, Message: tt.message})
			_, msgs := p.prompt(a, "clean up")
			if asked := r.stop(); len(asked) != 1 || asked[0].Patterns[0] != "rm -rf build" {
				t.Errorf("asks %+v", asked)
			}
			if !p.exists("build") {
				t.Error("the rejected command ran")
			}
			calls := toolParts(msgs)
			if len(calls) != 1 || calls[0].State.Status != message.ToolError {
				t.Fatalf("tool parts %+v", calls)
			}
			if got := len(p.model.Requests()); got != tt.requests {
				t.Fatalf("%d model requests, want %d", got, tt.requests)
			}
			if tt.message == "" {
				return
			}
			if !strings.Contains(calls[0].State.Error, correction) {
				t.Errorf("stored error %q lacks the correction", calls[0].State.Error)
			}
			if got := p.toolResults(1)["call_1"]; !strings.Contains(got, correction) {
				t.Errorf("the model's next request has the result %q, want the correction", got)
			}
			if got := finalText(t, msgs); got != "I will run make clean." {
				t.Errorf("answer %q", got)
			}
		})
	}
}

// TestPermissionDeniedByConfig runs a command a config rule denies: the
// call fails naming the rule, nobody is asked, and the model answers.
func TestPermissionDeniedByConfig(t *testing.T) {
	t.Parallel()
	p := newPermProject(t, `{"bash": {"*": "allow", "rm *": "deny"}}`,
		bashCall("call_1", "ls && rm keep.txt")+answerStep("The rule forbids deleting it."))
	if err := os.WriteFile(filepath.Join(p.dir, "keep.txt"), []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := p.open()
	r := answer(t, a)
	_, msgs := p.prompt(a, "delete keep.txt")
	if asked := r.stop(); len(asked) != 0 {
		t.Errorf("asked %+v", asked)
	}
	if !p.exists("keep.txt") {
		t.Error("the denied command ran")
	}
	calls := toolParts(msgs)
	if len(calls) != 1 || calls[0].State.Status != message.ToolError {
		t.Fatalf("tool parts %+v", calls)
	}
	got := p.toolResults(1)["call_1"]
	for _, want := range []string{`"rm keep.txt"`, `pattern: "rm *", action: deny`} {
		if !strings.Contains(got, want) || !strings.Contains(calls[0].State.Error, want) {
			t.Errorf("error %q (sent as %q) lacks %s", calls[0].State.Error, got, want)
		}
	}
	if got := finalText(t, msgs); got != "The rule forbids deleting it." {
		t.Errorf("answer %q", got)
	}
}
