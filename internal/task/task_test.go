package task

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/tool"
)

// fakeRunner records child requests and answers them; with block set it
// waits for the context to end instead.
type fakeRunner struct {
	mu      sync.Mutex
	callers map[string]Caller
	reqs    []ChildRequest
	block   bool
	err     error
	started chan struct{}
}

func (f *fakeRunner) Caller(_ context.Context, sessionID, _ string) (Caller, error) {
	c, ok := f.callers[sessionID]
	if !ok {
		return Caller{}, errors.New("no such session")
	}
	return c, nil
}

func (f *fakeRunner) RunChild(ctx context.Context, req ChildRequest) (ChildResult, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	id := req.SessionID
	if id == "" {
		id = "ses_child1"
	}
	if req.Started != nil {
		req.Started(id)
	}
	if f.block {
		close(f.started)
		<-ctx.Done()
		return ChildResult{}, ctx.Err()
	}
	if f.err != nil {
		return ChildResult{}, f.err
	}
	return ChildResult{SessionID: id, Text: "found 3 files"}, nil
}

// rulesAsker decides requests by a ruleset alone: ask counts as rejected.
type rulesAsker struct{ rules permission.Ruleset }

func (a rulesAsker) Ask(_ context.Context, req permission.Request) error {
	for _, p := range req.Patterns {
		r, _ := permission.Evaluate(req.Permission, p, a.rules)
		switch r.Action {
		case permission.Deny:
			return &permission.DeniedError{Permission: req.Permission, Pattern: p, Rule: r}
		case permission.Ask:
			return &permission.RejectedError{Permission: req.Permission}
		}
	}
	return nil
}

func registry(t *testing.T, cfg *config.Config) *agent.Registry {
	t.Helper()
	if cfg == nil {
		cfg = &config.Config{}
	}
	r, err := agent.Load(context.Background(), agent.Options{Config: cfg, NoClaudeCode: true})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func call(t *testing.T, reg *agent.Registry, caller string, input map[string]any) *tool.Call {
	t.Helper()
	raw, _ := json.Marshal(input)
	a, _ := reg.Get(caller)
	return &tool.Call{ID: "call_1", Tool: ID, Input: raw, SessionID: "ses_parent", MessageID: "msg_1", Agent: caller,
		Asker: rulesAsker{rules: a.Permission}}
}

func TestRun(t *testing.T) {
	reg := registry(t, &config.Config{Agent: map[string]config.Agent{
		"reviewer": {Mode: "subagent", Model: "anthropic/claude-haiku-4-5", Variant: "low", Description: "reviews"},
	}})
	runner := &fakeRunner{callers: map[string]Caller{
		"ses_parent": {Depth: 0, Model: "openai/gpt-5", Variant: "high", Permission: permission.Ruleset{
			{Permission: "bash", Pattern: "rm *", Action: permission.Deny},
			{Permission: "bash", Pattern: "*", Action: permission.Allow},
			{Permission: "external_directory", Pattern: "/tmp/*", Action: permission.Allow},
		}},
	}}
	tl := New(Options{Agents: reg, Runner: runner})
	c := call(t, reg, "build", map[string]any{"description": "find tests", "prompt": "Find the tests", "subagent_type": "explore"})
	var progress []map[string]any
	c.Progress = func(title string, md map[string]any) {
		if title != "find tests" {
			t.Errorf("progress title %q", title)
		}
		progress = append(progress, md)
	}
	res, err := tl.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := "<task id=\"ses_child1\" state=\"completed\">\n<task_result>\nfound 3 files\n</task_result>\n</task>"
	if res.Output != want || res.Title != "find tests" || res.Metadata["sessionId"] != "ses_child1" || res.Metadata["parentSessionId"] != "ses_parent" {
		t.Errorf("result = %+v", res)
	}
	if len(progress) != 1 || progress[0]["sessionId"] != "ses_child1" {
		t.Errorf("progress = %v", progress)
	}
	req := runner.reqs[0]
	if req.ParentID != "ses_parent" || req.SessionID != "" || req.Title != "find tests (@explore subagent)" || req.Agent != "explore" ||
		req.Prompt != "Find the tests" || req.Model != "openai/gpt-5" || req.Variant != "high" {
		t.Errorf("request = %+v", req)
	}
	// The child inherits the parent session's denials and external
	// directories, and may not start sub-agents (explore's own rules
	// already deny todowrite, so no session rule is added for it).
	wantRules := permission.Ruleset{
		{Permission: "bash", Pattern: "rm *", Action: permission.Deny},
		{Permission: "external_directory", Pattern: "/tmp/*", Action: permission.Allow},
		{Permission: "task", Pattern: "*", Action: permission.Deny},
	}
	if !equalRules(req.Permission, wantRules) {
		t.Errorf("child permission = %v\nwant %v", req.Permission, wantRules)
	}

	// A sub-agent with its own model uses it, with its variant.
	runner.reqs = nil
	if _, err := tl.Run(context.Background(), call(t, reg, "build", map[string]any{"description": "d", "prompt": "p", "subagent_type": "reviewer"})); err != nil {
		t.Fatal(err)
	}
	if r := runner.reqs[0]; r.Model != "anthropic/claude-haiku-4-5" || r.Variant != "low" {
		t.Errorf("model %q variant %q", r.Model, r.Variant)
	}

	// task_id resumes the same child.
	runner.reqs = nil
	res, err = tl.Run(context.Background(), call(t, reg, "build", map[string]any{"description": "d", "prompt": "more", "subagent_type": "explore", "task_id": "ses_earlier"}))
	if err != nil {
		t.Fatal(err)
	}
	if runner.reqs[0].SessionID != "ses_earlier" || !strings.HasPrefix(res.Output, `<task id="ses_earlier" state="completed">`) {
		t.Errorf("resume: request %+v output %q", runner.reqs[0], res.Output)
	}
}

func equalRules(a, b permission.Ruleset) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRunRefusals(t *testing.T) {
	deny := config.Permission{{Permission: "task", Pattern: "general", Action: "deny"}}
	reg := registry(t, &config.Config{Agent: map[string]config.Agent{"build": {Permission: deny}}})
	runner := &fakeRunner{callers: map[string]Caller{"ses_parent": {Depth: 0}, "ses_child": {Depth: 1}, "ses_deep": {Depth: 2}}}
	tl := New(Options{Agents: reg, Runner: runner})
	ctx := context.Background()

	tests := []struct {
		name    string
		ctx     context.Context
		session string
		caller  string
		depth   int
		agent   string
		want    string
	}{
		{name: "depth limit", session: "ses_child", caller: "build", agent: "explore",
			want: `cannot start the "explore" sub-agent: this session is already 1 level(s) below the main session and subagent_depth allows 1; do this work yourself with your own tools`},
		{name: "deeper limit allows a grandchild", session: "ses_child", caller: "build", depth: 2, agent: "explore"},
		{name: "deeper limit still ends", session: "ses_deep", caller: "build", depth: 2, agent: "explore", want: "subagent_depth allows 2"},
		{name: "unknown agent", session: "ses_parent", caller: "build", agent: "ghost", want: `unknown agent type: "ghost" is not a valid agent type; use one of: explore, general`},
		{name: "a primary agent may run as a sub-agent (a subtask command's)", session: "ses_parent", caller: "build", agent: "plan"},
		{name: "denied by the caller's task permission", session: "ses_parent", caller: "build", agent: "general", want: `permission "task" for "general" is denied`},
		{name: "user request skips the task permission", ctx: UserInitiated(ctx), session: "ses_parent", caller: "build", agent: "general"},
		{name: "unknown session", session: "ses_gone", caller: "build", agent: "explore", want: "no such session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl.opts.Depth = max(tt.depth, DefaultDepth)
			c := call(t, reg, tt.caller, map[string]any{"description": "d", "prompt": "p", "subagent_type": tt.agent})
			c.SessionID = tt.session
			rctx := tt.ctx
			if rctx == nil {
				rctx = ctx
			}
			_, err := tl.Run(rctx, c)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	var de *DepthError
	c := call(t, reg, "build", map[string]any{"description": "d", "prompt": "p", "subagent_type": "explore"})
	c.SessionID = "ses_child"
	tl.opts.Depth = 1
	if _, err := tl.Run(ctx, c); !errors.As(err, &de) || de.Depth != 1 || de.Limit != 1 {
		t.Errorf("depth error = %#v", err)
	}
	if _, err := tl.Run(ctx, call(t, reg, "build", map[string]any{"description": "d", "subagent_type": "explore"})); err == nil || !strings.Contains(err.Error(), "invalid arguments") {
		t.Errorf("missing prompt: %v", err)
	}
}

func TestRunCancel(t *testing.T) {
	reg := registry(t, nil)
	runner := &fakeRunner{callers: map[string]Caller{"ses_parent": {}}, block: true, started: make(chan struct{})}
	tl := New(Options{Agents: reg, Runner: runner})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tl.Run(ctx, call(t, reg, "build", map[string]any{"description": "d", "prompt": "p", "subagent_type": "general"}))
		done <- err
	}()
	<-runner.started
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelling the parent did not stop the child")
	}
}

func TestRunChildError(t *testing.T) {
	reg := registry(t, nil)
	runner := &fakeRunner{callers: map[string]Caller{"ses_parent": {}}, err: errors.New("model unavailable")}
	tl := New(Options{Agents: reg, Runner: runner})
	if _, err := tl.Run(context.Background(), call(t, reg, "build", map[string]any{"description": "d", "prompt": "p", "subagent_type": "general"})); err == nil || err.Error() != "model unavailable" {
		t.Errorf("err = %v", err)
	}
}

func TestChildPermission(t *testing.T) {
	reg := registry(t, &config.Config{
		Agent: map[string]config.Agent{
			"nester":  {Mode: "subagent", Permission: config.Permission{{Permission: "task", Pattern: "*", Action: "allow"}, {Permission: "todowrite", Pattern: "*", Action: "allow"}}},
			"planner": {Mode: "subagent", Permission: config.Permission{{Permission: "edit", Pattern: "*", Action: "deny"}, {Permission: "edit", Pattern: ".codeloop/research/*", Action: "allow"}}},
		},
		Experimental: config.Experimental{PrimaryTools: []string{"question"}},
	})
	get := func(n string) *agent.Agent { a, _ := reg.Get(n); return a }
	session := permission.Ruleset{
		{Permission: "edit", Pattern: "*", Action: permission.Ask},
		{Permission: "webfetch", Pattern: "*", Action: permission.Deny},
	}
	floors := permission.Ruleset{ // as a client sends them with a session
		{Permission: "bash", Pattern: "*", Action: permission.Ask, Floor: true, Layer: "session"},
		{Permission: "bash", Pattern: "git status", Action: permission.Allow, Floor: true, Layer: "session"},
		{Permission: "bash", Pattern: "rm *", Action: permission.Deny, Floor: true, Layer: "session"},
	}
	tests := []struct {
		name        string
		parent, sub string
		session     permission.Ruleset              // the parent session's rules; nil for session
		check       map[[2]string]permission.Action // (permission, pattern) -> action in parent agent + child
	}{
		{name: "plan parent keeps its edit lock", parent: "plan", sub: "general", check: map[[2]string]permission.Action{
			{"edit", "main.go"}: permission.Deny, {"webfetch", "x"}: permission.Deny, {"todowrite", "*"}: permission.Deny, {"task", "explore"}: permission.Deny,
			{"question", "*"}: permission.Deny,
		}},
		{name: "sub with its own edit lock keeps its exceptions", parent: "plan", sub: "planner", check: map[[2]string]permission.Action{
			{"edit", ".codeloop/research/notes.md"}: permission.Allow, {"edit", "main.go"}: permission.Deny,
		}},
		{name: "build parent leaves edits alone", parent: "build", sub: "general", check: map[[2]string]permission.Action{
			{"edit", "main.go"}: permission.Allow, {"bash", "ls"}: permission.Allow,
		}},
		{name: "sub that configures task and todowrite keeps them", parent: "build", sub: "nester", check: map[[2]string]permission.Action{
			{"task", "explore"}: permission.Allow, {"todowrite", "*"}: permission.Allow,
		}},
		{name: "the session's floor rules hold for the child", parent: "build", sub: "general", session: floors, check: map[[2]string]permission.Action{
			{"bash", "touch x"}: permission.Ask, {"bash", "git status"}: permission.Allow, {"bash", "rm x"}: permission.Deny,
			{"edit", "main.go"}: permission.Allow,
		}},
		{name: "floor rules hold under a sub-agent that allows bash", parent: "build", sub: "explore", session: floors, check: map[[2]string]permission.Action{
			{"bash", "touch x"}: permission.Ask, {"bash", "rm x"}: permission.Deny,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sub := get(tt.sub)
			parentSession := session
			if tt.session != nil {
				parentSession = tt.session
			}
			child := ChildPermission(parentSession, get(tt.parent), sub, []string{"question"})
			for k, want := range tt.check {
				r, _ := permission.Evaluate(k[0], k[1], sub.Permission, child)
				if r.Action != want {
					t.Errorf("%s %q = %s, want %s (child rules %v)", k[0], k[1], r.Action, want, child)
				}
			}
		})
	}
}

func TestDescription(t *testing.T) {
	reg := registry(t, &config.Config{Agent: map[string]config.Agent{
		"quiet": {Mode: "subagent"},
		"build": {Permission: config.Permission{{Permission: "task", Pattern: "quiet", Action: "deny"}}},
	}})
	tl := New(Options{Agents: reg})
	all := tl.Description()
	for _, want := range []string{"- explore: ", "- general: ", "- quiet: This sub-agent should only be started when the user asks for it."} {
		if !strings.Contains(all, want) {
			t.Errorf("description lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "- plan:") || strings.Contains(all, "- title:") {
		t.Errorf("description lists primary agents:\n%s", all)
	}
	forBuild := tl.DescriptionFor("build")
	if strings.Contains(forBuild, "- quiet:") || !strings.Contains(forBuild, "- explore:") {
		t.Errorf("DescriptionFor(build) should leave out denied agents:\n%s", forBuild)
	}
	if strings.Contains(tl.DescriptionFor("plan"), "- general:") {
		t.Error("plan denies general")
	}
	var schema map[string]any
	if err := json.Unmarshal(tl.Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	props, _ := schema["properties"].(map[string]any)
	for _, p := range []string{"description", "prompt", "subagent_type", "task_id", "command"} {
		if _, ok := props[p]; !ok {
			t.Errorf("schema lacks %s: %s", p, tl.Schema())
		}
	}
}
