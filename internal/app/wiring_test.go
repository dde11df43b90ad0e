package app

import (
	"context"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/prompt"
	"github.com/codeloop/codeloop/internal/session"
	"github.com/codeloop/codeloop/internal/task"
	"github.com/codeloop/codeloop/internal/tool"
)

func history(agents ...string) []message.Message {
	var out []message.Message
	for _, a := range agents {
		out = append(out,
			message.Message{Info: message.Info{Role: message.RoleUser}, Parts: []message.Part{&message.TextPart{Text: "q"}}},
			message.Message{Info: message.Info{Role: message.RoleAssistant, Agent: a}})
	}
	return append(out, message.Message{Info: message.Info{Role: message.RoleUser}, Parts: []message.Part{&message.TextPart{Text: "last"}}})
}

func TestReminders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		agent   string
		history []message.Message
		want    string
	}{
		{"plan mode", "plan", history("build"), prompt.PlanReminder()},
		{"switch from plan to build", "build", history("plan"), prompt.BuildSwitchReminder()},
		{"build without plan", "build", history("build"), ""},
		{"other agent", "general", history("plan"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.history
			before := len(in[len(in)-1].Parts)
			out := reminders{}.Remind(&session.Agent{Name: tt.agent}, in)
			if len(in[len(in)-1].Parts) != before {
				t.Fatal("the reminder changed the stored history")
			}
			last := out[len(out)-1].Parts
			got := ""
			if tp, ok := last[len(last)-1].(*message.TextPart); ok && tp.Synthetic {
				got = tp.Text
			}
			if got != tt.want {
				t.Errorf("reminder %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSessionAgent(t *testing.T) {
	t.Parallel()
	steps := 5
	a := sessionAgent(&agent.Agent{Name: "review", Mode: agent.ModeSubagent, Model: "anthropic/claude-haiku-4-5",
		Variant: "high", Steps: &steps, Prompt: "be terse"})
	if a.Name != "review" || a.Mode != "subagent" || a.Steps != 5 || a.Prompt != "be terse" ||
		a.Model == nil || a.Model.ProviderID != "anthropic" || a.Model.ModelID != "claude-haiku-4-5" || a.Model.Variant != "high" {
		t.Errorf("converted agent %+v (model %+v)", a, a.Model)
	}
	if b := sessionAgent(&agent.Agent{Name: "build"}); b.Model != nil || b.Steps != 0 {
		t.Errorf("agent without model or steps: %+v", b)
	}
}

// TestTaskToolPerAgent checks each agent is shown the task tool listing
// only the sub-agents its rules let it start: plan may not start general.
func TestTaskToolPerAgent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	reg, err := agent.Load(ctx, agent.Options{Config: &config.Config{}, NoClaudeCode: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := &tools{builtin: []tool.Tool{task.New(task.Options{Agents: reg})}}
	tests := []struct {
		agent       string
		want, never []string
	}{
		{"build", []string{"- general:", "- explore:"}, nil},
		{"plan", []string{"- explore:"}, []string{"- general:"}},
	}
	for _, tt := range tests {
		t.Run(tt.agent, func(t *testing.T) {
			a, err := agents{reg}.Agent(ctx, tt.agent)
			if err != nil {
				t.Fatal(err)
			}
			list, err := ts.Tools(ctx, session.ToolQuery{Agent: a, Rules: a.Permission})
			if err != nil {
				t.Fatal(err)
			}
			var desc string
			for _, tl := range list {
				if tl.ID() == task.ID {
					desc = tl.Description()
				}
			}
			if desc == "" {
				t.Fatalf("no task tool among %d tools", len(list))
			}
			for _, w := range tt.want {
				if !strings.Contains(desc, w) {
					t.Errorf("description lacks %q:\n%s", w, desc)
				}
			}
			for _, n := range tt.never {
				if strings.Contains(desc, n) {
					t.Errorf("description lists %q:\n%s", n, desc)
				}
			}
		})
	}
}
