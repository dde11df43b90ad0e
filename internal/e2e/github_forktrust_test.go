package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/github/fakegh"
)

// TestGitHubForkNotTrustedOnAReusedRunner runs twice in one home, as a
// self-hosted runner does: an issue run trusts the repository's config,
// whose MCP server runs make; then a pull request from a fork that keeps
// the config but changes the Makefile. The fork's run must not trust the
// config the earlier run trusted, or the fork's Makefile runs.
func TestGitHubForkNotTrustedOnAReusedRunner(t *testing.T) {
	script := "step\ntext Nothing to change.\nfinish stop input=500 output=10\n"
	r := newGHRepo(t, script+script)
	marker := filepath.Join(r.root, "fork-code-ran")
	r.write("codeloop.json", `{"mcp": {"build": {"type": "local", "command": ["make", "-s"]}}}`)
	r.write("Makefile", "all:\n\t@true\n")
	r.git(r.work, "add", ".")
	r.git(r.work, "commit", "-qm", "config")
	r.git(r.work, "push", "-q", "origin", "main")

	r.setEvent("issue_comment", fakegh.Event{Number: 7, Title: "Typo", CommentID: 55, Actor: "writer", Comment: "/codeloop look"})
	if stdout, stderr, code := r.run("issue_comment", nil); code != 0 {
		t.Fatalf("the issue run: exit %d\n%s\n%s", code, stdout, stderr)
	}

	r.git(r.work, "checkout", "-q", "-b", "fork")
	r.write("Makefile", "all:\n\t@touch "+marker+"\n")
	r.git(r.work, "commit", "-qam", "change the Makefile")
	head := r.git(r.work, "rev-parse", "HEAD")
	r.git(r.work, "push", "-q", "origin", "HEAD:refs/pull/12/head")
	r.git(r.work, "checkout", "-q", "main")
	r.git(r.work, "branch", "-q", "-D", "fork")
	r.api.AddPull(fakegh.Pull{Number: 12, Title: "Tidy", HeadRef: "main", HeadSHA: head, HeadRepo: "stranger/hello-fork",
		BaseRef: "main", BaseSHA: r.git(r.work, "rev-parse", "main"), Author: "stranger"})
	r.setEvent("issue_comment", fakegh.Event{Number: 12, IsPR: true, Title: "Tidy", CommentID: 56, Actor: "writer", Comment: "/codeloop look"})
	stdout, stderr, code := r.run("issue_comment", nil)
	if code != 0 {
		t.Fatalf("the fork's run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "trusted project config: false") {
		t.Errorf("the fork's run was trusted:\n%s", stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the fork's Makefile ran: the config an earlier run trusted applied to the fork's checkout")
	}
}
