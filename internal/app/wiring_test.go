package app

import (
	"testing"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/prompt"
	"github.com/codeloop/codeloop/internal/session"
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
