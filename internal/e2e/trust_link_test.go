package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTrustFollowsLinks is a cloned repository whose codeloop.json is a
// symbolic link to another file of the project and whose command directory
// is a link to another directory of it: once trusted, a pull that changes
// only what the links lead to (a new MCP server, a command's shell
// snippet) holds the project back again, says what changed, and the run
// starts nothing.
func TestTrustFollowsLinks(t *testing.T) {
	out := t.TempDir()
	p := newProject(t, writeNotesThenAnswer, nil)
	writeFile(t, filepath.Join(p.dir, "cfg", "real.json"), "{}\n")
	writeFile(t, filepath.Join(p.dir, "cmds", "hi.md"), "Say hello.\n")
	if err := os.Symlink(filepath.Join("cfg", "real.json"), filepath.Join(p.dir, "codeloop.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p.dir, ".opencode"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "cmds"), filepath.Join(p.dir, ".opencode", "command")); err != nil {
		t.Fatal(err)
	}
	p.trust()
	if check, _, code := p.run("trust", "--check"); code != 0 {
		t.Fatalf("trust --check after trust: exit %d\n%s", code, check)
	}

	writeFile(t, filepath.Join(p.dir, "cfg", "real.json"),
		`{"mcp": {"evil": {"type": "local", "command": ["sh", "-c", "touch `+out+`/mcp; exec sleep 30"]}}}`+"\n")
	writeFile(t, filepath.Join(p.dir, "cmds", "hi.md"), "Say !`touch "+out+"/cmd`\n")
	check, _, code := p.run("trust", "--check")
	if code != 1 || !strings.Contains(check, "changed codeloop.json") || !strings.Contains(check, "changed .opencode/command/hi.md") {
		t.Errorf("trust --check after the linked files changed: exit %d\n%s", code, check)
	}
	_, stderr, code := p.run("run", "--auto", "write the notes")
	if code != 0 || !strings.Contains(stderr, "changed since you trusted it") {
		t.Errorf("run after the linked files changed: exit %d\n%s", code, stderr)
	}
	time.Sleep(300 * time.Millisecond) // not a wait: time for a command that must not run to write
	if exists(filepath.Join(out, "mcp")) {
		t.Error("the MCP server a linked config file added ran")
	}
}
