package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunProtectedPaths has the model change git's and codeloop's own
// files under run --auto with a catch-all allow rule: each change is
// refused as needing the user's approval, and nothing changes, while a
// plain file is written.
func TestRunProtectedPaths(t *testing.T) {
	script := `
step
call call_1 write {"filePath":".codeloop/agent/evil.md","content":"x"}
call call_2 edit {"filePath":".git/config","oldString":"[core]","newString":"[core]\n\thooksPath = /tmp"}
call call_3 write {"filePath":"opencode.json","content":"{}"}
call call_4 write {"filePath":"notes.txt","content":"fine\n"}
finish tool-calls
step
text Done.
finish stop
`
	p := newProject(t, script, nil)
	p.writeConfig(`{"permission": "allow", "experimental": {"continue_loop_on_deny": true}}`)
	before, err := os.ReadFile(filepath.Join(p.dir, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ := p.run("run", "--auto", "change the config")
	res := p.toolResults()
	for _, id := range []string{"call_1", "call_2", "call_3"} {
		if !strings.Contains(res[id], "needs the user's approval") {
			t.Errorf("result of %s = %q, want a refusal\n%s\n%s", id, res[id], stdout, stderr)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(p.dir, ".git", "config")); string(after) != string(before) {
		t.Error(".git/config changed")
	}
	if _, err := os.Stat(filepath.Join(p.dir, ".codeloop/agent/evil.md")); err == nil {
		t.Error(".codeloop/agent/evil.md was written")
	}
	if got, _ := os.ReadFile(filepath.Join(p.dir, "opencode.json")); string(got) == "{}" {
		t.Error("opencode.json was written")
	}
	if got, _ := os.ReadFile(filepath.Join(p.dir, "notes.txt")); string(got) != "fine\n" {
		t.Errorf("notes.txt = %q; results %v", got, res)
	}
}
