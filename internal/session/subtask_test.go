package session

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/bus"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/hook"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
	"github.com/codeloop/codeloop/internal/store"
	"github.com/codeloop/codeloop/internal/tool"
)

// echoTask stands in for the task tool: it answers with the prompt it got
// and whether the call was marked as started by the user.
type echoTask struct{}

type userMark struct{}

func (echoTask) ID() string              { return TaskTool }
func (echoTask) Description() string     { return "runs a sub-agent" }
func (echoTask) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (echoTask) Run(ctx context.Context, call *tool.Call) (*tool.Result, error) {
	var in struct {
		Prompt string `json:"prompt"`
		Agent  string `json:"subagent_type"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, err
	}
	by := "model"
	if ctx.Value(userMark{}) != nil {
		by = "user"
	}
	return &tool.Result{Title: "review", Output: in.Agent + " did: " + in.Prompt + " (started by " + by + ")"}, nil
}

type listTools []tool.Tool

func (l listTools) Tools(context.Context, ToolQuery) ([]tool.Tool, error) { return l, nil }

// TestSubtaskFromCommand runs a subtask part the way a slash command bound
// to a sub-agent creates it.
func TestSubtaskFromCommand(t *testing.T) { testSubtask(t, "review") }

// TestSubtaskWithoutCommand runs a subtask part that no command created:
// the synthetic user message follows the task all the same, so the model
// never sees two assistant messages in a row.
func TestSubtaskWithoutCommand(t *testing.T) { testSubtask(t, "") }

func testSubtask(t *testing.T, command string) {
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	main := fakellm.NewScripted("fake", append(fakellm.Text("t", "The review found nothing."), fakellm.Finish(llm.FinishStop, llm.Usage{})...))
	sessions := NewSessions(st, bus.New(time.Second), "test")
	eng, err := New(Config{
		Sessions: sessions, Models: &testModels{main: main, small: fakellm.NewScripted("fake")},
		Agents: StaticAgents{BuildAgent()}, Tools: listTools{echoTask{}},
		UserInitiated: func(ctx context.Context) context.Context { return context.WithValue(ctx, userMark{}, true) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, _ := sessions.Create(ctx, CreateInput{ProjectID: "p", Title: "Review"})
	_, err = eng.Prompt(ctx, PromptInput{SessionID: sess.ID, Parts: []message.Part{
		&message.SubtaskPart{Prompt: "check the diff", Description: "review", Agent: "general", Command: command},
	}})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := sessions.Messages(ctx, sess.ID)
	if len(msgs) != 4 {
		t.Fatalf("%d messages, want user, task, synthetic user, answer", len(msgs))
	}
	tp, ok := msgs[1].Parts[0].(*message.ToolPart)
	if !ok || tp.Tool != TaskTool || tp.State.Status != message.ToolCompleted ||
		tp.State.Output != "general did: check the diff (started by user)" || msgs[1].Info.Finish != "tool-calls" {
		t.Fatalf("task message: %+v %+v", msgs[1].Info, msgs[1].Parts[0])
	}
	if txt, ok := msgs[2].Parts[0].(*message.TextPart); !ok || !txt.Synthetic || txt.Text != subtaskSummary {
		t.Errorf("follow-up: %+v", msgs[2].Parts[0])
	}
	reqs := main.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	// The model sees the user's subtask as the executed-tool note, the call
	// and its result, then the synthetic request to go on.
	var roles []llm.Role
	for _, m := range reqs[0].Messages {
		roles = append(roles, m.Role)
	}
	if len(roles) != 4 || roles[0] != llm.RoleUser || roles[1] != llm.RoleAssistant || roles[2] != llm.RoleTool || roles[3] != llm.RoleUser {
		t.Errorf("roles %v", roles)
	}
	if reqs[0].Messages[0].Parts[0].Text != message.SubtaskPrompt {
		t.Errorf("first message %+v", reqs[0].Messages[0])
	}
}

// filteredTools offers its tools the way the app does: without those the
// query's rules deny outright.
type filteredTools []tool.Tool

func (l filteredTools) Tools(_ context.Context, q ToolQuery) ([]tool.Tool, error) {
	var out []tool.Tool
	for _, t := range l {
		if !permission.Disabled([]string{t.ID()}, q.Rules)[t.ID()] {
			out = append(out, t)
		}
	}
	return out, nil
}

// taskHooks records the hook events fired for the task tool.
type taskHooks struct {
	mu     sync.Mutex
	events []string
}

func (h *taskHooks) Has(string) bool { return true }

func (h *taskHooks) Run(_ context.Context, in hook.Input) hook.Result {
	if in.Tool == TaskTool {
		h.mu.Lock()
		h.events = append(h.events, in.Event)
		h.mu.Unlock()
	}
	return hook.Result{}
}

// TestUserSubtaskIgnoresTaskDeny runs a subtask the user started (a slash
// command bound to a sub-agent) for an agent whose rules deny the task
// tool, which keeps the model from delegating: what the user typed runs,
// with the tool hooks around it.
func TestUserSubtaskIgnoresTaskDeny(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	main := fakellm.NewScripted("fake", append(fakellm.Text("t", "Summarised."), fakellm.Finish(llm.FinishStop, llm.Usage{})...))
	sessions := NewSessions(st, bus.New(time.Second), "test")
	build := BuildAgent()
	build.Permission = append(build.Permission, permission.Rule{Permission: TaskTool, Pattern: "*", Action: permission.Deny})
	hooks := &taskHooks{}
	eng, err := New(Config{
		Sessions: sessions, Models: &testModels{main: main, small: fakellm.NewScripted("fake")},
		Agents: StaticAgents{build}, Tools: filteredTools{echoTask{}}, Hooks: hooks,
		UserInitiated: func(ctx context.Context) context.Context { return context.WithValue(ctx, userMark{}, true) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, _ := sessions.Create(ctx, CreateInput{ProjectID: "p", Title: "Explore"})
	if _, err := eng.Prompt(ctx, PromptInput{SessionID: sess.ID, Parts: []message.Part{
		&message.SubtaskPart{Prompt: "find the config", Description: "explore", Agent: "explore", Command: "explorex"},
	}}); err != nil {
		t.Fatal(err)
	}
	msgs, _ := sessions.Messages(ctx, sess.ID)
	var call *message.ToolPart
	for _, m := range msgs {
		for _, p := range m.Parts {
			if tp, ok := p.(*message.ToolPart); ok && tp.Tool == TaskTool {
				call = tp
			}
		}
	}
	if call == nil || call.State.Status != message.ToolCompleted || call.State.Output != "explore did: find the config (started by user)" {
		t.Fatalf("the user's subtask did not run: %+v", call)
	}
	hooks.mu.Lock()
	defer hooks.mu.Unlock()
	if !slices.Equal(hooks.events, []string{hook.PreToolUse, hook.PostToolUse}) {
		t.Errorf("task hooks fired %v, want PreToolUse then PostToolUse", hooks.events)
	}
}
