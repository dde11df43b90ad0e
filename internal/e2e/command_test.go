package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/mcp/mcptest"
	"github.com/codeloop/codeloop/internal/waitfor"
)

// write adds files (with directories) to the project after its first commit.
func (p *project) write(files map[string]string) {
	p.t.Helper()
	for name, data := range files {
		f := filepath.Join(p.dir, name)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			p.t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
			p.t.Fatal(err)
		}
	}
}

// sessionExport is a session as codeloop export writes it.
type sessionExport struct {
	Info struct {
		ID         string            `json:"id"`
		ParentID   string            `json:"parentID"`
		Title      string            `json:"title"`
		Permission []json.RawMessage `json:"permission"`
	} `json:"info"`
	Messages []struct {
		Info struct {
			ID    string `json:"id"`
			Role  string `json:"role"`
			Agent string `json:"agent"`
		} `json:"info"`
		Parts []struct {
			Type  string `json:"type"`
			Text  string `json:"text"`
			Tool  string `json:"tool"`
			State struct {
				Status   string         `json:"status"`
				Output   string         `json:"output"`
				Error    string         `json:"error"`
				Metadata map[string]any `json:"metadata"`
			} `json:"state"`
		} `json:"parts"`
	} `json:"messages"`
}

func (p *project) exportSession(id string) sessionExport {
	p.t.Helper()
	args := []string{"export"}
	if id != "" {
		args = append(args, id)
	}
	out, stderr, code := p.run(args...)
	var e sessionExport
	if err := json.Unmarshal([]byte(out), &e); err != nil || code != 0 {
		p.t.Fatalf("export %s: exit status %d, %v\n%s", id, code, err, stderr)
	}
	return e
}

// TestRunCommandFile runs an OpenCode command file: its arguments, its
// shell command and its file mention all reach the model.
func TestRunCommandFile(t *testing.T) {
	p := newProject(t, "step\ntext Greeted.\nfinish stop\nstep\ntext Greeted.\nfinish stop\n", map[string]string{"main.go": "package main // the entry point\n"})
	p.write(map[string]string{".opencode/command/greet.md": "---\ndescription: greet someone\n---\n" +
		"Greet $ARGUMENTS. The shell says !`echo from-the-shell; echo second line`. Read @main.go first.\n"})
	// Untrusted, the project's template runs no shell command.
	stdout, stderr, code := p.run("run", "--command", "greet", "the whole team")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	if body := string(p.model.Requests()[0].Body); strings.Contains(body, "from-the-shell") ||
		!strings.Contains(body, "[not run: this project is not trusted") || !strings.Contains(stderr, "1 command snippet") {
		t.Errorf("an untrusted template's shell command ran, or the note is missing:\n%s\n%s", body, stderr)
	}
	p.trust()
	stdout, stderr, code = p.run("run", "--command", "greet", "the whole team")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	body := string(p.model.Requests()[1].Body)
	for _, want := range []string{
		"Greet the whole team. The shell says from-the-shell\\nsecond line\\n. Read @main.go first.",
		"1: package main // the entry point",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %q:\n%s", want, body)
		}
	}
	if !strings.Contains(stdout, "Greeted.") {
		t.Errorf("output: %s", stdout)
	}
}

// TestRunCommandSubtask runs a command bound to a sub-agent: the sub-agent
// runs in a child session (not listed among the roots, but exportable), its
// answer comes back as the task tool's output, and the model goes on.
func TestRunCommandSubtask(t *testing.T) {
	script := `
step
text Found a_test.go.
finish stop
step
text The scout found a_test.go.
finish stop
`
	p := newProject(t, script, map[string]string{"a_test.go": "package a\n"})
	p.write(map[string]string{".opencode/command/scout.md": "---\nagent: explore\ndescription: scout the tests\n---\nList the $1 files.\n"})
	stdout, stderr, code := p.run("run", "--command", "scout", "test")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "The scout found a_test.go.") {
		t.Errorf("output: %s", stdout)
	}
	reqs := p.model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), "List the test files.") {
		t.Fatalf("%d requests; the first: %s", len(reqs), reqs[0].Body)
	}
	roots := p.sessions()
	if len(roots) != 1 {
		t.Fatalf("root sessions %v, want the parent only", roots)
	}
	parent := p.exportSession(roots[0])
	var child string
	for _, m := range parent.Messages {
		for _, part := range m.Parts {
			if part.Type == "tool" && part.Tool == "task" {
				if part.State.Status != "completed" || !strings.Contains(part.State.Output, "Found a_test.go.") {
					t.Errorf("task part %+v", part.State)
				}
				child, _ = part.State.Metadata["sessionId"].(string)
			}
		}
	}
	if child == "" {
		t.Fatalf("no task part names the child session: %+v", parent.Messages)
	}
	c := p.exportSession(child)
	if c.Info.ParentID != roots[0] || !strings.Contains(c.Info.Title, "@explore subagent") || len(c.Messages) != 2 ||
		c.Messages[1].Info.Agent != "explore" || c.Messages[1].Parts[len(c.Messages[1].Parts)-2].Text != "Found a_test.go." {
		t.Errorf("child session %+v", c)
	}
}

// TestRunPlanCannotEdit asks the plan agent to edit a file: the edit fails
// as a tool error, the file is unchanged, and the loop goes on.
func TestRunPlanCannotEdit(t *testing.T) {
	script := `
step
call call_1 edit {"filePath":"main.go","oldString":"hello","newString":"goodbye"}
finish tool-calls
step
text Plan mode cannot edit; here is the plan instead.
finish stop
`
	p := newProject(t, script, map[string]string{"main.go": "package main // hello\n"})
	stdout, stderr, code := p.run("run", "--agent", "plan", "change hello to goodbye in main.go")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	if got := p.read("main.go"); got != "package main // hello\n" {
		t.Errorf("main.go = %q", got)
	}
	if !strings.Contains(stdout, "✗ edit") || !strings.Contains(stdout, "here is the plan instead") {
		t.Errorf("output: %s\n%s", stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	e := p.exportSession("")
	tool := e.Messages[1].Parts
	failed := false
	for _, part := range tool {
		failed = failed || (part.Tool == "edit" && part.State.Status == "error" && part.State.Error != "")
	}
	if !failed || e.Messages[1].Info.Agent != "plan" {
		t.Errorf("the edit did not fail under plan: %+v", e.Messages[1])
	}
}

// TestRunCommandAllowedTools runs a Claude Code command whose allowed-tools
// approve a shell command the config asks about: it runs without --auto,
// and the approval ends with the run.
func TestRunCommandAllowedTools(t *testing.T) {
	script := `
step
call call_1 bash {"command":"echo approved-by-the-command"}
finish tool-calls
step
text Done.
finish stop
`
	p := newProject(t, script, nil)
	p.write(map[string]string{
		"codeloop.json":             `{"permission": {"bash": "ask"}}`,
		".claude/commands/shout.md": "---\nallowed-tools: Bash(echo:*)\n---\nShout something.\n",
	})
	p.trust()
	stdout, stderr, code := p.run("run", "--command", "shout")
	if code != 0 || strings.Contains(stderr, "permission requested") {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "approved-by-the-command") {
		t.Fatalf("%d requests; the shell output did not reach the model", len(reqs))
	}
	for _, r := range p.exportSession("").Info.Permission {
		if strings.Contains(string(r), `"allow"`) {
			t.Errorf("the command's approval outlived the run: %s", r)
		}
	}
}

// TestAgentCreate drafts an agent with the configured model, and writes a
// template prompt when there is no model.
func TestAgentCreate(t *testing.T) {
	draft := `{"identifier": "sql-reviewer", "whenToUse": "Use this agent to review SQL migrations.", "systemPrompt": "You review SQL migrations for locking problems."}`
	p := newProject(t, "step\ntext "+draft+"\nfinish stop\n", nil)
	stdout, stderr, code := p.run("agent", "create", "--description", "reviews SQL migrations", "--mode", "subagent")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	data := p.read(".codeloop/agents/sql-reviewer.md")
	for _, want := range []string{"description: Use this agent to review SQL migrations.", "mode: subagent", "You review SQL migrations for locking problems."} {
		if !strings.Contains(data, want) {
			t.Errorf("the agent file lacks %q:\n%s", want, data)
		}
	}
	reqs := p.model.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `reviews SQL migrations`) || !strings.Contains(string(reqs[0].Body), `"temperature":0.3`) {
		t.Errorf("draft requests: %d %s", len(reqs), reqs)
	}
	list, _, _ := p.run("agent", "list")
	if !strings.Contains(list, "sql-reviewer") {
		t.Errorf("agent list:\n%s", list)
	}

	// Without a model the file still gets written, with a template prompt.
	bare := newProject(t, "", nil)
	if err := os.Remove(filepath.Join(bare.dir, "opencode.jsonc")); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = bare.run("agent", "create", "--description", "reviews SQL migrations")
	if code != 0 || !strings.Contains(stderr, "template prompt") {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	if data := bare.read(".codeloop/agents/reviews-sql-migrations.md"); !strings.Contains(data, "reviews SQL migrations") {
		t.Errorf("template agent file:\n%s", data)
	}
}

// TestRunCustomAgent runs an agent from an OpenCode agent file: its prompt
// becomes the system prompt and the answer is recorded under its name.
func TestRunCustomAgent(t *testing.T) {
	p := newProject(t, "step\ntext Reviewed.\nfinish stop\n", nil)
	p.write(map[string]string{".opencode/agent/reviewer.md": "---\ndescription: Reviews changes\nmode: primary\n---\nYou are the strict reviewer of this project.\n"})
	stdout, stderr, code := p.run("run", "--agent", "reviewer", "review the last change")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	if body := string(p.model.Requests()[0].Body); !strings.Contains(body, "You are the strict reviewer of this project.") {
		t.Errorf("the system prompt lacks the agent's prompt: %s", body)
	}
	if e := p.exportSession(""); len(e.Messages) != 2 || e.Messages[1].Info.Agent != "reviewer" {
		t.Errorf("messages %+v", e.Messages)
	}
}

// TestRunCommandMCPPrompt runs an MCP server's prompt as a command.
func TestRunCommandMCPPrompt(t *testing.T) {
	srv := mcptest.Start(t)
	p := newProject(t, "step\ntext Hello, Ada.\nfinish stop\n", nil)
	p.writeConfig(fmt.Sprintf(`{"mcp": {"tools": {"type": "remote", "url": %q, "oauth": false}}}`, srv.URL))
	stdout, stderr, code := p.run("run", "--command", "tools:greet", "Ada")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	if body := string(p.model.Requests()[0].Body); !strings.Contains(body, "Say hello to Ada.") {
		t.Errorf("the request lacks the expanded prompt: %s", body)
	}
}

// TestRunCommandAllowedToolsKilled kills a run while its command's turn
// runs: the command's allowed tools must not outlive it, so the next
// prompt's shell command is asked (and rejected without --auto).
func TestRunCommandAllowedToolsKilled(t *testing.T) {
	script := `
step
call call_1 bash {"command":"echo first > started.txt && sleep 30"}
finish tool-calls
step
call call_2 bash {"command":"echo second-turn > second.txt"}
finish tool-calls
step
text Done.
finish stop
`
	p := newProject(t, script, nil)
	p.write(map[string]string{
		"codeloop.json":             `{"permission": {"bash": "ask"}}`,
		".claude/commands/shout.md": "---\nallowed-tools: Bash(echo:*), Bash(sleep:*)\n---\nShout something.\n",
	})
	p.trust()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := p.command(ctx, "run", "--command", "shout")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(p.dir, "started.txt")
	waitfor.Until(t, "the command's turn to start its bash call", func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for _, r := range p.exportSession("").Info.Permission {
		if strings.Contains(string(r), `"allow"`) {
			t.Errorf("the command's approval outlived the killed run: %s", r)
		}
	}
	_, stderr, code := p.run("run", "-c", "go on")
	if code == 0 || !strings.Contains(stderr, "permission requested: bash") {
		t.Errorf("next prompt: exit %d, stderr %q; want its shell command asked and rejected", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "second.txt")); err == nil {
		t.Error("the next prompt's shell command ran on the killed command's approval")
	}
}
