package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/skill"
)

func TestCommandSources(t *testing.T) {
	ctx := context.Background()
	skills := skill.NewSet(
		skill.Skill{Name: "ship", Description: "Ship a release", Content: "Ship version $1.", UserInvocable: true},
		skill.Skill{Name: "review", Description: "A skill that loses to the built-in", Content: "x", UserInvocable: true},
		skill.Skill{Name: "secret", Content: "model only", UserInvocable: false},
	)
	var gotArgs map[string]string
	mcp := SourceFunc(func(context.Context) ([]Command, error) {
		return []Command{MCPPromptCommand("github", "triage", "Triage an issue", []string{"repo", "number"},
			func(_ context.Context, args map[string]string) (string, error) {
				gotArgs = args
				return "Triage issue " + args["number"] + " of " + args["repo"] + ".", nil
			})}, nil
	})
	broken := SourceFunc(func(context.Context) ([]Command, error) { return nil, errors.New("server down") })
	set := LoadCommands(ctx, CommandOptions{NoClaudeCode: true, Sources: []Source{SkillSource(skills), mcp, broken},
		Config: &config.Config{Command: map[string]config.Command{"ship": {Template: "user ship wins"}}}})

	var names []string
	for _, c := range set.List() {
		names = append(names, c.Name+":"+c.Source)
	}
	if want := []string{"github:triage:mcp", "init:builtin", "review:builtin", "ship:config"}; !slices.Equal(names, want) {
		t.Errorf("commands = %v, want %v", names, want)
	}
	if w := set.Warnings(); len(w) != 1 || !strings.Contains(w[0].Error(), "server down") {
		t.Errorf("warnings = %v", w)
	}

	reg, err := Load(ctx, Options{NoClaudeCode: true})
	if err != nil {
		t.Fatal(err)
	}
	x := &Expander{Agents: reg, Commands: set}
	e, err := x.Expand(ctx, ExpandInput{Command: "github:triage", Arguments: "codeloop/codeloop 42"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Text != "Triage issue 42 of codeloop/codeloop." || gotArgs["repo"] != "$1" || gotArgs["number"] != "$2" {
		t.Errorf("mcp prompt = %q (fetched with %v)", e.Text, gotArgs)
	}
	if c, _ := set.Get("github:triage"); c.ArgumentHint != "<repo> <number>" {
		t.Errorf("hint = %q", c.ArgumentHint)
	}

	only := LoadCommands(ctx, CommandOptions{NoClaudeCode: true, Sources: []Source{SkillSource(skills)}})
	if c, ok := only.Get("/ship"); !ok || c.Source != "skill" || c.Description != "Ship a release" {
		t.Errorf("skill command = %+v", c)
	}
	if _, ok := only.Get("secret"); ok {
		t.Error("a skill the user may not invoke became a command")
	}
	if e, err := (&Expander{Agents: reg, Commands: only}).Expand(ctx, ExpandInput{Command: "ship", Arguments: "1.2"}); err != nil || e.Text != "Ship version 1.2." {
		t.Errorf("skill expansion = %+v, %v", e, err)
	}
}

func TestCommandHints(t *testing.T) {
	c := Command{Template: "Compare $2 with $1, then $2 again; context: $ARGUMENTS"}
	if got := c.Hints(); !slices.Equal(got, []string{"$2", "$1", "$ARGUMENTS"}) {
		t.Errorf("Hints = %v", got)
	}
}

func TestClaudeShellForms(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.md")
	src := "---\ndescription: d\n---\nInline !`echo one`, not this: a!`echo two`\n```!\necho three\necho four\n```\nDone $ARGUMENTS"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := parseCommandFile(p, "c", true)
	if err != nil {
		t.Fatal(err)
	}
	set := &CommandSet{byName: map[string]*Command{"c": &c}}
	reg, err := Load(context.Background(), Options{NoClaudeCode: true})
	if err != nil {
		t.Fatal(err)
	}
	x := &Expander{Agents: reg, Commands: set, Shell: Shell("", dir, nil)}
	e, err := x.Expand(context.Background(), ExpandInput{Command: "c", Arguments: "now"})
	if err != nil {
		t.Fatal(err)
	}
	want := "Inline one\n, not this: a!`echo two`\nthree\nfour\n\nDone now"
	if e.Text != want {
		t.Errorf("text = %q\nwant   %q", e.Text, want)
	}
}
