package tui

import (
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/client"
)

// testUsage is a context of a long session with two instruction files.
var testUsage = client.ContextUsage{
	Model: &client.ModelRef{ProviderID: "fake", ModelID: "model"}, Limit: 100000, Used: 42000,
	Parts: []client.ContextPart{
		{Kind: client.ContextSystem, Tokens: 2100},
		{Kind: client.ContextInstruction, Name: "/work/project/AGENTS.md", Tokens: 800},
		{Kind: client.ContextInstruction, Name: "/home/ada/.config/codeloop/AGENTS.md", Tokens: 300},
		{Kind: client.ContextTools, Tokens: 9800},
		{Kind: client.ContextMessages, Tokens: 12000},
		{Kind: client.ContextToolOutput, Tokens: 17000},
	},
	Compactable: 26000, Cost: 0.4213, TurnCost: 0.0375,
}

// contextOpen is the view with the /context dialog open.
func contextOpen(m *Model) {
	sidebarSession(m)
	m.opts.Dir = "/work/project"
	send(m, contextMsg{usage: testUsage})
}

// TestContextDialog checks the breakdown: each part with its tokens and
// share of the total, instruction files by project-relative path, what
// a compaction frees and the costs.
func TestContextDialog(t *testing.T) {
	m := testModel(t, 120, 35)
	contextOpen(m)
	got := screen(m)
	for _, want := range []string{
		"window 100.0k tokens", "counted 42.0k tokens at its last step, 42% of the window",
		"System prompt", "AGENTS.md", "Tools", "9.8k", "23%", "Messages", "Tool outputs", "17.0k", "40%",
		"Total", "42.0k", "about 26.0k tokens", "$0.4213 so far", "$0.0375 the last turn",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "/work/project/AGENTS.md") {
		t.Errorf("the project's instruction file is not named relative to it:\n%s", got)
	}
	m.Update(keyPress("esc"))
	if m.dialog != nil {
		t.Error("Esc did not close the dialog")
	}

	fresh := testModel(t, 80, 24)
	fresh.slash("context", "")
	if got := screen(fresh); !strings.Contains(got, "send a message first") {
		t.Errorf("/context before any message:\n%s", got)
	}
}
