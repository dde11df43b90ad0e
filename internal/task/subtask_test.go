package task_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/session"
)

// runCommand expands a slash command the way a front end does and sends
// the resulting message.
func runCommand(t *testing.T, h *harness, name, args string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	x := &agent.Expander{Agents: h.reg, Commands: agent.LoadCommands(ctx, agent.CommandOptions{Config: exploreCommand, NoClaudeCode: true})}
	e, err := x.Expand(ctx, agent.ExpandInput{Command: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if e.Subtask == nil {
		t.Fatalf("/%s did not become a subtask: %+v", name, e)
	}
	if _, err := h.eng.Prompt(ctx, session.PromptInput{SessionID: h.root.ID, Agent: e.Agent, Parts: e.Parts()}); err != nil {
		t.Fatal(err)
	}
}

// runningThen answers a child request with r after recording the stored
// status of the parent's task part at that moment.
func runningThen(h *harness, status *string, r responder) responder {
	return func(req *llm.Request) fakellm.Step {
		// This runs on the child's loop, not the test's goroutine.
		msgs, err := h.sessions.Messages(context.Background(), h.root.ID)
		if parts := toolParts(msgs); err == nil && len(parts) == 1 {
			*status = string(parts[0].State.Status)
		}
		return r(req)
	}
}

var exploreCommand = &config.Config{Command: map[string]config.Command{
	"explore": {Agent: "explore", Description: "Explore codebase", Template: "Find all $1 in the codebase"},
}}

// TestSubtaskCommand follows seed 002's ten steps for a /explore command.
func TestSubtaskCommand(t *testing.T) {
	h := newHarness(t, exploreCommand)
	var during string
	h.model.next = []responder{
		runningThen(h, &during, say("I found 15 test files.")),       // the explore child
		say("The codebase has 15 test files; next I will run them."), // the parent continues
	}
	runCommand(t, h, "/explore", "TypeScript files")
	msgs := h.messages(t, h.root.ID)
	if len(msgs) != 4 {
		t.Fatalf("messages = %d, want user+subtask, assistant(task), synthetic user, assistant", len(msgs))
	}
	user, taskMsg, synth, answer := msgs[0], msgs[1], msgs[2], msgs[3]

	// Step 0: the user message holds only the subtask part, and keeps the
	// caller's agent.
	sp, ok := user.Parts[0].(*message.SubtaskPart)
	if len(user.Parts) != 1 || !ok || sp.Agent != "explore" || sp.Description != "Explore codebase" ||
		sp.Prompt != "Find all TypeScript files in the codebase" || sp.Command != "explore" || user.Info.Agent != "build" {
		t.Fatalf("user message = %+v %+v", user.Info, user.Parts)
	}
	// Steps 1-2: an assistant message with the sub-agent's name, answering
	// the user message.
	if ti := taskMsg.Info; ti.Role != message.RoleAssistant || ti.Agent != "explore" || ti.Mode != "explore" || ti.ParentID != user.Info.ID {
		t.Errorf("task message = %+v", ti)
	}
	// Step 3: a task tool part whose input is the subtask.
	tp, ok := taskMsg.Parts[0].(*message.ToolPart)
	if !ok || tp.Tool != "task" {
		t.Fatalf("task message parts = %+v", taskMsg.Parts)
	}
	var input map[string]string
	if err := json.Unmarshal(tp.State.Input, &input); err != nil || input["prompt"] != sp.Prompt ||
		input["description"] != "Explore codebase" || input["subagent_type"] != "explore" || input["command"] != "explore" {
		t.Errorf("tool input = %s (%v)", tp.State.Input, err)
	}
	// Steps 5: the task tool ran the sub-agent in a child session.
	kids := h.children(t)
	if len(kids) != 1 || kids[0].Title != "Explore codebase (@explore subagent)" {
		t.Fatalf("children = %+v", kids)
	}
	// Step 7: the assistant message finished with tool-calls.
	if taskMsg.Info.Finish != "tool-calls" || taskMsg.Info.Time.Completed == 0 {
		t.Errorf("task message finish %q completed %d", taskMsg.Info.Finish, taskMsg.Info.Time.Completed)
	}
	// Step 8: the part went running -> completed and holds the result.
	if during != "running" {
		t.Errorf("while the child ran the task part was %q, want running", during)
	}
	if tp.State.Status != message.ToolCompleted || tp.State.Title != "Explore codebase" || tp.State.Metadata["sessionId"] != kids[0].ID ||
		!strings.Contains(tp.State.Output, "<task_result>\nI found 15 test files.\n</task_result>") {
		t.Errorf("tool state = %+v", tp.State)
	}
	// Step 9: a synthetic user message asks the model to go on, with the
	// caller's agent and model.
	st, ok := synth.Parts[0].(*message.TextPart)
	if synth.Info.Role != message.RoleUser || !ok || !st.Synthetic || st.Text != "Summarize the task tool output above and continue with your task." ||
		synth.Info.Agent != user.Info.Agent || synth.Info.Model != user.Info.Model {
		t.Errorf("synthetic message = %+v %+v", synth.Info, synth.Parts)
	}
	// Step 10: the normal loop continued with the parent's model, which saw
	// the task output.
	if answer.Info.Agent != "build" || lastText(answer) != "The codebase has 15 test files; next I will run them." {
		t.Errorf("answer = %+v", answer.Info)
	}
	reqs := h.model.requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d, want the child's and the parent's", len(reqs))
	}
	var sawResult, sawSummarize bool
	for _, m := range reqs[1].Messages {
		for _, p := range m.Parts {
			sawResult = sawResult || (p.Type == llm.PartToolResult && strings.Contains(p.Output, "I found 15 test files."))
			sawSummarize = sawSummarize || (p.Type == llm.PartText && strings.HasPrefix(p.Text, "Summarize the task tool output"))
		}
	}
	if !sawResult || !sawSummarize {
		t.Errorf("the parent's request lacks the task result (%v) or the synthetic prompt (%v)", sawResult, sawSummarize)
	}
}

// TestSubtaskCommandError: a failing sub-agent gives an error tool part and
// the loop goes on.
func TestSubtaskCommandError(t *testing.T) {
	h := newHarness(t, exploreCommand)
	var during string
	h.model.next = []responder{
		runningThen(h, &during, func(*llm.Request) fakellm.Step {
			return fakellm.Step{{Type: llm.EventError, Err: &llm.Error{Kind: llm.ErrOther, Provider: "fake", Message: "the model is gone"}}}
		}),
		say("The exploration failed; I will look myself."),
	}
	runCommand(t, h, "explore", "tests")
	msgs := h.messages(t, h.root.ID)
	if len(msgs) != 4 {
		t.Fatalf("messages = %d, want 4", len(msgs))
	}
	tp := msgs[1].Parts[0].(*message.ToolPart)
	if tp.State.Status != message.ToolError || !strings.HasPrefix(tp.State.Error, "Tool execution failed: ") || !strings.Contains(tp.State.Error, "the model is gone") {
		t.Errorf("tool state = %+v", tp.State)
	}
	if during != "running" {
		t.Errorf("while the child ran the task part was %q, want running", during)
	}
	if msgs[1].Info.Finish != "tool-calls" || msgs[1].Info.Error != nil {
		t.Errorf("task message = %+v", msgs[1].Info)
	}
	if st := msgs[2].Parts[0].(*message.TextPart); !st.Synthetic {
		t.Errorf("no synthetic follow-up: %+v", msgs[2].Parts)
	}
	if lastText(msgs[3]) != "The exploration failed; I will look myself." {
		t.Errorf("the loop did not continue: %+v", msgs[3])
	}
}
