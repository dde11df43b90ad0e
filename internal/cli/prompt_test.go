package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/prompt"
)

// promptProject writes a home directory and a git project with a config,
// instruction files and a skill, and moves into the project.
func promptProject(t *testing.T) (home, project string) {
	root := t.TempDir()
	home = filepath.Join(root, "home")
	project = filepath.Join(root, "project")
	files := map[string]string{
		"home/.config/codeloop/AGENTS.md":               "Global: be brief.",
		"project/AGENTS.md":                             "Project: run make test.",
		"project/docs/style.md":                         "Style: tabs.",
		"project/opencode.json":                         `{"model": "google/gemini-2.5-pro", "instructions": ["docs/*.md"]}`,
		"project/.opencode/skills/ship/SKILL.md":        "---\nname: ship\ndescription: Ship a release\n---\nSteps.",
		"project/.claude/skills/bad/SKILL.md":           "---\nname: [bad\n---\n",
		"project/.git/HEAD":                             "ref: refs/heads/main\n",
		"home/.local/share/codeloop/log/.keep":          "",
		"home/.config/opencode/skills/other/SKILL.md":   "---\nname: other\ndescription: Global skill\n---\nOther.",
		"home/.config/codeloop/skills/ignored/.keep.md": "",
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
		"OPENCODE_PERMISSION", "CODELOOP_PERMISSION", "OPENCODE_DISABLE_CLAUDE_CODE", "CODELOOP_DISABLE_CLAUDE_CODE"} {
		t.Setenv(v, "")
	}
	t.Chdir(project)
	return home, project
}

func mustFamilyModel(id string) llm.Model { return llm.Model{ID: id} }

func TestDebugPrompt(t *testing.T) {
	firstLine := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	tests := []struct {
		name      string
		args      []string
		code      int
		want      []string
		wantNot   []string
		stderr    string
		stderrNot string
		setupEnv  map[string]string
	}{
		{
			name: "model from the config",
			args: []string{"debug", "prompt"},
			want: []string{
				"-- system[0]:", "-- system[1]:",
				firstLine(prompt.ProviderPrompt(mustFamilyModel("gemini-2.5-pro"))),
				"its exact ID is google/gemini-2.5-pro",
				"Is the directory a git repository: yes",
				"Instructions from: $HOME/.config/codeloop/AGENTS.md\nGlobal: be brief.",
				"Instructions from: $PROJECT/AGENTS.md\nProject: run make test.",
				"Instructions from: $PROJECT/docs/style.md\nStyle: tabs.",
				"<name>ship</name>", "<name>other</name>",
			},
			stderr: "bad/SKILL.md",
		},
		{
			name: "model from the flag",
			args: []string{"debug", "prompt", "--model", "anthropic/claude-sonnet-4-5"},
			want: []string{firstLine(prompt.ProviderPrompt(mustFamilyModel("claude-sonnet-4-5"))), "anthropic/claude-sonnet-4-5"},
		},
		{
			name:    "explore agent",
			args:    []string{"debug", "prompt", "--agent", "explore", "-m", "openai/gpt-5"},
			want:    []string{firstLine(prompt.ExploreSystem()), "Instructions from: $PROJECT/AGENTS.md"},
			wantNot: []string{"<available_skills>", firstLine(prompt.ProviderPrompt(mustFamilyModel("gpt-5")))},
		},
		{
			name: "plan agent shows its reminder",
			args: []string{"debug", "prompt", "--agent", "plan"},
			want: []string{firstLine(prompt.PlanReminder())},
		},
		{
			name:      "claude skills disabled",
			args:      []string{"debug", "prompt"},
			setupEnv:  map[string]string{"OPENCODE_DISABLE_CLAUDE_CODE": "1"},
			want:      []string{"<name>ship</name>"},
			stderrNot: "bad/SKILL.md",
		},
		{
			name:   "unknown agent",
			args:   []string{"debug", "prompt", "--agent", "nobody"},
			code:   exitError,
			stderr: `no agent named "nobody"`,
		},
		{
			name:   "bad model",
			args:   []string{"debug", "prompt", "--model", "claude"},
			code:   exitError,
			stderr: "want provider/model",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, project := promptProject(t)
			for k, v := range tt.setupEnv {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr.String())
			}
			out := stdout.String()
			expand := func(s string) string {
				return strings.NewReplacer("$HOME", home, "$PROJECT", project).Replace(s)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, expand(w)) {
					t.Errorf("output lacks %q:\n%s", expand(w), out)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(out, expand(w)) {
					t.Errorf("output has %q", expand(w))
				}
			}
			if tt.stderr != "" && !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr.String())
			}
			if tt.stderrNot != "" && strings.Contains(stderr.String(), tt.stderrNot) {
				t.Errorf("stderr has %q:\n%s", tt.stderrNot, stderr.String())
			}
		})
	}
}

// TestDebugPromptAsSent checks that debug prompt shows the instructions as
// the model is sent them: a CLAUDE.md import of a secret file is left out,
// and so, while the project is untrusted, is one of a file outside it.
func TestDebugPromptAsSent(t *testing.T) {
	home, project := promptProject(t)
	for name, data := range map[string]string{
		filepath.Join(project, "AGENTS.md"): "",
		filepath.Join(project, "CLAUDE.md"): "Claude: see @.env and @~/notes.md and @docs/style.md",
		filepath.Join(project, ".env"):      "TOKEN=sekrit-value",
		filepath.Join(home, "notes.md"):     "private home notes",
	} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(project, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), []string{"debug", "prompt"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.Contains(out, "Claude: see") || !strings.Contains(out, "Style: tabs.") {
		t.Fatalf("the project's CLAUDE.md or its import in the project is missing:\n%s", out)
	}
	for _, leak := range []string{"sekrit-value", "private home notes"} {
		if strings.Contains(out, leak) {
			t.Errorf("debug prompt shows %q, which the model is not sent:\n%s", leak, out)
		}
	}
}
