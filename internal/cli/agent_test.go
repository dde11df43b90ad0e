package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/agent"
	"github.com/codeloop/codeloop/internal/config"
	"github.com/codeloop/codeloop/internal/paths"
)

// agentProject writes a git project with an OpenCode agent, a Claude Code
// agent and a config, and moves into it.
func agentProject(t *testing.T, cfg string) (home, project string) {
	root := t.TempDir()
	home = filepath.Join(root, "home")
	project = filepath.Join(root, "project")
	files := map[string]string{
		"project/.git/HEAD":                    "ref: refs/heads/main\n",
		"project/opencode.json":                cfg,
		"project/.opencode/agent/docs.md":      "---\ndescription: Writes documentation\nmode: subagent\n---\nYou write docs.\n",
		"project/.claude/agents/checker.md":    "---\nname: checker\ndescription: Checks things\ntools: Read\n---\nCheck.\n",
		"project/.claude/agents/bad.md":        "---\nname: bad\ndescription: x\ntools:\n    - Read\n  - Grep\n---\n",
		"home/.local/share/codeloop/log/.keep": "",
	}
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
		"CODELOOP_CONFIG_DIR", "CODELOOP_DATA_DIR", "CODELOOP_CACHE_DIR", "CODELOOP_STATE_DIR",
		"OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "OPENCODE_CONFIG_CONTENT", "CODELOOP_CONFIG", "CODELOOP_CONFIG_CONTENT",
		"OPENCODE_PERMISSION", "CODELOOP_PERMISSION", "OPENCODE_DISABLE_CLAUDE_CODE", "CODELOOP_DISABLE_CLAUDE_CODE",
		// agent create drafts with any model it finds
		"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY", "OPENROUTER_API_KEY",
		"CODELOOP_AUTH_CONTENT", "OPENCODE_AUTH_CONTENT"} {
		t.Setenv(v, "")
	}
	t.Setenv("OLLAMA_HOST", "127.0.0.1:1")
	t.Setenv("CODELOOP_DISABLE_MODELS_FETCH", "1")
	t.Chdir(project)
	return home, project
}

func TestAgentList(t *testing.T) {
	tests := []struct {
		name, cfg string
		env       map[string]string
		code      int
		first     string
		want      []string
		wantNot   []string
		stderr    string
	}{
		{name: "default first", cfg: `{}`, first: "build primary, default",
			want:   []string{"docs subagent", "checker", "explore", "general", "plan", "title primary, hidden"},
			stderr: "bad.md: invalid YAML in frontmatter"},
		{name: "configured default", cfg: `{"default_agent": "plan"}`, first: "plan primary, default", want: []string{"build primary The default"}},
		{name: "claude code disabled", cfg: `{}`, env: map[string]string{"OPENCODE_DISABLE_CLAUDE_CODE": "1"}, first: "build", wantNot: []string{"checker"}},
		{name: "bad default", cfg: `{"default_agent": "explore"}`, code: exitError, stderr: `default_agent "explore" is a subagent`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agentProject(t, tt.cfg)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var out, errOut bytes.Buffer
			code := Run(context.Background(), []string{"agent", "list"}, strings.NewReader(""), &out, &errOut)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.code, errOut.String())
			}
			if tt.stderr != "" && !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("stderr %q lacks %q", errOut.String(), tt.stderr)
			}
			if tt.code != 0 {
				return
			}
			text := squeeze(out.String())
			lines := strings.Split(text, "\n")
			if !strings.HasPrefix(lines[0], "NAME") || !strings.HasPrefix(lines[1], tt.first) {
				t.Errorf("first lines %q, want header then %q", lines[:2], tt.first)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(text, w) {
					t.Errorf("output has %q:\n%s", w, text)
				}
			}
		})
	}
}

// squeeze collapses the runs of spaces a table is aligned with.
func squeeze(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

func TestAgentCreate(t *testing.T) {
	_, project := agentProject(t, `{}`)
	var out, errOut bytes.Buffer
	args := []string{"agent", "create", "--description", "Reviews SQL migrations", "--mode", "subagent", "--tools", "read, grep", "-m", "anthropic/claude-haiku-4-5"}
	if code := Run(context.Background(), args, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	p := filepath.Join(project, ".codeloop", "agents", "reviews-sql-migrations.md")
	if !strings.Contains(out.String(), p) {
		t.Errorf("stdout %q does not name %s", out.String(), p)
	}
	// The new agent is listed, with the mode it was given.
	out.Reset()
	if code := Run(context.Background(), []string{"agent", "list"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatal(errOut.String())
	}
	if !strings.Contains(squeeze(out.String()), "reviews-sql-migrations subagent Reviews SQL migrations") {
		t.Errorf("list:\n%s", out.String())
	}
	// Creating it again fails; so do bad flags.
	for _, c := range []struct {
		args []string
		want string
	}{
		{args, "already exists"},
		{[]string{"agent", "create", "--description", "x", "--tools", "teleport"}, `unknown tool "teleport"`},
		{[]string{"agent", "create"}, `required flag(s) "description" not set`},
	} {
		errOut.Reset()
		if code := Run(context.Background(), c.args, strings.NewReader(""), &out, &errOut); code == 0 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d stderr %q, want %q", c.args, code, errOut.String(), c.want)
		}
	}
}

func TestAgentCreateDrafts(t *testing.T) {
	home, _ := agentProject(t, `{"model": "openai/gpt-5"}`)
	dirs, err := paths.Resolve(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut, getenv: os.Getenv, dirs: dirs}
	var gotModel string
	draft := func(_ context.Context, cfg *config.Config, model string) (agent.Drafter, string, error) {
		gotModel = cfg.Model
		return func(_ context.Context, req agent.DraftRequest) (agent.Draft, error) {
			return agent.Draft{Name: "migrator", Description: "Use this agent for migrations.", Prompt: "You migrate."}, nil
		}, cfg.Model, nil
	}
	cmd := agentCmd(e, draft)
	cmd.SetArgs([]string{"create", "--global", "--description", "help with migrations"})
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(home, ".config", "codeloop", "agents", "migrator.md")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if gotModel != "openai/gpt-5" || !strings.Contains(string(data), "description: Use this agent for migrations.") || !strings.HasSuffix(string(data), "You migrate.\n") {
		t.Errorf("model %q, file:\n%s", gotModel, data)
	}
}
