package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/mcp/mcptest"
	"github.com/codeloop/codeloop/internal/message"
	"github.com/codeloop/codeloop/internal/permission"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExpandCommand expands commands from every source the app offers,
// with the real shell and a real MCP server.
func TestExpandCommand(t *testing.T) {
	t.Parallel()
	srv := mcptest.Start(t)
	a := openTestAppWith(t, fmt.Sprintf(`{"mcp": {"test": {"type": "remote", "url": %q, "oauth": false}}}`, srv.URL), map[string]string{
		"main.go":                        "package main\n",
		".opencode/command/hello.md":     "---\ndescription: greet\n---\nGreet $ARGUMENTS from !`echo the-shell`, see @main.go and ask @explore.\n",
		".opencode/command/scout.md":     "---\nagent: explore\n---\nFind $1.\n",
		".opencode/skills/tidy/SKILL.md": "---\nname: tidy\ndescription: tidy up\n---\nTidy the code.\n",
		".claude/commands/status.md":     "---\nallowed-tools: Bash(git status:*), Edit\n---\nShow the status.\n",
	}, true)
	ctx := context.Background()
	tests := []struct {
		name, args, caller string
		parts              []string // text:<text>, file:<filename>, agent:<name>, subtask:<agent>:<prompt>
		allow              int
	}{
		{name: "hello", args: "the team", parts: []string{
			"text:Greet the team from the-shell\n, see @main.go and ask @explore.", "file:main.go", "agent:explore"}},
		{name: "scout", args: "tests", parts: []string{"subtask:explore:Find tests."}},
		{name: "tidy", parts: []string{"text:Tidy the code."}},
		{name: "test:greet", args: "Ada", parts: []string{"text:Say hello to Ada."}},
		{name: "status", parts: []string{"text:Show the status."}, allow: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exp, err := a.ExpandCommand(ctx, tt.name, tt.args, tt.caller)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range exp.Parts() {
				switch p := p.(type) {
				case *message.TextPart:
					got = append(got, "text:"+p.Text)
				case *message.FilePart:
					got = append(got, "file:"+p.Filename)
				case *message.AgentPart:
					got = append(got, "agent:"+p.Name)
				case *message.SubtaskPart:
					got = append(got, "subtask:"+p.Agent+":"+p.Prompt)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.parts, "|") {
				t.Errorf("parts %q\nwant  %q", got, tt.parts)
			}
			if len(exp.Allow) != tt.allow {
				t.Errorf("allow %v", exp.Allow)
			}
		})
	}
}

// TestTurnRules checks a command's allowed tools never lift a denial.
func TestTurnRules(t *testing.T) {
	t.Parallel()
	a := openTestApp(t, "")
	allow := permission.Ruleset{
		{Permission: "bash", Pattern: "git status *", Action: permission.Allow},
		{Permission: "edit", Pattern: "*", Action: permission.Allow},
	}
	sessionDenies := permission.Ruleset{{Permission: "bash", Pattern: "*", Action: permission.Deny}}
	tests := []struct {
		agent string
		rules permission.Ruleset
		want  []string
	}{
		{"build", nil, []string{"bash", "edit"}},
		{"plan", nil, []string{"bash"}}, // plan mode denies edits
		{"build", sessionDenies, []string{"edit"}},
	}
	for _, tt := range tests {
		got, err := a.TurnRules(tt.agent, tt.rules, allow)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range got {
			names = append(names, r.Permission)
		}
		if strings.Join(names, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%s with %v: %v, want %v", tt.agent, tt.rules, names, tt.want)
		}
	}
}
