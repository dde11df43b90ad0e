package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/paths"
	"github.com/codeloop/codeloop/internal/permission"
)

// extract writes the files of testdata/name into a new temporary directory
// and returns it.
func extract(t *testing.T, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// testDirs are codeloop's directories under root.
func testDirs(root string) paths.Dirs {
	home := filepath.Join(root, "home")
	return paths.Dirs{
		Home:   home,
		Data:   filepath.Join(home, ".local/share/codeloop"),
		Config: filepath.Join(home, ".config/codeloop"),
		Cache:  filepath.Join(home, ".cache/codeloop"),
		State:  filepath.Join(home, ".local/state/codeloop"),
	}
}

// loadProject loads the config of root/project the way the app does and
// builds the agents and commands from it.
func loadProject(t *testing.T, root string) (*Registry, *CommandSet, *config.Loaded) {
	t.Helper()
	dirs := testDirs(root)
	env := map[string]string{"HOME": dirs.Home}
	cwd := filepath.Join(root, "project")
	loaded, err := config.Load(context.Background(), config.LoadOptions{Cwd: cwd, Dirs: dirs, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := Load(context.Background(), Options{Config: loaded.Config, ConfigDirs: loaded.Dirs,
		Worktree: loaded.Worktree, Cwd: cwd, Dirs: dirs})
	if err != nil {
		t.Fatal(err)
	}
	cmds := LoadCommands(context.Background(), CommandOptions{Config: loaded.Config, ConfigDirs: loaded.Dirs,
		Worktree: loaded.Worktree, Cwd: cwd, Home: dirs.Home})
	return reg, cmds, loaded
}

func mustGet(t *testing.T, r *Registry, name string) *Agent {
	t.Helper()
	a, ok := r.Get(name)
	if !ok {
		t.Fatalf("agent %q missing; have %v", name, names(r.List()))
	}
	return a
}

func names(as []*Agent) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}

func decide(a *Agent, perm, pattern string) permission.Action {
	r, _ := permission.Evaluate(perm, pattern, a.Permission)
	return r.Action
}

func TestBuiltinPermissions(t *testing.T) {
	root := t.TempDir()
	dirs := testDirs(root)
	worktree := filepath.Join(root, "proj")
	user := config.Permission{{Permission: "edit", Pattern: "*", Action: "allow"}, {Permission: "bash", Pattern: "rm *", Action: "deny"}}
	reg, err := Load(context.Background(), Options{Config: &config.Config{Permission: user}, Worktree: worktree, Cwd: worktree, Dirs: dirs, NoClaudeCode: true})
	if err != nil {
		t.Fatal(err)
	}
	plansData, _ := filepath.Rel(worktree, filepath.Join(dirs.Data, "plans", "p.md"))
	tests := []struct {
		agent, perm, pattern string
		want                 permission.Action
	}{
		{"build", "edit", "main.go", permission.Allow},
		{"build", "question", "*", permission.Allow},
		{"build", "plan_enter", "*", permission.Allow},
		{"build", "plan_exit", "*", permission.Deny},
		{"build", "read", "config/.env", permission.Ask},
		{"build", "read", ".env.example", permission.Allow},
		{"build", "bash", "rm -rf /", permission.Deny},
		{"build", "doom_loop", "bash", permission.Ask},
		{"plan", "edit", ".codeloop/plans/x.md", permission.Allow},
		{"plan", "edit", ".opencode/plans/x.md", permission.Allow},
		{"plan", "edit", plansData, permission.Allow},
		{"plan", "edit", "main.go", permission.Deny}, // the user's edit: allow does not unlock plan mode
		{"plan", "edit", ".codeloop/plans/x.txt", permission.Deny},
		{"plan", "plan_exit", "*", permission.Allow},
		{"plan", "task", "general", permission.Deny},
		{"plan", "task", "explore", permission.Allow},
		{"plan", "external_directory", filepath.Join(dirs.Data, "plans", "p.md"), permission.Allow},
		{"general", "todowrite", "*", permission.Deny},
		{"general", "edit", "main.go", permission.Allow},
		{"explore", "edit", "main.go", permission.Deny},
		{"explore", "todowrite", "*", permission.Deny},
		{"explore", "task", "general", permission.Deny},
		{"explore", "read", "main.go", permission.Allow},
		{"explore", "read", ".env", permission.Ask},
		{"explore", "grep", "foo", permission.Allow},
		{"explore", "glob", "**/*.go", permission.Allow},
		{"explore", "lsp", "*", permission.Allow},
		{"explore", "bash", "git log", permission.Allow},
		{"explore", "bash", "rm -rf x", permission.Deny}, // the user's bash deny still holds
		{"explore", "webfetch", "https://x", permission.Allow},
		{"explore", "external_directory", "/etc/*", permission.Ask},
		{"compaction", "read", "main.go", permission.Deny},
		{"title", "bash", "ls", permission.Deny},
		{"summary", "edit", "main.go", permission.Deny},
	}
	for _, tt := range tests {
		if got := decide(mustGet(t, reg, tt.agent), tt.perm, tt.pattern); got != tt.want {
			t.Errorf("%s: %s %q = %s, want %s", tt.agent, tt.perm, tt.pattern, got, tt.want)
		}
	}
	// Every agent may read truncated tool output.
	for _, a := range reg.List() {
		if got := decide(a, "external_directory", filepath.Join(dirs.ToolOutput(), "tool_1")); got != permission.Allow {
			t.Errorf("%s: tool output = %s, want allow", a.Name, got)
		}
	}
}

func TestBuiltinAgents(t *testing.T) {
	reg, err := Load(context.Background(), Options{NoClaudeCode: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		mode   Mode
		hidden bool
		prompt bool
	}{
		"build": {ModePrimary, false, false}, "plan": {ModePrimary, false, false},
		"general": {ModeSubagent, false, false}, "explore": {ModeSubagent, false, true},
		"compaction": {ModePrimary, true, true}, "title": {ModePrimary, true, true}, "summary": {ModePrimary, true, true},
	}
	if got := names(reg.List()); !slices.Equal(got, []string{"build", "compaction", "explore", "general", "plan", "summary", "title"}) {
		t.Errorf("List = %v", got)
	}
	for name, w := range want {
		a := mustGet(t, reg, name)
		if a.Mode != w.mode || a.Hidden != w.hidden || (a.Prompt != "") != w.prompt || !a.Native || a.Description == "" {
			t.Errorf("%s = mode %s hidden %v prompt %v native %v description %q", name, a.Mode, a.Hidden, a.Prompt != "", a.Native, a.Description)
		}
	}
	if reg.Default().Name != "build" {
		t.Errorf("Default = %s", reg.Default().Name)
	}
	if tt := mustGet(t, reg, "title").Temperature; tt == nil || *tt != 0.5 {
		t.Errorf("title temperature = %v", tt)
	}
}

func TestDefaultAgent(t *testing.T) {
	yes := true
	tests := []struct {
		name    string
		cfg     config.Config
		want    string
		wantErr string
	}{
		{name: "unset", want: "build"},
		{name: "plan", cfg: config.Config{DefaultAgent: "plan"}, want: "plan"},
		{name: "custom primary", cfg: config.Config{DefaultAgent: "ops", Agent: map[string]config.Agent{"ops": {Mode: "primary"}}}, want: "ops"},
		{name: "custom all", cfg: config.Config{DefaultAgent: "ops", Agent: map[string]config.Agent{"ops": {}}}, want: "ops"},
		{name: "build disabled", cfg: config.Config{Agent: map[string]config.Agent{"build": {Disable: &yes}}}, want: "plan"},
		{name: "subagent", cfg: config.Config{DefaultAgent: "explore"}, wantErr: `default_agent "explore" is a subagent; it must name a visible primary agent (one of: build, plan)`},
		{name: "hidden", cfg: config.Config{DefaultAgent: "title"}, wantErr: `"title" is hidden`},
		{name: "missing", cfg: config.Config{DefaultAgent: "nope"}, wantErr: `"nope" does not exist`},
		{name: "disabled", cfg: config.Config{DefaultAgent: "plan", Agent: map[string]config.Agent{"plan": {Disable: &yes}}}, wantErr: `"plan" is disabled`},
		{name: "hidden custom", cfg: config.Config{DefaultAgent: "x", Agent: map[string]config.Agent{"x": {Hidden: &yes}}}, wantErr: `"x" is hidden`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, err := Load(context.Background(), Options{Config: &tt.cfg, NoClaudeCode: true})
			if tt.wantErr != "" {
				var de *DefaultAgentError
				if !errors.As(err, &de) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want DefaultAgentError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if reg.Default().Name != tt.want || reg.List()[0].Name != tt.want {
				t.Errorf("Default = %s, List starts with %s; want %s", reg.Default().Name, reg.List()[0].Name, tt.want)
			}
		})
	}
}

func TestConfigAgents(t *testing.T) {
	yes, no := true, false
	temp, steps := 0.7, 4
	cfg := &config.Config{
		Permission: config.Permission{{Permission: "bash", Pattern: "*", Action: "ask"}},
		Agent: map[string]config.Agent{
			"build":  {Model: "openai/gpt-5", Prompt: "Custom build prompt", Options: map[string]any{"store": true}},
			"docs":   {Description: "Writes docs", Temperature: &temp, MaxSteps: &steps, Tools: map[string]bool{"bash": true, "write": false}},
			"ops":    {Mode: "subagent", Hidden: &no, Permission: config.Permission{{Permission: "bash", Pattern: "*", Action: "allow"}}},
			"plan":   {Permission: config.Permission{{Permission: "edit", Pattern: "*", Action: "allow"}}},
			"bogus":  {Mode: "sometimes"},
			"hidden": {Hidden: &yes, Mode: "subagent"},
		},
		Mode: map[string]config.Agent{"legacy": {Prompt: "old style"}},
	}
	reg, err := Load(context.Background(), Options{Config: cfg, NoClaudeCode: true})
	if err != nil {
		t.Fatal(err)
	}
	build := mustGet(t, reg, "build")
	if build.Model != "openai/gpt-5" || build.Prompt != "Custom build prompt" || build.Options["store"] != true || !build.Native || build.Source != "config" {
		t.Errorf("build = %+v", build)
	}
	docs := mustGet(t, reg, "docs")
	if docs.Mode != ModeAll || docs.Native || docs.Steps == nil || *docs.Steps != 4 || *docs.Temperature != 0.7 {
		t.Errorf("docs = %+v", docs)
	}
	if decide(docs, "bash", "ls") != permission.Allow || decide(docs, "edit", "x") != permission.Deny {
		t.Errorf("docs legacy tools not applied: bash %s edit %s", decide(docs, "bash", "ls"), decide(docs, "edit", "x"))
	}
	if ops := mustGet(t, reg, "ops"); ops.Mode != ModeSubagent || decide(ops, "bash", "ls") != permission.Allow {
		t.Errorf("ops = %s bash %s", ops.Mode, decide(ops, "bash", "ls"))
	}
	if decide(build, "bash", "ls") != permission.Ask {
		t.Errorf("user rule not applied to build")
	}
	if decide(mustGet(t, reg, "plan"), "edit", "main.go") != permission.Allow {
		t.Errorf("the plan agent's own config should be able to allow edits")
	}
	if l := mustGet(t, reg, "legacy"); l.Mode != ModePrimary || l.Prompt != "old style" {
		t.Errorf("legacy mode = %+v", l)
	}
	if w := reg.Warnings(); len(w) != 1 || !strings.Contains(w[0].Error(), `"sometimes"`) {
		t.Errorf("warnings = %v", w)
	}
	var sub []string
	for _, a := range reg.Subagents(mustGet(t, reg, "plan")) {
		sub = append(sub, a.Name)
	}
	if !slices.Equal(sub, []string{"bogus", "docs", "explore", "hidden", "ops"}) {
		t.Errorf("Subagents(plan) = %v", sub)
	}
}

func TestOpenCodeProject(t *testing.T) {
	root := extract(t, "opencode_project.txtar")
	reg, cmds, _ := loadProject(t, root)
	if w := reg.Warnings(); len(w) > 0 {
		t.Errorf("agent warnings: %v", w)
	}
	if w := cmds.Warnings(); len(w) > 0 {
		t.Errorf("command warnings: %v", w)
	}
	review := mustGet(t, reg, "review")
	if review.Mode != ModeSubagent || review.Model != "anthropic/claude-sonnet-4-5" || review.Description != "Reviews code for quality and best practices" ||
		!strings.HasPrefix(review.Prompt, "You are in code review mode.") || review.Temperature == nil || *review.Temperature != 0.2 {
		t.Errorf("review = %+v", review)
	}
	for _, perm := range []string{"edit", "bash"} {
		if got := decide(review, perm, "x"); got != permission.Deny {
			t.Errorf("review %s = %s, want deny", perm, got)
		}
	}
	writer := mustGet(t, reg, "docs/writer")
	if writer.Mode != ModeAll || !writer.Hidden || writer.Color != "#38A3EE" || writer.Steps == nil || *writer.Steps != 12 || writer.Options["reasoningEffort"] != "high" {
		t.Errorf("docs/writer = %+v", writer)
	}
	if decide(writer, "edit", "docs/a/b.md") != permission.Allow || decide(writer, "edit", "main.go") != permission.Deny || decide(writer, "bash", "ls") != permission.Ask {
		t.Errorf("docs/writer permission order lost: %v", writer.Permission)
	}
	if _, ok := reg.Get("summary"); ok {
		t.Error("summary should be disabled by .opencode/agents/summary.md")
	}

	for name, want := range map[string]Command{
		"test":       {Description: "Run the tests with coverage", Agent: "build", Model: "anthropic/claude-haiku-4-5"},
		"explore":    {Description: "Explore codebase", Agent: "explore"},
		"git/status": {Description: "Summarise the working tree", Agent: "explore"},
		"hello":      {Description: "greet", Source: "config"},
		"init":       {Source: "builtin"},
		"review":     {Source: "builtin"},
	} {
		c, ok := cmds.Get(name)
		if !ok {
			t.Errorf("command %q missing", name)
			continue
		}
		if (want.Description != "" && c.Description != want.Description) || c.Agent != want.Agent || c.Model != want.Model ||
			(want.Source != "" && c.Source != want.Source) || c.Template == "" || c.Claude {
			t.Errorf("command %s = %+v", name, c)
		}
	}
	if c, _ := cmds.Get("git/status"); c.Subtask == nil || *c.Subtask {
		t.Errorf("git/status subtask = %v, want false", c.Subtask)
	}
}

func TestClaudeProject(t *testing.T) {
	root := extract(t, "claude_project.txtar")
	reg, cmds, _ := loadProject(t, root)

	// The project's code-reviewer wins over the home one.
	cr := mustGet(t, reg, "code-reviewer")
	if cr.Description != "Project reviewer. Use for every review." || cr.Mode != ModeSubagent || cr.Prompt != "You review this project's code." {
		t.Errorf("code-reviewer = %+v", cr)
	}
	if decide(cr, "read", "a.go") != permission.Allow || decide(cr, "grep", "x") != permission.Deny || decide(cr, "external_directory", "/etc/x") != permission.Ask {
		t.Errorf("code-reviewer tools: read %s grep %s", decide(cr, "read", "a.go"), decide(cr, "grep", "x"))
	}
	mc := mustGet(t, reg, "migration-checker")
	if mc.Model != "" || mc.Steps == nil || *mc.Steps != 5 || mc.Color != "cyan" {
		t.Errorf("migration-checker = %+v", mc)
	}
	for _, c := range []struct {
		perm, pattern string
		want          permission.Action
	}{{"bash", "git log -p", permission.Allow}, {"bash", "rm x", permission.Deny}, {"read", "a", permission.Allow}, {"edit", "a", permission.Deny}, {"task", "general", permission.Deny}} {
		if got := decide(mc, c.perm, c.pattern); got != c.want {
			t.Errorf("migration-checker %s %q = %s, want %s", c.perm, c.pattern, got, c.want)
		}
	}
	if _, ok := reg.Get("notes"); ok {
		t.Error("a file without a name is documentation, not an agent")
	}
	var sawBroken, sawAlias bool
	for _, w := range reg.Warnings() {
		sawBroken = sawBroken || strings.Contains(w.Error(), filepath.Join("agents", "broken.md"))
		sawAlias = sawAlias || strings.Contains(w.Error(), `model alias "haiku"`)
	}
	if !sawBroken || !sawAlias {
		t.Errorf("warnings = %v; want the broken file and the unresolved alias named", reg.Warnings())
	}

	ship, ok := cmds.Get("git:ship")
	if !ok || !ship.Claude || ship.Description != "Commit and push" || len(ship.Allow) != 2 || ship.Allow[0].Pattern != "git commit *" {
		t.Fatalf("git:ship = %+v", ship)
	}
	if hello, ok := cmds.Get("hello"); !ok || !hello.Claude {
		t.Errorf("home command hello = %+v", hello)
	}
}
