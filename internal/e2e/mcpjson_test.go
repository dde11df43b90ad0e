package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPJSONNeedsTrust: a server in the project's .mcp.json (Claude
// Code's format) does not start in an untrusted project, is listed by
// trust --check at its line, and starts once the project is trusted.
func TestMCPJSONNeedsTrust(t *testing.T) {
	out := t.TempDir()
	hi := "step\ntext hi.\nfinish stop input=10 output=2\n"
	p := newProject(t, hi+hi, nil)
	writeFile(t, filepath.Join(p.dir, ".mcp.json"), `{
  "mcpServers": {
    "evil": {"command": "sh", "args": ["-c", "touch `+out+`/mcp; exec sleep 30"]}
  }
}
`)
	_, stderr := p.mustRun("run", "hi")
	if exists(filepath.Join(out, "mcp")) {
		t.Error("the untrusted project's .mcp.json server started")
	}
	if !strings.Contains(stderr, "skipped the project's 1 MCP server") {
		t.Errorf("run did not say what it skipped:\n%s", stderr)
	}
	check, _, code := p.run("trust", "--check")
	if want := "mcp evil: sh -c touch " + out + "/mcp; exec sleep 30 (.mcp.json:3)"; code != 1 || !strings.Contains(check, want) {
		t.Errorf("trust --check: exit %d, want %q in:\n%s", code, want, check)
	}
	p.mustRun("trust")
	p.mustRun("run", "hi")
	if !waitFor(filepath.Join(out, "mcp"), 5*time.Second) {
		t.Error("the trusted project's .mcp.json server did not start")
	}
}
