package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/codeloop/codeloop/internal/mcp/mcptest"
)

// The test binary doubles as a local MCP server: codeloop starts it with
// mcptest.EnvStdio set, and it serves mcptest's server over stdio instead
// of running the tests.
func init() {
	if os.Getenv(mcptest.EnvStdio) == "" {
		return
	}
	if err := mcptest.ServeStdio(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// localMCP is the config entry of a local MCP server run by the test
// binary: mcptest's server over stdio, with the crash tool.
func localMCP(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"type": "local", "command": []string{exe}, "environment": map[string]string{mcptest.EnvStdio: "1"}})
	return string(b)
}

// chatRequest is the part of a Chat Completions request the MCP tests read.
type chatRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		ToolCallID string          `json:"tool_call_id"`
		Content    json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

func parseChat(t *testing.T, body []byte) chatRequest {
	t.Helper()
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	return req
}

// result is the text of the tool message answering callID.
func (r chatRequest) result(callID string) (string, bool) {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			var s string
			if json.Unmarshal(m.Content, &s) != nil {
				s = string(m.Content)
			}
			return s, true
		}
	}
	return "", false
}

func (r chatRequest) tools() []string {
	var out []string
	for _, tl := range r.Tools {
		out = append(out, tl.Function.Name)
	}
	return out
}

// TestMCPList lists a local, a remote, a disabled and an unreachable server
// with the real binary: each one's type, status and tool count.
func TestMCPList(t *testing.T) {
	srv := mcptest.Start(t)
	p := newProject(t, "step\ntext unused\nfinish stop\n", nil)
	p.writeConfig(fmt.Sprintf(`{"mcp": {"local": %s, "remote": {"type": "remote", "url": %q, "oauth": false},
		"off": {"type": "local", "command": ["nothing"], "enabled": false},
		"down": {"type": "remote", "url": "http://127.0.0.1:1/mcp", "oauth": false}}}`, localMCP(t), srv.URL))
	stdout, stderr, code := p.run("mcp", "list")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("list output:\n%s", stdout)
	}
	// The local server has echo, add, fail and crash; the remote one the
	// first three.
	want := map[string][]string{
		"down": {"remote", "failed", "-"}, "local": {"local", "connected", "4"},
		"off": {"local", "disabled", "-"}, "remote": {"remote", "connected", "3"},
	}
	var names []string
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		names = append(names, f[0])
		if w := want[f[0]]; len(f) < 4 || w == nil || !slices.Equal(f[1:4], w) {
			t.Errorf("line %q, want %v", line, w)
		}
	}
	if !slices.Equal(names, []string{"down", "local", "off", "remote"}) {
		t.Errorf("servers %v, want them sorted by name", names)
	}
}

// TestRunMCPResourceTools has the model list and read a server's
// resources through the loop.
func TestRunMCPResourceTools(t *testing.T) {
	script := `
step
call call_1 list_mcp_resources {"server":"tools"}
finish tool-calls
step
call call_2 read_mcp_resource {"server":"tools","uri":"test://readme"}
finish tool-calls
step
text The readme is a title.
finish stop
`
	srv := mcptest.Start(t)
	p := newProject(t, script, nil)
	p.writeConfig(fmt.Sprintf(`{"mcp": {"tools": {"type": "remote", "url": %q, "oauth": false}}}`, srv.URL))
	stdout, stderr, code := p.run("run", "what does the server's readme say?")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3\n%s\n%s", len(reqs), stdout, stderr)
	}
	if tools := parseChat(t, reqs[0].Body).tools(); !slices.Contains(tools, "list_mcp_resources") || !slices.Contains(tools, "read_mcp_resource") {
		t.Errorf("the first request offers %v", tools)
	}
	// The server's instructions are in the system prompt.
	if !strings.Contains(string(reqs[0].Body), mcptest.Instructions) {
		t.Errorf("the first request lacks the server's instructions: %s", reqs[0].Body)
	}
	if got, _ := parseChat(t, reqs[1].Body).result("call_1"); !strings.Contains(got, `"uri": "test://readme"`) || !strings.Contains(got, `"server": "tools"`) {
		t.Errorf("the listing that reached the model: %q", got)
	}
	if got, _ := parseChat(t, reqs[2].Body).result("call_2"); got != "# Read me" {
		t.Errorf("the resource that reached the model: %q", got)
	}
	if !strings.Contains(stdout, "The readme is a title.") {
		t.Errorf("output: %s", stdout)
	}
}

// TestRunMCPToolError calls a tool that answers isError: the model gets a
// tool error with the server's text and the loop goes on.
func TestRunMCPToolError(t *testing.T) {
	script := `
step
call call_1 tools_fail {}
finish tool-calls
step
text The tool failed, as it always does.
finish stop
`
	srv := mcptest.Start(t)
	p := newProject(t, script, nil)
	p.writeConfig(fmt.Sprintf(`{"mcp": {"tools": {"type": "remote", "url": %q, "oauth": false}}}`, srv.URL))
	stdout, stderr, code := p.run("run", "try the failing tool")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2\n%s\n%s", len(reqs), stdout, stderr)
	}
	if got, ok := parseChat(t, reqs[1].Body).result("call_1"); !ok || !strings.Contains(got, "it failed") {
		t.Errorf("the error that reached the model: %q", got)
	}
	if !strings.Contains(stdout, "✗ tools_fail") || !strings.Contains(stdout, "The tool failed, as it always does.") {
		t.Errorf("output: %s", stdout)
	}
	var state string
	for _, m := range p.exportSession("").Messages {
		for _, part := range m.Parts {
			if part.Tool == "tools_fail" {
				state = part.State.Status + ": " + part.State.Error
			}
		}
	}
	if !strings.HasPrefix(state, "error: ") || !strings.Contains(state, "it failed") {
		t.Errorf("stored tool state %q, want an error", state)
	}
	if calls := srv.Calls(); len(calls) != 1 || calls[0].Tool != "fail" {
		t.Errorf("server calls %+v", calls)
	}
}

// TestRunMCPServerCrash has a local server exit in the middle of a call:
// the model gets a clear error, the server's tools are gone from the next
// request while another server's stay, and the loop goes on.
func TestRunMCPServerCrash(t *testing.T) {
	script := `
step
call call_1 local_crash {}
finish tool-calls
step
text The local server went away.
finish stop
`
	srv := mcptest.Start(t)
	p := newProject(t, script, nil)
	p.writeConfig(fmt.Sprintf(`{"mcp": {"local": %s, "tools": {"type": "remote", "url": %q, "oauth": false}}}`, localMCP(t), srv.URL))
	stdout, stderr, code := p.run("run", "crash the local server")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2\n%s\n%s", len(reqs), stdout, stderr)
	}
	if tools := parseChat(t, reqs[0].Body).tools(); !slices.Contains(tools, "local_crash") || !slices.Contains(tools, "tools_echo") {
		t.Fatalf("the first request offers %v", tools)
	}
	second := parseChat(t, reqs[1].Body)
	if got, _ := second.result("call_1"); !strings.Contains(got, `MCP server "local" closed the connection`) {
		t.Errorf("the error that reached the model: %q", got)
	}
	tools := second.tools()
	if slices.Contains(tools, "local_echo") || !slices.Contains(tools, "tools_echo") {
		t.Errorf("the second request offers %v: want the remote server's tools only", tools)
	}
	if !strings.Contains(stdout, "The local server went away.") {
		t.Errorf("output: %s", stdout)
	}
}

// TestRunMCPOutputTruncated cuts a long MCP tool result to the configured
// tool output limit before it reaches the model.
func TestRunMCPOutputTruncated(t *testing.T) {
	long := strings.Repeat("0123456789", 30)
	script := fmt.Sprintf(`
step
call call_1 tools_echo {"text":%q}
finish tool-calls
step
text The answer was long.
finish stop
`, long)
	srv := mcptest.Start(t)
	p := newProject(t, script, nil)
	p.writeConfig(fmt.Sprintf(`{"tool_output": {"max_bytes": 100},
		"mcp": {"tools": {"type": "remote", "url": %q, "oauth": false}}}`, srv.URL))
	stdout, stderr, code := p.run("run", "echo something long")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2\n%s\n%s", len(reqs), stdout, stderr)
	}
	got, _ := parseChat(t, reqs[1].Body).result("call_1")
	if strings.Contains(got, long) || !strings.Contains(got, "bytes truncated") || !strings.Contains(got, long[:50]) {
		t.Errorf("the result that reached the model: %q", got)
	}
}

// TestRunMCPLateServer has a local server connect after the first step
// stopped waiting for it: its tools are offered from the next step on.
func TestRunMCPLateServer(t *testing.T) {
	script := `
step
sleep 4s
call call_1 tools_echo {"text":"waiting"}
finish tool-calls
step
text Both servers are there now.
finish stop
`
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	late, _ := json.Marshal(map[string]any{"type": "local", "command": []string{"sh", "-c", `sleep 1; exec "$0"`, exe},
		"environment": map[string]string{mcptest.EnvStdio: "1"}})
	srv := mcptest.Start(t)
	p := newProject(t, script, nil)
	p.writeConfig(fmt.Sprintf(`{"experimental": {"mcp_startup_wait": 300},
		"mcp": {"late": %s, "tools": {"type": "remote", "url": %q, "oauth": false}}}`, late, srv.URL))
	stdout, stderr, code := p.run("run", "use the tools")
	if code != 0 {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := p.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2\n%s\n%s", len(reqs), stdout, stderr)
	}
	if tools := parseChat(t, reqs[0].Body).tools(); slices.Contains(tools, "late_echo") || !slices.Contains(tools, "tools_echo") {
		t.Errorf("the first request offers %v: want the remote server's tools only", tools)
	}
	if tools := parseChat(t, reqs[1].Body).tools(); !slices.Contains(tools, "late_echo") || !slices.Contains(tools, "tools_echo") {
		t.Errorf("the second request offers %v: want both servers' tools", tools)
	}
}
