package github

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestWorkflowParses(t *testing.T) {
	tests := []struct {
		name string
		o    WorkflowOptions
	}{
		{"defaults", WorkflowOptions{}},
		{"review and model", WorkflowOptions{Secret: "OPENAI_API_KEY", Model: "openai/gpt-5", Review: true, Words: []string{"/bot", "it's"}, TimeoutMinutes: 10}},
		{"words YAML would read", WorkflowOptions{Model: "local/m: x #y", Words: []string{"bot: go", "/cl #now", `"q"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := Workflow(tt.o)
			var wf struct {
				On          map[string]struct{ Types []string } `yaml:"on"`
				Permissions map[string]string                   `yaml:"permissions"`
				Jobs        map[string]struct {
					If    string `yaml:"if"`
					Steps []struct {
						Uses string            `yaml:"uses"`
						Run  string            `yaml:"run"`
						With map[string]any    `yaml:"with"`
						Env  map[string]string `yaml:"env"`
					} `yaml:"steps"`
				} `yaml:"jobs"`
			}
			if err := yaml.Unmarshal([]byte(text), &wf); err != nil {
				t.Fatalf("the workflow is not YAML: %v\n%s", err, text)
			}
			want := map[string]string{"contents": "write", "issues": "write", "pull-requests": "write", "id-token": "none"}
			for k, v := range want {
				if wf.Permissions[k] != v {
					t.Errorf("permissions[%s] = %q, want %q", k, wf.Permissions[k], v)
				}
			}
			for _, ev := range []string{"issue_comment", "pull_request_review_comment", "issues"} {
				if _, ok := wf.On[ev]; !ok {
					t.Errorf("no %s trigger", ev)
				}
			}
			if _, ok := wf.On["pull_request"]; ok != tt.o.Review {
				t.Errorf("pull_request trigger = %v, want %v", ok, tt.o.Review)
			}
			job, ok := wf.Jobs["codeloop"]
			if !ok || len(job.Steps) != 4 {
				t.Fatalf("jobs = %+v", wf.Jobs)
			}
			if job.Steps[0].With["persist-credentials"] != false {
				t.Errorf("the checkout keeps the token: %v", job.Steps[0].With)
			}
			if !strings.Contains(job.Steps[1].Run, "releases/latest/download/install.sh | sh") {
				t.Errorf("install step = %q", job.Steps[1].Run)
			}
			run := job.Steps[2]
			if !strings.HasPrefix(run.Run, "exec codeloop github run") || strings.Contains(run.Run, "--review") != tt.o.Review {
				t.Errorf("run step = %q", run.Run)
			}
			if tt.o.Model != "" && !strings.Contains(run.Run, "--model "+shellQuote(tt.o.Model)) {
				t.Errorf("run step = %q, want the model %q whole", run.Run, tt.o.Model)
			}
			if len(tt.o.Words) > 0 && !strings.Contains(run.Run, "--trigger "+shellQuote(strings.Join(tt.o.Words, ","))) {
				t.Errorf("run step = %q, want the words %q whole", run.Run, tt.o.Words)
			}
			secret := tt.o.Secret
			if secret == "" {
				secret = "ANTHROPIC_API_KEY"
			}
			// Secrets are named, never written.
			if run.Env[secret] != "${{ secrets."+secret+" }}" || run.Env["GITHUB_TOKEN"] != "${{ secrets.GITHUB_TOKEN }}" {
				t.Errorf("run env = %v", run.Env)
			}
			for _, v := range run.Env {
				if !strings.HasPrefix(v, "${{ secrets.") {
					t.Errorf("the env holds a value: %q", v)
				}
			}
			if !strings.Contains(job.If, "contains(github.event.comment.body, '/") {
				t.Errorf("if = %q", job.If)
			}
			if job.Steps[3].Uses != "actions/upload-artifact@v4" {
				t.Errorf("no artifact step: %+v", job.Steps[3])
			}
		})
	}
}

func TestProviderSecret(t *testing.T) {
	for p, want := range map[string]string{"": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "my-llm": "MY_LLM_API_KEY"} {
		if got := ProviderSecret(p); got != want {
			t.Errorf("ProviderSecret(%q) = %q, want %q", p, got, want)
		}
	}
}
