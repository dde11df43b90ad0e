package github

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client"
	"github.com/codeloop/codeloop/internal/github/fakegh"
)

const testToken = "ghs_secretTokenValue123"

// fixture is a checkout cloned from a bare origin, a fake API and an event
// file.
type fixture struct {
	t         *testing.T
	api       *fakegh.Server
	apiURL    string
	origin    string
	work      string
	eventPath string
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{t: t, origin: filepath.Join(root, "origin.git"), work: filepath.Join(root, "work"), eventPath: filepath.Join(root, "event.json")}
	gitIn(t, root, "init", "-q", "--bare", "-b", "main", f.origin)
	gitIn(t, root, "clone", "-q", f.origin, f.work)
	if err := os.WriteFile(filepath.Join(f.work, "README.md"), []byte("teh readme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, f.work, "checkout", "-q", "-b", "main")
	gitIn(t, f.work, "add", ".")
	gitIn(t, f.work, "commit", "-qm", "start")
	gitIn(t, f.work, "push", "-q", "origin", "main")
	f.api = fakegh.New("octo-org", "hello", testToken)
	f.api.SetPermission("writer", "write")
	f.api.SetPermission("reader", "read")
	srv := httptest.NewServer(f.api)
	t.Cleanup(srv.Close)
	f.apiURL = srv.URL
	f.api.SetURL(srv.URL)
	return f
}

func (f *fixture) event(name string, e fakegh.Event) {
	f.t.Helper()
	e.Owner, e.Repo = "octo-org", "hello"
	data, err := fakegh.EventFile(name, e)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(f.eventPath, data, 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) options(name string) Options {
	return Options{
		Env: Env{EventName: name, EventPath: f.eventPath, Repository: "octo-org/hello", APIURL: f.apiURL,
			ServerURL: "https://github.example", Token: testToken, Workspace: f.work, RunID: "42"},
		Trigger: TriggerOptions{Words: []string{"/codeloop", "/cl"}},
		Timeout: time.Minute,
		Export:  "-",
		Open: func(context.Context, bool) (client.Client, error) {
			f.t.Error("the engine was opened")
			return nil, context.Canceled
		},
	}
}

// branches lists origin's branches.
func (f *fixture) branches() string {
	return gitIn(f.t, f.origin, "for-each-ref", "--format=%(refname)", "refs/heads")
}

func TestRunRefusesWithoutTouching(t *testing.T) {
	tests := []struct {
		name    string
		event   string
		e       fakegh.Event
		setup   func(f *fixture)
		token   string
		wantErr string // empty: a clean exit with nothing done
	}{
		{name: "reader", event: "issue_comment", e: fakegh.Event{Number: 7, Actor: "reader", Comment: "/codeloop fix it", Association: "OWNER"}},
		{name: "stranger", event: "issue_comment", e: fakegh.Event{Number: 7, Actor: "stranger", Comment: "/codeloop fix it", Association: "MEMBER"}},
		{name: "no trigger", event: "issue_comment", e: fakegh.Event{Number: 7, Actor: "writer", Comment: "lgtm"}},
		{name: "server error", event: "issue_comment", e: fakegh.Event{Number: 7, Actor: "writer", Comment: "/codeloop fix it"},
			setup: func(f *fixture) {
				f.api.Fail("GET /repos/{owner}/{repo}/collaborators/{user}/permission", fakegh.Failure{Status: 500, Message: "Server Error"})
			},
			wantErr: "GitHub answered 500: Server Error"},
		{name: "rate limit", event: "issue_comment", e: fakegh.Event{Number: 7, Actor: "writer", Comment: "/codeloop fix it"},
			setup: func(f *fixture) {
				f.api.Fail("GET /repos/{owner}/{repo}/collaborators/{user}/permission",
					fakegh.Failure{Status: 403, RetryAfter: "60", Message: "You have exceeded a secondary rate limit"})
			},
			wantErr: "secondary rate limit: retry after 1m0s"},
		{name: "comment fails", event: "issue_comment", e: fakegh.Event{Number: 7, Actor: "writer", Comment: "/codeloop fix it"},
			setup: func(f *fixture) {
				f.api.Fail("POST /repos/{owner}/{repo}/issues/{number}/comments", fakegh.Failure{Status: 500})
			},
			wantErr: "commenting on #7: GitHub answered 500"},
		{name: "bad token", token: "ghs_wrong", event: "issue_comment", e: fakegh.Event{Number: 7, Actor: "writer", Comment: "/codeloop fix it"},
			wantErr: "GitHub answered 401: Bad credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.event(tt.event, tt.e)
			if tt.setup != nil {
				tt.setup(f)
			}
			o := f.options(tt.event)
			if tt.token != "" {
				o.Env.Token = tt.token
			}
			var log bytes.Buffer
			o.Log = &log
			err := Run(context.Background(), o)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			case err != nil && (strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), testToken)):
				t.Errorf("the error is not one clean line: %q", err)
			}
			if b := f.branches(); b != "refs/heads/main" {
				t.Errorf("origin's branches: %s", b)
			}
			if len(f.api.Opened()) != 0 || len(f.api.Reviews()) != 0 {
				t.Errorf("opened %v, reviewed %v", f.api.Opened(), f.api.Reviews())
			}
			for _, c := range f.api.Calls() {
				if c.Method != "GET" && tt.wantErr == "" {
					t.Errorf("a write: %s %s", c.Method, c.Path)
				}
			}
			if strings.Contains(log.String(), testToken) {
				t.Errorf("the log holds the token:\n%s", log.String())
			}
		})
	}
}

func TestRunMalformedEvent(t *testing.T) {
	f := newFixture(t)
	if err := os.WriteFile(f.eventPath, []byte(`{"action":"created","comment":`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Run(context.Background(), f.options("issue_comment"))
	if err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("err = %v", err)
	}
	if n := len(f.api.Calls()); n != 0 {
		t.Errorf("%d API calls", n)
	}
}

// TestRunEnterpriseAPI talks to an API below /api/v3, as GitHub Enterprise
// Server's is.
func TestRunEnterpriseAPI(t *testing.T) {
	f := newFixture(t)
	var paths []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.Path)
		mu.Unlock()
		http.StripPrefix("/api/v3", f.api).ServeHTTP(w, r)
	}))
	defer srv.Close()
	f.event("issue_comment", fakegh.Event{Number: 7, Actor: "reader", Comment: "/codeloop fix it"})
	o := f.options("issue_comment")
	o.Env.APIURL = srv.URL + "/api/v3"
	var log bytes.Buffer
	o.Log = &log
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 || paths[0] != "/api/v3/repos/octo-org/hello/collaborators/reader/permission" {
		t.Errorf("paths = %v", paths)
	}
	if !strings.Contains(log.String(), "@reader cannot write") {
		t.Errorf("log = %q", log.String())
	}
}
