package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/message"
)

func TestSplitArguments(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a b  c", []string{"a", "b", "c"}},
		{`"two words" 'single quoted' plain`, []string{"two words", "single quoted", "plain"}},
		{`see [Image 1] and [image 22]`, []string{"see", "[Image 1]", "and", "[image 22]"}},
		{`"" x`, []string{"", "x"}},
		{`path/to/file.go:12`, []string{"path/to/file.go:12"}},
	}
	for _, tt := range tests {
		if got := SplitArguments(tt.in); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("SplitArguments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSubstitute(t *testing.T) {
	tests := []struct {
		name, template, args, want string
	}{
		{"arguments", "Fix $ARGUMENTS now", "the flaky test", "Fix the flaky test now"},
		{"arguments twice", "$ARGUMENTS / $ARGUMENTS", "x y", "x y / x y"},
		{"positional", "Compare $1 with $2.", "a.go b.go", "Compare a.go with b.go."},
		{"last takes the rest", "Move $1 to $2", "a.go dir one two", "Move a.go to dir one two"},
		{"highest placeholder takes the rest even when used first", "$2 then $1", "a b c", "b c then a"},
		{"repeated highest", "$1 and $1", "a b c", "a b c and a b c"},
		{"quotes honoured", "Rename $1 to $2", `"old name" 'new name'`, "Rename old name to new name"},
		{"missing argument is empty", "A=$1 B=$2 C=$3", "x", "A=x B= C="},
		{"no arguments", "Find $1 in the code", "", "Find  in the code"},
		{"no placeholders appends", "Review the code.", "focus on errors", "Review the code.\n\nfocus on errors"},
		{"no placeholders, blank arguments", "Review the code.", "   ", "Review the code."},
		{"both forms", "Edit $1 ($ARGUMENTS)", "a b", "Edit a b (a b)"},
		{"$0 is not a placeholder", "cost $0 for $1", "x", "cost $0 for x"},
		{"two-digit placeholder", "$1-$10", "1 2 3 4 5 6 7 8 9 10 11", "1-10 11"},
		{"image token", "Look at $1 then $2", "[Image 1] closely", "Look at [Image 1] then closely"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Substitute(tt.template, tt.args); got != tt.want {
				t.Errorf("Substitute(%q, %q) = %q, want %q", tt.template, tt.args, got, tt.want)
			}
		})
	}
}

func TestSubstituteClaude(t *testing.T) {
	tests := []struct {
		name, template, args, want string
		names                      []string
	}{
		{"zero based", "first $0 second $1", "a b", "first a second b", nil},
		{"indexed arguments", "$ARGUMENTS[1]/$ARGUMENTS[0]", "a b", "b/a", nil},
		{"no rest-taking", "only $0", "a b c", "only a", nil},
		{"missing stays literal", "$0 and $3", "a", "a and $3", nil},
		{"named", "file $file line $line", "main.go 12", "file main.go line 12", []string{"file", "line"}},
		{"named missing is empty", "file $file line $line.", "main.go", "file main.go line .", []string{"file", "line"}},
		{"unknown name stays", "cost $HOME", "", "cost $HOME", nil},
		{"escape", `price \$1 for $0`, "x", "price $1 for x", nil},
		{"project dir", "in ${CLAUDE_PROJECT_DIR}", "", "in /proj", nil},
		{"appended when unused", "Say hi.", "to Bob", "Say hi.\n\nARGUMENTS: to Bob", nil},
		{"not appended when used", "Say hi $ARGUMENTS.", "to Bob", "Say hi to Bob.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SubstituteClaude(tt.template, tt.args, tt.names, "/proj"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMentions(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"look at @src/main.go please", []string{"src/main.go"}},
		{"see @README.md.", []string{"README.md"}},
		{"@a.go, @b.go and @c", []string{"a.go", "b.go", "c"}},
		{"mail me at bob@example.com", nil},
		{"quoted `@not/this` here", nil},
		{"home @~/notes/todo.md", []string{"~/notes/todo.md"}},
		{"hidden @.env.local and @./rel/x.go", []string{".env.local", "./rel/x.go"}},
		{"(@explore) find it", []string{"explore)"}},
		{"just @ alone", nil},
		{"@explore: find", []string{"explore:"}},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range Mentions(tt.in) {
			got = append(got, m.Name)
			if tt.in[m.Start:m.End] != "@"+m.Name {
				t.Errorf("%q: offsets %d-%d give %q", tt.in, m.Start, m.End, tt.in[m.Start:m.End])
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Mentions(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// expander builds an Expander over a project with a few files, the
// built-in agents plus "reviewer" (a sub-agent with a model), and the
// given config commands.
func expander(t *testing.T, cmds map[string]config.Command) (*Expander, string, string) {
	t.Helper()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	proj := filepath.Join(root, "proj")
	for _, f := range []string{"proj/main.go", "proj/docs/guide.md", "home/notes.md"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &config.Config{
		Command: cmds,
		Agent:   map[string]config.Agent{"reviewer": {Mode: "subagent", Model: "anthropic/claude-haiku-4-5", Description: "reviews"}},
	}
	reg, err := Load(context.Background(), Options{Config: cfg, Worktree: proj, Cwd: proj, NoClaudeCode: true})
	if err != nil {
		t.Fatal(err)
	}
	set := LoadCommands(context.Background(), CommandOptions{Config: cfg, Worktree: proj, Cwd: proj, NoClaudeCode: true})
	return &Expander{Agents: reg, Commands: set, Resolver: Resolver{Worktree: proj, Home: home}, Shell: Shell("", proj, nil)}, proj, home
}

func TestExpand(t *testing.T) {
	yes, no := true, false
	x, proj, home := expander(t, map[string]config.Command{
		"fix":     {Template: "Fix $1 in @main.go and @docs/guide.md, ask @reviewer, ignore @missing and @~/notes.md"},
		"explore": {Template: "Find all $1 in the codebase", Agent: "explore", Description: "Explore codebase"},
		"inline":  {Template: "Look for $ARGUMENTS", Agent: "explore", Subtask: &no},
		"forced":  {Template: "Review $ARGUMENTS", Agent: "build", Subtask: &yes, Description: "Review code", Model: "openai/gpt-5"},
		"review2": {Template: "Check $ARGUMENTS", Agent: "reviewer"},
		"shell":   {Template: "Branch: !`printf main`\nFiles: !`echo $((1+2))`\nTask: $ARGUMENTS"},
		"plan":    {Template: "Plan $ARGUMENTS", Agent: "plan"},
	})
	ctx := context.Background()

	t.Run("file and agent references", func(t *testing.T) {
		e, err := x.Expand(ctx, ExpandInput{Command: "/fix", Arguments: "the bug"})
		if err != nil {
			t.Fatal(err)
		}
		if e.Subtask != nil || e.Agent != "build" || e.Model != "" || !strings.HasPrefix(e.Text, "Fix the bug in @main.go") {
			t.Errorf("expansion = %+v", e)
		}
		var files []string
		for _, f := range e.Files {
			files = append(files, f.Path+" "+f.Mime)
			if e.Text[f.Start:f.End] != "@"+f.Name || !strings.HasPrefix(f.URL, "file://") {
				t.Errorf("file ref %+v", f)
			}
		}
		want := []string{filepath.Join(proj, "main.go") + " text/plain", filepath.Join(proj, "docs/guide.md") + " text/plain", filepath.Join(home, "notes.md") + " text/plain"}
		if !slices.Equal(files, want) {
			t.Errorf("files = %q\nwant %q", files, want)
		}
		if len(e.Agents) != 1 || e.Agents[0].Name != "reviewer" || e.Text[e.Agents[0].Start:e.Agents[0].End] != "@reviewer" {
			t.Errorf("agents = %+v", e.Agents)
		}
	})

	tests := []struct {
		name, cmd, args, caller string
		subtask                 *SubtaskSpec
		agent, model, text      string
	}{
		{name: "subagent command runs as a subtask", cmd: "explore", args: "TypeScript files",
			subtask: &SubtaskSpec{Agent: "explore", Description: "Explore codebase", Prompt: "Find all TypeScript files in the codebase", Command: "explore"}, agent: "build"},
		{name: "subtask keeps the caller's agent", cmd: "explore", args: "x", caller: "plan",
			subtask: &SubtaskSpec{Agent: "explore", Description: "Explore codebase", Prompt: "Find all x in the codebase", Command: "explore"}, agent: "plan"},
		{name: "subtask false runs inline", cmd: "inline", args: "tests", agent: "explore", text: "Look for tests"},
		{name: "subtask true with a primary agent", cmd: "forced", args: "src/app.ts",
			subtask: &SubtaskSpec{Agent: "build", Description: "Review code", Prompt: "Review src/app.ts", Model: "openai/gpt-5", Command: "forced"}, agent: "build"},
		{name: "subtask model from its agent", cmd: "review2", args: "a.go",
			subtask: &SubtaskSpec{Agent: "reviewer", Prompt: "Check a.go", Model: "anthropic/claude-haiku-4-5", Command: "review2"}, agent: "build"},
		{name: "primary command agent", cmd: "plan", args: "it", agent: "plan", text: "Plan it"},
		{name: "shell output", cmd: "shell", args: "go", agent: "build", text: "Branch: main\nFiles: 3\n\nTask: go"},
		{name: "built-in review is a subtask", cmd: "review", args: "HEAD~1", agent: "build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := x.Expand(ctx, ExpandInput{Command: tt.cmd, Arguments: tt.args, Agent: tt.caller})
			if err != nil {
				t.Fatal(err)
			}
			if e.Agent != tt.agent || e.Model != tt.model || (tt.text != "" && e.Text != tt.text) {
				t.Errorf("agent %q model %q text %q", e.Agent, e.Model, e.Text)
			}
			if tt.cmd == "review" {
				if e.Subtask == nil || e.Subtask.Agent != "build" || !strings.Contains(e.Subtask.Prompt, "What to review: HEAD~1") {
					t.Errorf("review subtask = %+v", e.Subtask)
				}
				return
			}
			switch {
			case tt.subtask == nil && e.Subtask != nil:
				t.Errorf("unexpected subtask %+v", e.Subtask)
			case tt.subtask != nil && (e.Subtask == nil || *e.Subtask != *tt.subtask):
				t.Errorf("subtask = %+v\nwant %+v", e.Subtask, tt.subtask)
			case tt.subtask != nil && (e.Text != "" || e.Files != nil):
				t.Errorf("a subtask message holds only the subtask: %+v", e)
			}
		})
	}

	t.Run("errors", func(t *testing.T) {
		for _, c := range []struct{ cmd, want string }{
			{"nope", `command "nope" not found; available: explore, fix, forced, init, inline, plan, review, review2, shell`},
		} {
			if _, err := x.Expand(ctx, ExpandInput{Command: c.cmd}); err == nil || err.Error() != c.want {
				t.Errorf("Expand(%s) = %v, want %q", c.cmd, err, c.want)
			}
		}
		if _, err := x.Expand(ctx, ExpandInput{Command: "fix", Agent: "ghost"}); err == nil || !strings.Contains(err.Error(), `agent "ghost" not found`) {
			t.Errorf("unknown caller agent: %v", err)
		}
		noShell := *x
		noShell.Shell = nil
		if _, err := noShell.Expand(ctx, ExpandInput{Command: "shell"}); err == nil || !strings.Contains(err.Error(), "shell commands are not available") {
			t.Errorf("without a shell: %v", err)
		}
	})
}

func TestExpandProjectCommands(t *testing.T) {
	root := extract(t, "opencode_project.txtar")
	reg, cmds, loaded := loadProject(t, root)
	x := &Expander{Agents: reg, Commands: cmds, Resolver: Resolver{Worktree: loaded.Worktree}, Shell: Shell("", loaded.Worktree, nil)}
	ctx := context.Background()

	e, err := x.Expand(ctx, ExpandInput{Command: "git/status"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Subtask != nil || e.Agent != "explore" || e.Text != "Current status:\nclean tree\n\nSummarise it." {
		t.Errorf("git/status = %+v", e)
	}
	e, err = x.Expand(ctx, ExpandInput{Command: "test", Arguments: "store"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Agent != "build" || e.Model != "anthropic/claude-haiku-4-5" || !strings.HasSuffix(e.Text, "Focus on the failing tests: store") {
		t.Errorf("test = %+v", e)
	}
	e, err = x.Expand(ctx, ExpandInput{Command: "hello", Arguments: `Ann "Bob Smith"`})
	if err != nil {
		t.Fatal(err)
	}
	if e.Text != "Say hello to Ann and Bob Smith" {
		t.Errorf("hello = %q", e.Text)
	}
}

func TestExpandClaudeCommand(t *testing.T) {
	root := extract(t, "claude_project.txtar")
	reg, cmds, loaded := loadProject(t, root)
	x := &Expander{Agents: reg, Commands: cmds, Resolver: Resolver{Worktree: loaded.Worktree}, Shell: Shell("", loaded.Worktree, nil)}
	e, err := x.Expand(context.Background(), ExpandInput{Command: "git:ship", Arguments: `"fix: retry" main`})
	if err != nil {
		t.Fatal(err)
	}
	want := "Staged: two files\n\nCommit with the message \"fix: retry\", then push to main. Unused: $2."
	if e.Text != want || len(e.Allow) != 2 {
		t.Errorf("git:ship = %q (allow %v)\nwant %q", e.Text, e.Allow, want)
	}
}

func TestShellFailures(t *testing.T) {
	ctx := context.Background()
	out, err := Shell("", t.TempDir(), nil)(ctx, "echo out; echo err >&2; exit 3")
	if err != nil || out != "out\nerr\n" {
		t.Errorf("failing command = %q, %v; want its output and no error", out, err)
	}
	if _, err := Shell("/no/such/shell", "", nil)(ctx, "true"); err == nil {
		t.Error("a missing shell should be an error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Shell("", "", nil)(cctx, "sleep 5"); err == nil {
		t.Error("a cancelled context should stop the command")
	}
}

func TestMentionInstruction(t *testing.T) {
	got := MentionInstruction("explore")
	if !strings.Contains(got, "task tool") || !strings.Contains(got, `subagent_type "explore"`) {
		t.Errorf("MentionInstruction = %q", got)
	}
}

func TestExpansionParts(t *testing.T) {
	x, proj, _ := expander(t, map[string]config.Command{
		"fix":     {Template: "Fix @main.go with @reviewer"},
		"explore": {Template: "Find $1", Agent: "reviewer", Description: "Review"},
	})
	e, err := x.Expand(context.Background(), ExpandInput{Command: "fix"})
	if err != nil {
		t.Fatal(err)
	}
	parts := e.Parts()
	if len(parts) != 3 {
		t.Fatalf("parts = %d", len(parts))
	}
	text, _ := parts[0].(*message.TextPart)
	file, _ := parts[1].(*message.FilePart)
	ag, _ := parts[2].(*message.AgentPart)
	if text == nil || text.Text != "Fix @main.go with @reviewer" {
		t.Errorf("text part = %+v", parts[0])
	}
	if file == nil || file.Filename != "main.go" || file.Mime != "text/plain" || file.URL != "file://"+filepath.ToSlash(filepath.Join(proj, "main.go")) ||
		string(file.Source) != `{"path":"main.go","text":{"end":12,"start":4,"value":"@main.go"},"type":"file"}` {
		t.Errorf("file part = %+v source %s", parts[1], file.Source)
	}
	if ag == nil || ag.Name != "reviewer" || ag.Source == nil || ag.Source.Start != 18 || ag.Source.Value != "@reviewer" {
		t.Errorf("agent part = %+v", parts[2])
	}

	e, err = x.Expand(context.Background(), ExpandInput{Command: "explore", Arguments: "x"})
	if err != nil {
		t.Fatal(err)
	}
	parts = e.Parts()
	sp, _ := parts[0].(*message.SubtaskPart)
	if len(parts) != 1 || sp == nil || sp.Agent != "reviewer" || sp.Prompt != "Find x" || sp.Model == nil || sp.Model.ModelID != "claude-haiku-4-5" {
		t.Errorf("subtask parts = %+v", parts)
	}
}

// TestResolveResources resolves @<server>:<uri> mentions of the resolver's
// MCP servers; files keep precedence, and other prefixes are not resources.
func TestResolveResources(t *testing.T) {
	x, proj, _ := expander(t, map[string]config.Command{
		"sum": {Template: "Summarise @docs:file:///readme.md, @tools:test://readme and @main.go; not @other:x://y, @docs: or @reviewer:x"},
	})
	if err := os.WriteFile(filepath.Join(proj, "docs:local.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "Read @docs:local.txt, @docs:file:///readme.md, @tools:test://readme, again @tools:test://readme, and @other:x://y."
	r := Resolver{Worktree: proj, Servers: []string{"docs", "tools"}}
	files, agents, resources := r.Resolve(text)
	var got []string
	for _, res := range resources {
		got = append(got, res.Server+" "+res.URI)
		if text[res.Start:res.End] != "@"+res.Name {
			t.Errorf("resource %+v: offsets give %q", res, text[res.Start:res.End])
		}
	}
	if want := []string{"docs file:///readme.md", "tools test://readme"}; !slices.Equal(got, want) {
		t.Errorf("resources = %q, want %q", got, want)
	}
	if len(files) != 1 || files[0].Name != "docs:local.txt" || len(agents) != 0 {
		t.Errorf("files = %+v, agents = %+v", files, agents)
	}
	if _, _, none := (&Resolver{Worktree: proj}).Resolve(text); len(none) != 0 {
		t.Errorf("resources without servers: %+v", none)
	}

	x.Resolver.Servers = []string{"docs", "tools"}
	e, err := x.Expand(context.Background(), ExpandInput{Command: "sum"})
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, p := range e.Parts()[1:] {
		f, ok := p.(*message.FilePart)
		if !ok {
			t.Fatalf("part %+v is not a file part", p)
		}
		server, uri, isRes := f.Resource()
		if !isRes {
			continue
		}
		if f.Mime != "text/plain" || f.URL != uri || f.Filename != uri {
			t.Errorf("resource part = %+v", f)
		}
		sources = append(sources, server+" "+uri+" "+string(f.Source))
	}
	want := []string{
		`docs file:///readme.md {"clientName":"docs","text":{"end":33,"start":10,"value":"@docs:file:///readme.md"},"type":"resource","uri":"file:///readme.md"}`,
		`tools test://readme {"clientName":"tools","text":{"end":55,"start":35,"value":"@tools:test://readme"},"type":"resource","uri":"test://readme"}`,
	}
	if !slices.Equal(sources, want) {
		t.Errorf("resource parts:\n%s\nwant:\n%s", strings.Join(sources, "\n"), strings.Join(want, "\n"))
	}
}
