package task_test

import (
	"context"
	"encoding/json"
	"iter"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/task"
	"github.com/codeloop/codeloop/internal/tool"
)

// responder answers one model request.
type responder func(req *llm.Request) fakellm.Step

// queue is a provider that answers the requests of every session, in the
// order they come, with its responders; the loop runs a sub-agent inside
// its parent's tool call, so that order is fixed.
type queue struct {
	mu    sync.Mutex
	next  []responder
	calls []llm.Request
}

func (q *queue) ID() string { return "fake" }

func (q *queue) Stream(ctx context.Context, req *llm.Request) iter.Seq[llm.Event] {
	q.mu.Lock()
	q.calls = append(q.calls, *req)
	var r responder
	if len(q.next) > 0 {
		r, q.next = q.next[0], q.next[1:]
	}
	q.mu.Unlock()
	var step fakellm.Step
	if r != nil {
		step = r(req)
	} else {
		step = fakellm.Step{{Type: llm.EventError, Err: &llm.Error{Kind: llm.ErrOther, Provider: "fake", Message: "no more responses"}}}
	}
	return func(yield func(llm.Event) bool) { fakellm.Play(ctx, "fake", step, nil, yield) }
}

func (q *queue) requests() []llm.Request {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]llm.Request(nil), q.calls...)
}

// title always answers with the same title, so title requests never take
// a response meant for a session.
type title struct{}

func (title) ID() string { return "fake" }
func (title) Stream(ctx context.Context, _ *llm.Request) iter.Seq[llm.Event] {
	step := append(fakellm.Text("t", "A title"), fakellm.Finish(llm.FinishStop, llm.Usage{})...)
	return func(yield func(llm.Event) bool) { fakellm.Play(ctx, "fake", step, nil, yield) }
}

type models struct{ main *queue }

func (m models) Model(_ context.Context, ref message.ModelRef) (llm.Provider, llm.Model, error) {
	model := llm.Model{ID: ref.ModelID, ProviderID: ref.ProviderID, ToolCall: true, Limit: llm.Limit{Context: 200000, Output: 8000}}
	if ref.ModelID == "small" {
		return title{}, model, nil
	}
	return m.main, model, nil
}
func (models) Default(context.Context) (message.ModelRef, error) {
	return message.ModelRef{ProviderID: "fake", ModelID: "model"}, nil
}
func (models) Small(context.Context, string) (message.ModelRef, bool) {
	return message.ModelRef{ProviderID: "fake", ModelID: "small"}, true
}

// agents serves the registry to the engine.
type agents struct{ reg *agent.Registry }

func (a agents) Agent(_ context.Context, name string) (*session.Agent, error) {
	ag := a.reg.Default()
	if name != "" {
		var err error
		if ag, err = a.reg.Lookup(name); err != nil {
			return nil, err
		}
	}
	s := &session.Agent{Name: ag.Name, Mode: string(ag.Mode), Prompt: ag.Prompt, Permission: ag.Permission, Options: ag.Options}
	if p, m, ok := agent.SplitModel(ag.Model); ok {
		s.Model = &message.ModelRef{ProviderID: p, ModelID: m}
	}
	return s, nil
}

// tools offers the task tool, described for the asking agent, unless the
// rules in force deny it.
type tools struct{ task *task.Tool }

func (t tools) Tools(_ context.Context, q session.ToolQuery) ([]tool.Tool, error) {
	if permission.Disabled([]string{task.ID}, q.Rules)[task.ID] {
		return nil, nil
	}
	return []tool.Tool{t.task.ForAgent(q.Agent.Name)}, nil
}

// runner lets the task tool run children on the engine.
type runner struct{ eng *session.Engine }

func (r *runner) Caller(ctx context.Context, sessionID, messageID string) (task.Caller, error) {
	c, err := r.eng.Caller(ctx, sessionID, messageID)
	if err != nil {
		return task.Caller{}, err
	}
	return task.Caller{Depth: c.Depth, Permission: c.Permission, Model: c.Model.String(), Variant: c.Model.Variant}, nil
}

func (r *runner) RunChild(ctx context.Context, req task.ChildRequest) (task.ChildResult, error) {
	in := session.ChildInput{ParentID: req.ParentID, SessionID: req.SessionID, Title: req.Title, Agent: req.Agent,
		Permission: req.Permission, Prompt: req.Prompt, Started: req.Started}
	if p, m, ok := agent.SplitModel(req.Model); ok {
		in.Model = &message.ModelRef{ProviderID: p, ModelID: m, Variant: req.Variant}
	}
	id, text, err := r.eng.RunChild(ctx, in)
	return task.ChildResult{SessionID: id, Text: text}, err
}

type harness struct {
	eng      *session.Engine
	sessions *session.Sessions
	reg      *agent.Registry
	model    *queue
	bus      *bus.Bus
	root     session.Info
}

func newHarness(t *testing.T, cfg *config.Config, responses ...responder) *harness {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg, err := agent.Load(ctx, agent.Options{Config: cfg, NoClaudeCode: true})
	if err != nil {
		t.Fatal(err)
	}
	b := bus.New(time.Second)
	h := &harness{reg: reg, model: &queue{next: responses}, bus: b, sessions: session.NewSessions(st, b, "test")}
	run := &runner{}
	work := t.TempDir()
	h.eng, err = session.New(session.Config{
		Sessions: h.sessions, Bus: b, Models: models{h.model}, Agents: agents{reg},
		Tools:     tools{task.New(task.Options{Agents: reg, Runner: run})},
		Directory: work, Worktree: work, RetryBase: time.Millisecond, RetryCap: time.Millisecond, MaxRetries: 1,
		FlushInterval: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.eng.Close)
	run.eng = h.eng
	if h.root, err = h.sessions.Create(ctx, session.CreateInput{ProjectID: "p", Directory: work}); err != nil {
		t.Fatal(err)
	}
	return h
}

// Response helpers.
func say(text string) responder {
	return func(*llm.Request) fakellm.Step {
		return append(fakellm.Text("t1", text), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 10, Output: 5})...)
	}
}

func callTask(args map[string]any) responder {
	return func(*llm.Request) fakellm.Step {
		raw, _ := json.Marshal(args)
		return append(fakellm.Call("call_1", task.ID, string(raw)), fakellm.Finish(llm.FinishToolCalls, llm.Usage{Input: 10, Output: 5})...)
	}
}

var taskIDRE = regexp.MustCompile(`<task id="([^"]+)" state="completed">`)

// lastTaskID is the child id in the newest task result the request holds.
func lastTaskID(req *llm.Request) string {
	id := ""
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			if p.Type == llm.PartToolResult {
				if sub := taskIDRE.FindStringSubmatch(p.Output); sub != nil {
					id = sub[1]
				}
			}
		}
	}
	return id
}

func (h *harness) children(t *testing.T) []session.Info {
	t.Helper()
	list, err := h.sessions.List(context.Background(), store.SessionFilter{ParentID: h.root.ID})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func (h *harness) messages(t *testing.T, sessionID string) []message.Message {
	t.Helper()
	msgs, err := h.sessions.Messages(context.Background(), sessionID)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// toolParts returns the task tool parts of a session's messages.
func toolParts(msgs []message.Message) []*message.ToolPart {
	var out []*message.ToolPart
	for _, m := range msgs {
		for _, p := range m.Parts {
			if tp, ok := p.(*message.ToolPart); ok && tp.Tool == task.ID {
				out = append(out, tp)
			}
		}
	}
	return out
}

func (h *harness) prompt(t *testing.T, text string) message.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := h.eng.Prompt(ctx, session.PromptInput{SessionID: h.root.ID, Parts: []message.Part{session.TextPart(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestScenarioExploreChild(t *testing.T) {
	h := newHarness(t, nil,
		callTask(map[string]any{"description": "find tests", "prompt": "Find the test files", "subagent_type": "explore"}),
		say("There are 3 test files."),
		func(req *llm.Request) fakellm.Step {
			return say("Done: " + lastTaskID(req))(req)
		},
	)
	last := h.prompt(t, "Where are the tests?")

	kids := h.children(t)
	if len(kids) != 1 {
		t.Fatalf("children = %d, want 1", len(kids))
	}
	child := kids[0]
	if child.ParentID != h.root.ID || child.Title != "find tests (@explore subagent)" || child.Agent != "explore" {
		t.Errorf("child = parent %q title %q agent %q", child.ParentID, child.Title, child.Agent)
	}
	if r, _ := permission.Evaluate("task", "general", child.Permission); r.Action != permission.Deny {
		t.Errorf("child permission %v should deny task", child.Permission)
	}
	cm := h.messages(t, child.ID)
	if len(cm) != 2 || cm[0].Info.Role != message.RoleUser || cm[1].Info.Agent != "explore" {
		t.Fatalf("child messages = %+v", cm)
	}
	if tp, ok := cm[0].Parts[0].(*message.TextPart); !ok || tp.Text != "Find the test files" {
		t.Errorf("child prompt = %+v", cm[0].Parts[0])
	}

	parts := toolParts(h.messages(t, h.root.ID))
	if len(parts) != 1 {
		t.Fatalf("task parts = %d", len(parts))
	}
	st := parts[0].State
	want := "<task id=\"" + child.ID + "\" state=\"completed\">\n<task_result>\nThere are 3 test files.\n</task_result>\n</task>"
	if st.Status != message.ToolCompleted || st.Output != want || st.Title != "find tests" || st.Metadata["sessionId"] != child.ID {
		t.Errorf("task part = %+v", st)
	}
	if text := lastText(last); text != "Done: "+child.ID {
		t.Errorf("final answer %q", text)
	}

	reqs := h.model.requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d", len(reqs))
	}
	if !strings.Contains(strings.Join(reqs[1].System, "\n"), strings.TrimSpace(agent.PromptExplore)[:40]) {
		t.Errorf("the child was not asked with the explore prompt: %q", reqs[1].System)
	}
	if len(reqs[1].Tools) != 0 {
		t.Errorf("the explore child was offered %v; task is denied to it", reqs[1].Tools)
	}
	if len(reqs[0].Tools) != 1 || !strings.Contains(reqs[0].Tools[0].Description, "- explore:") {
		t.Errorf("parent tools = %+v", reqs[0].Tools)
	}
}

func lastText(m message.Message) string {
	text := ""
	for _, p := range m.Parts {
		if tp, ok := p.(*message.TextPart); ok {
			text = tp.Text
		}
	}
	return text
}

func TestScenarioResume(t *testing.T) {
	var secondChildRequest *llm.Request
	h := newHarness(t, nil,
		callTask(map[string]any{"description": "look", "prompt": "Find the config loader", "subagent_type": "general"}),
		say("It is in internal/config/load.go."),
		func(req *llm.Request) fakellm.Step {
			return callTask(map[string]any{"description": "look more", "prompt": "Now find its tests", "subagent_type": "general", "task_id": lastTaskID(req)})(req)
		},
		func(req *llm.Request) fakellm.Step {
			secondChildRequest = req
			return say("load_test.go.")(req)
		},
		say("Found both."),
	)
	h.prompt(t, "Find the loader and its tests")
	kids := h.children(t)
	if len(kids) != 1 {
		t.Fatalf("resuming made %d children, want 1", len(kids))
	}
	cm := h.messages(t, kids[0].ID)
	if len(cm) != 4 {
		t.Errorf("the resumed child has %d messages, want 4", len(cm))
	}
	var history []string
	for _, m := range secondChildRequest.Messages {
		for _, p := range m.Parts {
			if p.Type == llm.PartText {
				history = append(history, p.Text)
			}
		}
	}
	if got := strings.Join(history, "|"); !strings.Contains(got, "Find the config loader|It is in internal/config/load.go.|Now find its tests") {
		t.Errorf("the resumed child did not see its history: %q", got)
	}
	parts := toolParts(h.messages(t, h.root.ID))
	if len(parts) != 2 || parts[1].State.Metadata["sessionId"] != kids[0].ID {
		t.Errorf("task parts = %+v", parts)
	}
}

func TestScenarioDepthLimit(t *testing.T) {
	cfg := &config.Config{Agent: map[string]config.Agent{"nester": {Mode: "subagent", Description: "delegates",
		Permission: config.Permission{{Permission: "task", Pattern: "*", Action: "allow"}}}}}
	h := newHarness(t, cfg,
		callTask(map[string]any{"description": "delegate", "prompt": "Delegate this", "subagent_type": "nester"}),
		callTask(map[string]any{"description": "grandchild", "prompt": "Go deeper", "subagent_type": "explore"}),
		say("I could not delegate, so I did it myself."),
		say("All done."),
	)
	h.prompt(t, "Start")
	kids := h.children(t)
	if len(kids) != 1 {
		t.Fatalf("children = %d", len(kids))
	}
	grand, err := h.sessions.List(context.Background(), store.SessionFilter{ParentID: kids[0].ID})
	if err != nil || len(grand) != 0 {
		t.Fatalf("grandchildren = %d (%v), want none", len(grand), err)
	}
	parts := toolParts(h.messages(t, kids[0].ID))
	if len(parts) != 1 || parts[0].State.Status != message.ToolError ||
		!strings.Contains(parts[0].State.Error, `cannot start the "explore" sub-agent`) || !strings.Contains(parts[0].State.Error, "subagent_depth allows 1") {
		t.Fatalf("grandchild call = %+v", parts)
	}
	if p := toolParts(h.messages(t, h.root.ID)); len(p) != 1 || !strings.Contains(p[0].State.Output, "I could not delegate") {
		t.Errorf("parent task part = %+v", p)
	}
}

func TestScenarioAbort(t *testing.T) {
	started := make(chan struct{})
	h := newHarness(t, nil,
		callTask(map[string]any{"description": "slow", "prompt": "Take your time", "subagent_type": "general"}),
		func(*llm.Request) fakellm.Step {
			close(started)
			return fakellm.Step{{Type: fakellm.EventHang}}
		},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := h.eng.Send(ctx, session.PromptInput{SessionID: h.root.ID, Parts: []message.Part{session.TextPart("go")}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the child never started")
	}
	h.eng.Cancel(h.root.ID)
	if _, err := h.eng.Wait(ctx, h.root.ID); err != nil && ctx.Err() != nil {
		t.Fatal(err)
	}
	kids := h.children(t)
	if len(kids) != 1 {
		t.Fatalf("children = %d", len(kids))
	}
	if h.eng.Busy(kids[0].ID) {
		t.Error("the child still runs after its parent was aborted")
	}
	cm := h.messages(t, kids[0].ID)
	if a := cm[len(cm)-1].Info; a.Role != message.RoleAssistant || !message.IsAborted(a.Error) {
		t.Errorf("child's last message = %+v, want an aborted assistant message", a)
	}
	if p := toolParts(h.messages(t, h.root.ID)); len(p) != 1 || p[0].State.Status != message.ToolError {
		t.Errorf("parent task part = %+v", p)
	}
}
