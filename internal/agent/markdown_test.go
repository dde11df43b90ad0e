package agent

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/config"
)

func rulesJSON(p config.Permission) string {
	b, _ := json.Marshal([]config.PermissionRule(p))
	return string(b)
}

func TestParseAgentFile(t *testing.T) {
	resolve := func(alias string) (string, bool) {
		if alias == "sonnet" {
			return "anthropic/claude-sonnet-4-5", true
		}
		return "", false
	}
	tests := []struct {
		name     string
		src      string
		wantName string
		check    func(t *testing.T, a config.Agent)
		wantErr  string
		wantWarn string
	}{
		{
			name: "all fields", wantName: "review",
			src: "---\ndescription: Reviews code\nmode: subagent\nmodel: anthropic/claude-sonnet-4-5\nvariant: high\n" +
				"temperature: 0.1\ntop_p: 0.9\nsteps: 7\nhidden: true\ncolor: '#FF0000'\ndisable: false\n" +
				"options:\n  store: true\n---\n\nReview the code.\n",
			check: func(t *testing.T, a config.Agent) {
				if a.Description != "Reviews code" || a.Mode != "subagent" || a.Model != "anthropic/claude-sonnet-4-5" || a.Variant != "high" ||
					*a.Temperature != 0.1 || *a.TopP != 0.9 || *a.Steps != 7 || !*a.Hidden || a.Color != "#FF0000" || *a.Disable ||
					a.Options["store"] != true || a.Prompt != "Review the code." {
					t.Errorf("agent = %+v", a)
				}
			},
		},
		{
			name: "permission keeps its order and unknown keys become options", wantName: "review",
			src: "---\npermission:\n  edit:\n    \"*\": deny\n    \"docs/*\": allow\n  bash: ask\nreasoningEffort: high\nmaxSteps: 3\n---\nBody",
			check: func(t *testing.T, a config.Agent) {
				want := `[{"permission":"edit","pattern":"*","action":"deny"},{"permission":"edit","pattern":"docs/*","action":"allow"},{"permission":"bash","pattern":"*","action":"ask"}]`
				if got := rulesJSON(a.Permission); got != want {
					t.Errorf("permission = %s", got)
				}
				if a.Options["reasoningEffort"] != "high" || a.MaxSteps == nil || *a.MaxSteps != 3 {
					t.Errorf("options %v maxSteps %v", a.Options, a.MaxSteps)
				}
			},
		},
		{
			name: "legacy tools map", wantName: "review",
			src: "---\ntools:\n  write: false\n  bash: true\n---\n",
			check: func(t *testing.T, a config.Agent) {
				if !a.Tools["bash"] || a.Tools["write"] || len(a.Tools) != 2 {
					t.Errorf("tools = %v", a.Tools)
				}
			},
		},
		{
			name: "claude-style tool list in an opencode file", wantName: "review",
			src: "---\ntools: Read, Grep\n---\n",
			check: func(t *testing.T, a config.Agent) {
				want := `[{"permission":"*","pattern":"*","action":"deny"},{"permission":"external_directory","pattern":"*","action":"ask"},{"permission":"doom_loop","pattern":"*","action":"ask"},{"permission":"read","pattern":"*","action":"allow"},{"permission":"grep","pattern":"*","action":"allow"}]`
				if got := rulesJSON(a.Permission); got != want {
					t.Errorf("permission = %s", got)
				}
			},
		},
		{name: "name field overrides the path", src: "---\nname: other\n---\nx", wantName: "other",
			check: func(t *testing.T, a config.Agent) {
				if a.Options["name"] != nil {
					t.Errorf("name leaked into options: %v", a.Options)
				}
			}},
		{name: "model alias resolved", src: "---\nmodel: sonnet\n---\nx", wantName: "review",
			check: func(t *testing.T, a config.Agent) {
				if a.Model != "anthropic/claude-sonnet-4-5" {
					t.Errorf("model = %q", a.Model)
				}
			}},
		{name: "unresolvable alias warns", src: "---\nmodel: opus\n---\nx", wantName: "review", wantWarn: `model alias "opus"`},
		{name: "no frontmatter", src: "Just a prompt.\n", wantName: "review",
			check: func(t *testing.T, a config.Agent) {
				if a.Prompt != "Just a prompt." {
					t.Errorf("prompt = %q", a.Prompt)
				}
			}},
		{name: "colon in a plain value", src: "---\ndescription: Use when: tests fail\n---\nx", wantName: "review",
			check: func(t *testing.T, a config.Agent) {
				if a.Description != "Use when: tests fail" {
					t.Errorf("description = %q", a.Description)
				}
			}},
		{name: "invalid yaml", src: "---\ndescription: x\npermission:\n    edit: deny\n  bash: deny\n---\n", wantErr: "agents/review.md: invalid YAML in frontmatter"},
		{name: "unclosed frontmatter", src: "---\ndescription: x\n", wantErr: "agents/review.md: the frontmatter opened by ---"},
		{name: "bad mode", src: "---\nmode: sometimes\n---\n", wantErr: `agents/review.md: mode "sometimes"`},
		{name: "bad type", src: "---\ntemperature: hot\n---\n", wantErr: "agents/review.md: invalid agent frontmatter"},
		{name: "bad action", src: "---\npermission:\n  bash: maybe\n---\n", wantErr: "agents/review.md: invalid agent frontmatter"},
		{name: "not a mapping", src: "---\n- a\n- b\n---\n", wantErr: "agents/review.md: the frontmatter must be a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := ParseAgentFile("/p/.opencode/agents/review.md", []byte(tt.src), "review", resolve)
			if tt.wantErr != "" {
				var fe *FileError
				if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a FileError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if def.Name != tt.wantName || def.Source != "/p/.opencode/agents/review.md" {
				t.Errorf("name %q source %q", def.Name, def.Source)
			}
			if tt.wantWarn != "" && (def.Warning == nil || !strings.Contains(def.Warning.Error(), tt.wantWarn)) {
				t.Errorf("warning = %v, want %q", def.Warning, tt.wantWarn)
			}
			if tt.check != nil {
				tt.check(t, def.Agent)
			}
		})
	}
}

func TestParseClaudeAgent(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		wantName  string
		wantRules string
		check     func(t *testing.T, a config.Agent)
		wantErr   string
		wantWarn  string
	}{
		{
			name: "comma list", wantName: "migration-checker",
			src:       "---\nname: migration-checker\ndescription: Checks migrations\ntools: Read, Grep, Glob\nmodel: inherit\ncolor: cyan\nmaxTurns: 9\neffort: high\n---\nYou check migrations.\n",
			wantRules: `[{"permission":"*","pattern":"*","action":"deny"},{"permission":"external_directory","pattern":"*","action":"ask"},{"permission":"doom_loop","pattern":"*","action":"ask"},{"permission":"read","pattern":"*","action":"allow"},{"permission":"grep","pattern":"*","action":"allow"},{"permission":"glob","pattern":"*","action":"allow"}]`,
			check: func(t *testing.T, a config.Agent) {
				if a.Mode != "subagent" || a.Model != "" || a.Color != "cyan" || *a.Steps != 9 || a.Variant != "high" || a.Prompt != "You check migrations." || a.Description != "Checks migrations" {
					t.Errorf("agent = %+v", a)
				}
			},
		},
		{
			name: "yaml list, patterns, mcp and deny list", wantName: "ops",
			src:       "---\nname: ops\ndescription: Ops\ntools:\n  - Bash(git log:*)\n  - Write\n  - mcp__github__create_issue\n  - Agent(explore, general)\ndisallowedTools: WebFetch\n---\n",
			wantRules: `[{"permission":"*","pattern":"*","action":"deny"},{"permission":"external_directory","pattern":"*","action":"ask"},{"permission":"doom_loop","pattern":"*","action":"ask"},{"permission":"bash","pattern":"git log *","action":"allow"},{"permission":"edit","pattern":"*","action":"allow"},{"permission":"github_create_issue","pattern":"*","action":"allow"},{"permission":"task","pattern":"explore","action":"allow"},{"permission":"task","pattern":"general","action":"allow"},{"permission":"webfetch","pattern":"*","action":"deny"}]`,
		},
		{
			name: "no tools inherits everything", wantName: "helper",
			src: "---\nname: helper\ndescription: Helps\nmodel: claude-opus-4-1\npermissionMode: plan\n---\n", wantRules: `[{"permission":"edit","pattern":"*","action":"deny"}]`,
			check: func(t *testing.T, a config.Agent) {
				if a.Model != "claude-opus-4-1" {
					t.Errorf("model = %q", a.Model)
				}
			},
		},
		{name: "alias warns", wantName: "h", src: "---\nname: h\ndescription: d\nmodel: haiku\n---\n", wantRules: "null", wantWarn: `model alias "haiku"`},
		{name: "no name is documentation", src: "# Notes\nNot an agent.\n"},
		{name: "no description", src: "---\nname: x\n---\n", wantErr: "has no description"},
		{name: "bad name", src: "---\nname: a:b\ndescription: d\n---\n", wantErr: "may not contain"},
		{name: "invalid yaml", src: "---\nname: x\ntools:\n    - Read\n  - Grep\n---\n", wantErr: "/h/.claude/agents/x.md: invalid YAML in frontmatter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := ParseClaudeAgent("/h/.claude/agents/x.md", []byte(tt.src), nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "x.md") {
					t.Fatalf("err = %v, want one naming the file and containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if def.Name != tt.wantName {
				t.Fatalf("name = %q, want %q", def.Name, tt.wantName)
			}
			if tt.wantName == "" {
				return
			}
			if got := rulesJSON(def.Agent.Permission); got != tt.wantRules {
				t.Errorf("rules = %s\nwant    %s", got, tt.wantRules)
			}
			if tt.wantWarn != "" && (def.Warning == nil || !strings.Contains(def.Warning.Error(), tt.wantWarn)) {
				t.Errorf("warning = %v", def.Warning)
			}
			if tt.check != nil {
				tt.check(t, def.Agent)
			}
		})
	}
}

func TestParseCommandFile(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		claude  bool
		want    Command
		wantErr string
	}{
		{name: "opencode", src: "---\ndescription: Explore\nagent: explore\nmodel: a/b\nvariant: high\nsubtask: true\n---\nFind $1\n",
			want: Command{Name: "c", Description: "Explore", Agent: "explore", Model: "a/b", Variant: "high", Subtask: ptr(true), Template: "Find $1"}},
		{name: "no frontmatter", src: "Just do it: $ARGUMENTS", want: Command{Name: "c", Template: "Just do it: $ARGUMENTS"}},
		{name: "claude fork", claude: true, src: "---\ncontext: fork\nagent: Explore\nmodel: sonnet\nargument-hint: [a] [b]\narguments: [file, line]\n---\n# Look around\nBody",
			want: Command{Name: "c", Description: "Look around", Agent: "explore", Subtask: ptr(true), Template: "# Look around\nBody", Claude: true, ArgumentHint: "[a] [b]", ArgumentNames: []string{"file", "line"}}},
		{name: "claude agent without fork is inline", claude: true, src: "---\nagent: Explore\ndescription: d\n---\nBody",
			want: Command{Name: "c", Description: "d", Template: "Body", Claude: true}},
		{name: "bad subtask", src: "---\nsubtask: sometimes\n---\nx", wantErr: "subtask: want true or false"},
		{name: "empty template", src: "---\ndescription: d\n---\n\n", wantErr: "empty template"},
		{name: "invalid yaml", src: "---\ndescription: d\nagent:\n    - a\n  - b\n---\nx", wantErr: "invalid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCommandFile("/p/commands/c.md", []byte(tt.src), "c", tt.claude)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "/p/commands/c.md") {
					t.Fatalf("err = %v, want one naming the file and containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.Source, tt.want.Source = "", ""
			got, _ := json.Marshal(c)
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Errorf("command = %s\nwant      %s", got, want)
			}
		})
	}
}
