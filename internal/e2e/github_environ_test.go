package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/github/fakegh"
	"go.yaml.in/yaml/v3"
)

// newEnvironProbe is a job whose model runs a command that reads the
// environment and the command line every process was started with, as
// /proc shows them to a process of the same user, and then fixes the typo
// of a.txt.
func newEnvironProbe(t *testing.T) *ghRepo {
	t.Helper()
	probe := `n=0; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do if e=$(tr '\0' '\n' < "$f" 2>/dev/null); then n=$((n+1)); ` +
		`case $f in */$PPID/environ) echo parent-read;; esac; printf '%s\n' "$e" | grep -E -A1 'KEY|TOKEN|token'; fi; done; echo "read $n environments"`
	call, err := json.Marshal(map[string]string{"command": probe, "description": "Read the processes' environments"})
	if err != nil {
		t.Fatal(err)
	}
	r := newGHRepo(t, `
step
call call_1 bash `+string(call)+`
finish tool-calls input=500 output=20
step
call call_2 edit {"filePath":"a.txt","oldString":"teh","newString":"the"}
finish tool-calls input=600 output=20
step
text Fixed the typo.
finish stop input=700 output=10
`)
	r.setEvent("issue_comment", fakegh.Event{Number: 7, Title: "Typo", CommentID: 55, Actor: "writer", Comment: "/codeloop fix"})
	return r
}

// checkEnvironProbe checks that the probe read codeloop's environment and
// found neither credential, and that codeloop itself still used both.
func (r *ghRepo) checkEnvironProbe(stderr string) {
	t := r.t
	t.Helper()
	reqs := r.model.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests\n%s", len(reqs), stderr)
	}
	out := string(reqs[1].Body)
	if !strings.Contains(out, "parent-read") || !strings.Contains(out, "environments") {
		t.Fatalf("the command did not read codeloop's environment: %.2000s", out)
	}
	for _, s := range []string{ghToken, providerKey} {
		if strings.Contains(out, s) {
			t.Errorf("a process's environment held %q", s)
		}
	}
	if auth := <-r.modelAuth; auth != "Bearer "+providerKey {
		t.Errorf("the model request's Authorization = %q", auth)
	}
	if got := r.git(r.origin, "show", "codeloop/issue-7-typo:a.txt"); got != "the typo" {
		t.Errorf("a.txt on the branch = %q", got)
	}
}

// TestGitHubCredentialsNotInProcessEnvironments: the GitHub token and the
// provider key are in no process's environment the model's command can
// read, codeloop's own included, though codeloop still uses both.
func TestGitHubCredentialsNotInProcessEnvironments(t *testing.T) {
	r := newEnvironProbe(t)
	stdout, stderr, code := r.run("issue_comment", nil)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	r.checkEnvironProbe(stderr)
}

// TestGitHubTokenFlagNotInCommandLines: a token passed with --token is in
// no process's command line the model's command can read either.
func TestGitHubTokenFlagNotInCommandLines(t *testing.T) {
	r := newEnvironProbe(t)
	stdout, stderr, code := r.run("issue_comment", []string{"GITHUB_TOKEN="}, "--token", ghToken)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	r.checkEnvironProbe(stderr)
	if n := len(r.api.Comments()); n != 1 {
		t.Errorf("%d comments: the token did not reach the API", n)
	}
}

// TestGitHubWorkflowStepKeepsNoCredentials runs the step of the workflow
// codeloop github install writes the way the Actions runner does, through
// bash with the credentials in its environment: no process left in the
// step, the shell included, holds them where the model's command can read
// them.
func TestGitHubWorkflowStepKeepsNoCredentials(t *testing.T) {
	r := newEnvironProbe(t)
	install := exec.Command(binary, "github", "install")
	install.Dir, install.Env = r.work, r.env()
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(r.work, ".github", "workflows", "codeloop.yml"))
	if err != nil {
		t.Fatal(err)
	}
	r.git(r.work, "add", ".")
	r.git(r.work, "commit", "-qm", "add the workflow")
	r.git(r.work, "push", "-q", "origin", "main")
	var wf struct {
		Jobs map[string]struct {
			Steps []struct{ Name, Run string }
		}
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	script := ""
	for _, s := range wf.Jobs["codeloop"].Steps {
		if s.Name == "Run codeloop" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatalf("no Run codeloop step:\n%s", data)
	}
	file := filepath.Join(r.root, "step.sh")
	if err := os.WriteFile(file, []byte(script+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", file)
	cmd.Dir = r.work
	cmd.Env = append(r.env(), "GITHUB_EVENT_NAME=issue_comment", "GITHUB_TOKEN="+ghToken,
		"PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("the step: %v\n%s", err, errb.String())
	}
	r.checkEnvironProbe(errb.String())
}
