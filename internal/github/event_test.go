package github

import (
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/github/fakegh"
)

func TestTriggered(t *testing.T) {
	words := []string{"/codeloop", "/cl"}
	tests := []struct {
		text string
		want bool
	}{
		{"/codeloop fix the typo", true},
		{"please /cl: rename it", true},
		{"see (/codeloop)", true},
		{"/codeloopy is not it", false},
		{"a/cl b", false},
		{"http://x/cl", false},
		{"nothing here", false},
		{"/CODELOOP shouting", false},
	}
	for _, tt := range tests {
		if got := Triggered(tt.text, words); got != tt.want {
			t.Errorf("Triggered(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestParseEvent(t *testing.T) {
	base := fakegh.Event{Owner: "octo-org", Repo: "hello", Number: 7, Title: "Typo", IssueBody: "teh", CommentID: 55,
		Actor: "writer", HeadRef: "feature", HeadSHA: "abc", BaseSHA: "def", Path: "a.txt", Line: 3, DiffHunk: "@@ -1 +1 @@"}
	with := func(f func(*fakegh.Event)) fakegh.Event { e := base; f(&e); return e }
	tests := []struct {
		name   string
		event  string
		e      fakegh.Event
		review bool
		kind   Kind
		why    string
	}{
		{"issue comment", "issue_comment", with(func(e *fakegh.Event) { e.Comment = "/codeloop fix it" }), false, KindIssue, ""},
		{"pr comment", "issue_comment", with(func(e *fakegh.Event) { e.Comment = "/cl fix it"; e.IsPR = true }), false, KindPRComment, ""},
		{"no trigger", "issue_comment", with(func(e *fakegh.Event) { e.Comment = "thanks" }), false, 0, "does not mention"},
		{"bot", "issue_comment", with(func(e *fakegh.Event) { e.Comment = "/codeloop"; e.ActorType = "Bot" }), false, 0, "bot"},
		{"review comment", "pull_request_review_comment", with(func(e *fakegh.Event) { e.Comment = "/codeloop rename" }), false, KindReviewComment, ""},
		{"issue opened", "issues", with(func(e *fakegh.Event) { e.Action = "opened"; e.IssueBody = "/codeloop do it" }), false, KindIssue, ""},
		{"issue closed", "issues", with(func(e *fakegh.Event) { e.Action = "closed"; e.IssueBody = "/codeloop do it" }), false, 0, "closed"},
		{"pull request without review", "pull_request", with(func(e *fakegh.Event) { e.Action = "opened" }), false, 0, "--review"},
		{"pull request review", "pull_request", with(func(e *fakegh.Event) { e.Action = "synchronize" }), true, KindReview, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := fakegh.EventFile(tt.event, tt.e)
			if err != nil {
				t.Fatal(err)
			}
			r, why, err := ParseEvent(tt.event, data, TriggerOptions{Words: []string{"/codeloop", "/cl"}, Review: tt.review})
			if err != nil {
				t.Fatal(err)
			}
			if tt.kind == 0 {
				if r != nil || !strings.Contains(why, tt.why) {
					t.Fatalf("got %+v, %q; want no request, a reason with %q", r, why, tt.why)
				}
				return
			}
			if r == nil {
				t.Fatalf("no request: %s", why)
			}
			if r.Kind != tt.kind || r.Number != 7 || r.Actor != "writer" || r.DefaultBranch != "main" {
				t.Errorf("request = %+v", r)
			}
			if r.Kind == KindReviewComment && (r.Path != "a.txt" || r.Line != 3 || r.CommentID != 55) {
				t.Errorf("review comment location = %s:%d id %d", r.Path, r.Line, r.CommentID)
			}
		})
	}
}

func TestParseEventBadInput(t *testing.T) {
	tests := []struct{ name, payload string }{
		{"not JSON", "{"},
		{"no comment", `{"action":"created","issue":{"number":1},"repository":{"default_branch":"main"}}`},
		{"wrong types", `{"action":"created","issue":{"number":"seven"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseEvent("issue_comment", []byte(tt.payload), TriggerOptions{Words: []string{"/codeloop"}})
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is not one line: %q", err)
			}
		})
	}
}

func TestLoadEnv(t *testing.T) {
	full := map[string]string{
		"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": "/tmp/e.json", "GITHUB_REPOSITORY": "o/r",
		"GITHUB_TOKEN": "ghs_x", "GITHUB_RUN_ID": "42", "GITHUB_SERVER_URL": "https://ghe.example.com",
	}
	tests := []struct {
		name    string
		drop    string
		set     map[string]string
		flag    string
		wantErr string
		token   string
	}{
		{name: "complete", token: "ghs_x"},
		{name: "flag wins", flag: "ghp_flag", set: map[string]string{"INPUT_TOKEN": "ghs_input"}, token: "ghp_flag"},
		{name: "input token", set: map[string]string{"INPUT_TOKEN": "ghs_input"}, token: "ghs_input"},
		{name: "no token", drop: "GITHUB_TOKEN", wantErr: "no GitHub token"},
		{name: "no event", drop: "GITHUB_EVENT_NAME", wantErr: "GITHUB_EVENT_NAME is not set"},
		{name: "bad repository", set: map[string]string{"GITHUB_REPOSITORY": "nope"}, wantErr: "owner/name"},
		{name: "bad run id", set: map[string]string{"GITHUB_RUN_ID": "x"}, wantErr: "GITHUB_RUN_ID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range full {
				env[k] = v
			}
			delete(env, tt.drop)
			for k, v := range tt.set {
				env[k] = v
			}
			e, err := LoadEnv(func(k string) string { return env[k] }, tt.flag)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Token != tt.token || e.APIURL != "https://api.github.com" || e.RunURL() != "https://ghe.example.com/o/r/actions/runs/42" {
				t.Errorf("env = %+v (run %s)", e, e.RunURL())
			}
		})
	}
}

func TestIsSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "ANTHROPIC_API_KEY": true, "OPENAI_API_KEY": true, "AWS_SECRET_ACCESS_KEY": true,
		"ACTIONS_RUNTIME_TOKEN": true, "ACTIONS_ID_TOKEN_REQUEST_URL": true, "db_password": true,
		"PATH": false, "HOME": false, "GITHUB_REPOSITORY": false, "GITHUB_EVENT_PATH": false, "TOKENIZERS_PARALLELISM": false,
	} {
		if got := IsSecret(name); got != want {
			t.Errorf("IsSecret(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestRunnerCredential(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "gh_token": true, "INPUT_TOKEN": true, "ACTIONS_RUNTIME_TOKEN": true,
		"ANTHROPIC_API_KEY": false, "OPENAI_API_KEY": false, "GITHUB_REPOSITORY": false,
	} {
		if got := RunnerCredential(name); got != want {
			t.Errorf("RunnerCredential(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestBranchName(t *testing.T) {
	tests := []struct {
		n     int
		title string
		want  string
	}{
		{7, "Fix the typo in README!", "codeloop/issue-7-fix-the-typo-in-readme"},
		{8, "!!!", "codeloop/issue-8"},
		{9, "Ünïcode and a very long title that goes on and on and on forever", "codeloop/issue-9-n-code-and-a-very-long-title-that-goes"},
	}
	for _, tt := range tests {
		if got := branchName(tt.n, tt.title); got != tt.want {
			t.Errorf("branchName(%d, %q) = %q, want %q", tt.n, tt.title, got, tt.want)
		}
	}
}
