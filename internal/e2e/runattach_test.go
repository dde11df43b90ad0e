package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/client"
)

// TestRunAttach runs prompts on a codeloop server with run --attach: the
// answer streams to this process, the tool runs in the server's project,
// the session lives in the server (another client sees it), a rejected
// permission exits 1, and --continue prompts the same session.
func TestRunAttach(t *testing.T) {
	script := `
step
call call_1 bash {"command":"echo attached > out.txt"}
finish tool-calls
step
text The file is written.
finish stop
step
call call_2 bash {"command":"rm out.txt"}
finish tool-calls
step
text I could not remove it.
finish stop
`
	p := newProject(t, script, nil)
	p.write(map[string]string{"codeloop.json": `{"permission": {"bash": "ask"}}`})
	srv := p.serve("--port", "0")
	elsewhere := t.TempDir() // run --attach needs no project of its own
	run := func(args ...string) (string, string, int) {
		cmd := p.command(context.Background(), append([]string{"run", "--attach", srv.url, "--token", srv.token}, args...)...)
		cmd.Dir = elsewhere
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		_ = cmd.Run()
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
	out, stderr, code := run("--auto", "write the file")
	if code != 0 || !strings.Contains(out, "→ bash") || !strings.HasSuffix(strings.TrimSpace(out), "The file is written.") {
		t.Fatalf("run --attach: exit %d\nstdout %q\nstderr %q", code, out, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(p.dir, "out.txt")); err != nil || string(b) != "attached\n" {
		t.Errorf("out.txt in the server's project: %q, %v", b, err)
	}
	c := srv.client(t)
	sessions, err := c.ListSessions(context.Background(), client.ListSessionsOptions{})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("the server lists %d sessions (%v), want the one run --attach made", len(sessions), err)
	}

	_, stderr, code = run("-c", "remove the file")
	if code != 1 || !strings.Contains(stderr, "permission requested: bash (rm out.txt)") {
		t.Errorf("a rejected ask: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "out.txt")); err != nil {
		t.Error("the rejected command ran")
	}
	msgs, err := c.Messages(context.Background(), sessions[0].ID, client.MessagesOptions{})
	if err != nil || len(msgs) < 5 {
		t.Errorf("--continue did not prompt the same session: %d messages, %v", len(msgs), err)
	}
}

// TestRunAttachSubagentAsk answers a sub-agent's ask, which comes from a
// session of its own, when run --attach is given --auto.
func TestRunAttachSubagentAsk(t *testing.T) {
	script := `
step
call call_1 task {"description":"make a file","prompt":"Create child.txt.","subagent_type":"general"}
finish tool-calls
step
call call_c bash {"command":"touch child.txt"}
finish tool-calls
step
text Created.
finish stop
step
text The sub-agent created it.
finish stop
`
	p := newProject(t, script, nil)
	p.write(map[string]string{"codeloop.json": `{"permission": {"bash": "ask"}}`})
	srv := p.serve("--port", "0")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := p.command(ctx, "run", "--attach", srv.url, "--token", srv.token, "--auto", "delegate it")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "The sub-agent created it.") {
		t.Fatalf("run --attach: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "child.txt")); err != nil {
		t.Errorf("the sub-agent's command did not run: %v", err)
	}
}

// TestRunAttachEveryFlag runs on a server with the flags a run in this
// process takes: --title, --file (its content travels to the server, which
// may not see this machine's files), --command, --fork and --sandbox.
func TestRunAttachEveryFlag(t *testing.T) {
	script := `
step
text Read it.
finish stop
step
text Reviewed.
finish stop
step
text Forked answer.
finish stop
`
	p := newProject(t, script, nil)
	p.writeConfig(`{"command": {"review": {"template": "Review this: $ARGUMENTS"}}}`)
	srv := p.serve("--port", "0")
	elsewhere := t.TempDir() // the attached file lives where only the client sees it
	if err := os.WriteFile(filepath.Join(elsewhere, "notes.txt"), []byte("client-side notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, int) {
		cmd := p.command(context.Background(), append([]string{"run", "--attach", srv.url, "--token", srv.token}, args...)...)
		cmd.Dir = elsewhere
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		_ = cmd.Run()
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
	out, stderr, code := run("--title", "attached work", "--file", "notes.txt", "--sandbox", "read-only", "look at the notes")
	if code != 0 || !strings.Contains(out, "Read it.") {
		t.Fatalf("run --attach --file: exit %d\nstdout %q\nstderr %q", code, out, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "client-side notes") {
		t.Errorf("the attached file's content did not reach the model")
	}
	c := srv.client(t)
	ctx := context.Background()
	sessions, err := c.ListSessions(ctx, client.ListSessionsOptions{})
	if err != nil || len(sessions) != 1 {
		t.Fatalf("sessions: %d, %v", len(sessions), err)
	}
	first := sessions[0]
	if first.Title != "attached work" || first.Sandbox != "read-only" {
		t.Errorf("the session: title %q, sandbox %q; want the flags'", first.Title, first.Sandbox)
	}

	if out, stderr, code := run("-c", "--command", "review", "the plan"); code != 0 || !strings.Contains(out, "Reviewed.") {
		t.Fatalf("run --attach --command: exit %d\nstdout %q\nstderr %q", code, out, stderr)
	}
	if reqs := p.model.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "Review this: the plan") {
		t.Errorf("the command was not expanded on the server")
	}

	if out, stderr, code := run("-c", "--fork", "and now?"); code != 0 || !strings.Contains(out, "Forked answer.") {
		t.Fatalf("run --attach --fork: exit %d\nstdout %q\nstderr %q", code, out, stderr)
	}
	sessions, _ = c.ListSessions(ctx, client.ListSessionsOptions{})
	if len(sessions) != 2 {
		t.Fatalf("after --fork the server has %d sessions, want 2", len(sessions))
	}
	if msgs, _ := c.Messages(ctx, first.ID, client.MessagesOptions{}); len(msgs) != 4 {
		t.Errorf("the forked-from session has %d messages, want its 4: --fork must not prompt it", len(msgs))
	}

	if _, stderr, code := run("--trust-project", "hello"); code != 2 || !strings.Contains(stderr, "a server decides trust") {
		t.Errorf("--trust-project with --attach: exit %d, stderr %q; want a usage error", code, stderr)
	}
}
