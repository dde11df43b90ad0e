package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/mcp/mcptest"
	"github.com/codeloop/codeloop/internal/waitfor"
)

// writeConfig adds a codeloop.json beside the project's OpenCode config;
// both are merged. The project is then trusted as it is, as the user who
// wrote the config would: what it names runs.
func (p *project) writeConfig(cfg string) {
	p.t.Helper()
	if err := os.WriteFile(filepath.Join(p.dir, "codeloop.json"), []byte(cfg), 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.trust()
}

// trust trusts the project as its files are now.
func (p *project) trust() {
	p.t.Helper()
	p.mustRun("trust")
}

// TestRunMCPTool has the model call a tool of an MCP server that the
// configuration says to ask about: run rejects the ask and names the tool;
// with --auto the call reaches the server and its result reaches the model.
func TestRunMCPTool(t *testing.T) {
	script := `
step
call call_1 tools_echo {"text":"ping from the model"}
finish tool-calls
step
text The server answered.
finish stop
`
	for _, auto := range []bool{false, true} {
		t.Run(fmt.Sprintf("auto=%v", auto), func(t *testing.T) {
			srv := mcptest.Start(t)
			p := newProject(t, script, nil)
			p.writeConfig(fmt.Sprintf(`{"mcp": {"tools": {"type": "remote", "url": %q, "oauth": false}},
				"permission": {"tools_echo": "ask"}}`, srv.URL))
			args := []string{"run", "echo something through the server"}
			if auto {
				args = append(args, "--auto")
			}
			stdout, stderr, code := p.run(args...)
			// Without --auto the ask is rejected, and a rejected turn
			// exits 1.
			if want := map[bool]int{true: 0, false: 1}[auto]; code != want {
				t.Fatalf("exit status %d, want %d\n%s\n%s", code, want, stdout, stderr)
			}
			reqs := p.model.Requests()
			if len(reqs) < 1 || (auto && len(reqs) < 2) {
				t.Fatalf("the model got %d requests, want 2\n%s\n%s", len(reqs), stdout, stderr)
			}
			if !strings.Contains(string(reqs[0].Body), `"tools_echo"`) {
				t.Fatalf("the first request does not offer tools_echo: %s", reqs[0].Body)
			}
			last := string(reqs[len(reqs)-1].Body)
			calls := srv.Calls()
			if auto {
				if len(calls) != 1 || calls[0].Tool != "echo" || calls[0].Arguments["text"] != "ping from the model" {
					t.Errorf("server calls = %+v, want one echo", calls)
				}
				if !strings.Contains(last, "ping from the model") {
					t.Errorf("the tool result did not reach the model: %s", last)
				}
				return
			}
			// A plain rejection ends the turn: the model is not asked again.
			if len(reqs) != 1 {
				t.Errorf("the model got %d requests after the rejection, want 1", len(reqs))
			}
			if !strings.Contains(stderr, "tools_echo") {
				t.Errorf("the rejected ask does not name the tool:\n%s", stderr)
			}
			if len(calls) != 0 {
				t.Errorf("the server was called without permission: %+v", calls)
			}
		})
	}
}

// TestRunSlowMCPServer configures a local server that takes far longer to
// start than the first prompt waits: the answer comes without waiting for
// it, and the server's process does not outlive codeloop.
func TestRunSlowMCPServer(t *testing.T) {
	script := `
step
text Hello without tools.
finish stop
`
	p := newProject(t, script, nil)
	marker := filepath.Join(t.TempDir(), "slow-server-pid")
	p.writeConfig(fmt.Sprintf(`{"experimental": {"mcp_startup_wait": 500},
		"mcp": {"slow": {"type": "local", "command": ["sh", "-c", "echo $$ > %s; exec sleep 30"]}}}`, marker))
	start := time.Now()
	stdout, stderr, code := p.run("run", "say hello")
	elapsed := time.Since(start)
	if code != 0 || !strings.Contains(stdout, "Hello without tools.") {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	// The first step waits for servers up to the configured deadline
	// (0.5 s); a server that needs 30 s must not hold the answer back.
	if elapsed > 5*time.Second {
		t.Errorf("run took %v: it waited for the slow server", elapsed)
	}
	t.Logf("run with a slow MCP server took %v", elapsed)
	pid, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("the slow server never started: %v", err)
	}
	if !waitfor.Within(waitfor.Deadline, func() bool {
		// kill -0 fails once the process is gone.
		return exec.Command("kill", "-0", strings.TrimSpace(string(pid))).Run() != nil
	}) {
		t.Fatalf("the slow server (pid %s) outlived codeloop", strings.TrimSpace(string(pid)))
	}
}

// TestRunMCPResourceMention attaches an MCP server's resource mentioned as
// @<server>:<uri>: its contents reach the model in the first request, and
// the stored message keeps the reference with where it was mentioned.
func TestRunMCPResourceMention(t *testing.T) {
	srv := mcptest.Start(t)
	p := newProject(t, "step\ntext It says read me.\nfinish stop\n", nil)
	p.writeConfig(fmt.Sprintf(`{"mcp": {"tools": {"type": "remote", "url": %q, "oauth": false}}}`, srv.URL))
	stdout, stderr, code := p.run("run", "summarise @tools:test://readme and @tools:test://missing")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1\n%s", len(reqs), stderr)
	}
	body := string(reqs[0].Body)
	for _, want := range []string{
		"summarise @tools:test://readme",
		"Attached the MCP resource test://readme of the server tools",
		"# Read me",
		"Failed to read the MCP resource test://missing",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the request lacks %q:\n%s", want, body)
		}
	}
	if !strings.Contains(stdout, "It says read me.") {
		t.Errorf("output: %s", stdout)
	}
	exp, _, _ := p.run("export")
	if !strings.Contains(strings.ReplaceAll(exp, " ", ""), `"clientName":"tools"`) {
		t.Errorf("the export lacks the resource part's source:\n%s", exp)
	}
}
